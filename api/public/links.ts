/**
 * The JSON API behind the public share-link page (GET /s/{token}), mounted at /public/v1.
 * No API key: the link token is the credential, plus an access token (header X-Link-Access or
 * query `access`) once a password-protected link was unlocked. Same envelopes as the external
 * API. Only PUBLIC_LINK shares open here; anything outside the shared subtree is RESOURCE_002.
 * Its OpenAPI document is GET /public/v1/openapi.json.
 */
import type { Context, Next } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { listChildren } from "../../kv/tree/listing.ts";
import { toIso } from "../../kv/tree/resources.ts";
import {
  type AnonymousLink,
  describeLink,
  grantLinkAccess,
  passwordRetryAfter,
  requireLinkAccess,
  resolveLinkToken,
  resourceInLink,
} from "../../kv/sharing/share_links.ts";
import { setActor } from "../../lib/request_facts.ts";
import { sha256Hex } from "../../lib/secrets.ts";
import { limitBody } from "../http/body_limit.ts";
import { clientOf } from "../http/client_address.ts";
import { errorEnvelope, ok } from "../http/envelope.ts";
import { recordDownload, recordLinkOpen } from "../../kv/events/log.ts";
import { sendFile } from "../http/file_response.ts";
import { sendThumbnail, ThumbnailQuery } from "../http/previews.ts";
import { externalApiError } from "../http/errors.ts";
import {
  bodyReadByHandler,
  ErrorEnvelopeSchema,
  errorResponsesWith,
  fileBytes,
  jsonBody,
  jsonOk,
  newOpenApiApp,
  queryParam,
  seqParam,
} from "../http/openapi.ts";
import type { ErrorCode } from "../../kv/errors.ts";
import { validJson } from "../http/validate.ts";
import {
  AccessBody,
  AccessGrantSchema,
  ItemsPageSchema,
  ItemsQuery,
  LinkInfoSchema,
  publicItem,
} from "./schemas/links.ts";

export const PUBLIC_LINKS_BASE = "/public/v1";
/**
 * The shape of a link token (base64url, docs/security.md): anything else names no link, and is
 * refused before it reaches a lookup.
 */
const LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;
const ITEMS_PAGE = 200;
/** The tus routes of ./link_uploads.ts, whose bodies are file bytes, not JSON. */
const LINK_UPLOAD_BODIES = [
  { method: "POST", path: /^\/links\/[^/]+\/uploads$/ },
  { method: "PATCH", path: /^\/links\/[^/]+\/uploads\/[^/]+$/ },
];

// ---------------------------------------------------------------- the routes

const TokenParam = z.string().regex(LINK_TOKEN_SHAPE).openapi({
  param: { name: "token", in: "path" },
  description: "The link token: the last segment of the link's URL /s/{token}",
  example: "Xy7_k2Lq9mP0aBcD",
});

/** The link's access token, from POST .../access, for password-protected links. */
const AccessParams = {
  header: z.object({
    "x-link-access": z.string().optional().openapi({
      param: { name: "x-link-access", in: "header" },
      description: "The access token of an unlocked password-protected link",
      example: "la_3nV8q",
    }),
  }),
};
const accessQuery = z.string().optional().openapi({
  ...queryParam("access"),
  description: "The access token, for links the browser opens directly (downloads)",
  example: "la_3nV8q",
});

const linkErrors = (...codes: ErrorCode[]) =>
  errorResponsesWith(ErrorEnvelopeSchema, ["REQUEST_001", "REQUEST_002", "SHARE_007", ...codes]);

/** A link route's answers: `data` in the success envelope, and the link errors `codes` name. */
const linkAnswers = <T extends z.ZodTypeAny>(
  data: T,
  description: string,
  ...codes: ErrorCode[]
) => ({ ...jsonOk(data, description), ...linkErrors(...codes) });

const TokenParams = z.object({ token: TokenParam });

const linkRoute = createRoute({
  method: "get",
  path: "/links/{token}",
  tags: ["Share links"],
  operationId: "getLink",
  // No API key: the link token in the path is the credential (the document says so).
  security: [],
  summary: "Open a link: its kind, and its file or folder once unlocked",
  request: { params: TokenParams, ...AccessParams },
  responses: linkAnswers(LinkInfoSchema, "The link", "LINK_003", "LINK_005"),
});

const unlockRoute = createRoute({
  method: "post",
  path: "/links/{token}/access",
  tags: ["Share links"],
  operationId: "unlockLink",
  security: [],
  summary: "Unlock a password-protected link: an access token for the next requests",
  request: { params: TokenParams, body: jsonBody(AccessBody) },
  responses: linkAnswers(
    AccessGrantSchema,
    "Unlocked",
    "REQUEST_003",
    "REQUEST_005",
    "LINK_001",
    "LINK_002",
    "LINK_005",
  ),
});

const itemsRoute = createRoute({
  method: "get",
  path: "/links/{token}/items",
  tags: ["Share links"],
  operationId: "listLinkItems",
  security: [],
  summary: "List a folder of a shared folder, a page of up to 200 items",
  request: {
    params: TokenParams,
    query: ItemsQuery.extend({ access: accessQuery }),
    ...AccessParams,
  },
  responses: linkAnswers(
    ItemsPageSchema,
    "A page of the folder",
    "LINK_003",
    "LINK_004",
    "LINK_005",
    "RESOURCE_002",
    "RESOURCE_005",
  ),
});

/** A file of the link: the token and the file's seq. */
const LinkFileParams = TokenParams.extend({
  rs: seqParam("rs").describe("The file's seq (resourceSeq of the listing)").openapi({
    example: 2,
  }),
});

const downloadRoute = createRoute({
  method: "get",
  path: "/links/{token}/files/{rs}/download",
  tags: ["Share links"],
  operationId: "downloadLinkFile",
  security: [],
  summary: "Download a file of the link (the file itself, or one inside the shared folder)",
  request: { params: LinkFileParams, query: z.object({ access: accessQuery }), ...AccessParams },
  responses: {
    200: {
      description: "The file's bytes, in the file's stored Content-Type (application/" +
        "octet-stream when it has none), as an attachment (Content-Disposition)",
      content: fileBytes("The content"),
    },
    206: {
      description: "The requested byte range (Content-Range)",
      content: fileBytes("The bytes of the range"),
    },
    304: { description: "If-None-Match matched the ETag" },
    ...linkErrors(
      "LINK_003",
      "LINK_004",
      "LINK_005",
      "PERMISSION_004",
      "RESOURCE_002",
      "RESOURCE_006",
      "RESOURCE_011",
    ),
  },
});

const thumbnailRoute = createRoute({
  method: "get",
  path: "/links/{token}/files/{rs}/thumbnail",
  tags: ["Share links"],
  operationId: "linkFileThumbnail",
  security: [],
  summary: "A thumbnail of an image of the link (WebP), made once per content and cached",
  request: {
    params: LinkFileParams,
    query: z.object({ access: accessQuery }).extend(ThumbnailQuery.shape),
    ...AccessParams,
  },
  responses: {
    200: { description: "The thumbnail (image/webp)", content: fileBytes("WebP bytes") },
    304: { description: "If-None-Match matched the ETag" },
    ...linkErrors(
      "LINK_003",
      "LINK_004",
      "LINK_005",
      "RESOURCE_002",
      "RESOURCE_006",
      "PREVIEW_003",
      "PREVIEW_004",
    ),
  },
});

function linkPermissions(link: AnonymousLink) {
  return {
    canView: link.flags.cv,
    canDownload: link.flags.cd,
    canEdit: link.flags.ce,
    canUpload: link.flags.cu,
  };
}

export function publicLinksApi(d: Deps) {
  const app = newOpenApiApp();
  app.onError(externalApiError);
  app.notFound(() => fail("REQUEST_004"));
  app.use("*", async (c, next) => {
    await next();
    // Link content is private to whoever holds the token.
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer");
  });
  // The link uploads (./link_uploads.ts) stream their bodies to storage under the quota.
  app.use("*", limitBody({ base: PUBLIC_LINKS_BASE, streamed: LINK_UPLOAD_BODIES }));
  const checkToken = async (c: Context, next: Next) => {
    if (!LINK_TOKEN_SHAPE.test(c.req.param("token") ?? "")) {
      fail("SHARE_007", "No share link has this token (a link token is a short base64url string)");
    }
    // For the request log (api/ops/): a digest prefix names the link, never the token.
    setActor(c, { kind: "link", link: sha256Hex(c.req.param("token")!).slice(0, 12) });
    await next();
  };
  app.use("/links/:token", checkToken);
  app.use("/links/:token/*", checkToken);
  const accessOf = (
    c: { req: { header(n: string): string | undefined; query(n: string): string | undefined } },
  ) => c.req.header("x-link-access") ?? c.req.query("access");

  app.openapi(linkRoute, async (c) => {
    const link = await describeLink(d.kv, c.req.param("token"), accessOf(c));
    await recordLinkOpen(d.kv, link.share, link.resource, link.unlocked);
    return ok(c, {
      shareType: link.share.type,
      passwordRequired: link.passwordRequired,
      expireDate: link.share.expiresAt === null ? null : toIso(link.share.expiresAt),
      fileRequest: link.share.fileRequest === true,
      ...(link.unlocked
        ? { resource: publicItem(link.resource), permissions: linkPermissions(link) }
        : {}),
    });
  });

  // The body is read after the throttle check: a client that must wait costs no parsing.
  app.openapi(bodyReadByHandler(app, unlockRoute), async (c) => {
    const share = await resolveLinkToken(d.kv, c.req.param("token"));
    // Password tries are budgeted per client (docs/security.md, "Share-link passwords").
    const client = clientOf(c, d.config.trustedProxies);
    // Typed as never: the route's typed answers are its successes, LINK_002 is in linkErrors.
    const tooMany = (wait: number) =>
      c.json(
        errorEnvelope(
          "LINK_002",
          `Too many wrong passwords from your address for this link; retry in ${wait} s`,
        ),
        429,
        { "Retry-After": String(wait) },
      ) as never;
    // Before the body is read: a client that must wait costs no parsing and no password hash.
    const wait = await passwordRetryAfter(d.kv, share.shareSeq, client);
    if (wait > 0) return tooMany(wait);
    const body = await validJson(c, AccessBody);
    const granted = await grantLinkAccess(d.kv, share, body.password, client);
    if ("retryAfter" in granted) return tooMany(granted.retryAfter);
    return ok(c, { accessToken: granted.accessToken, expiresAt: toIso(granted.expiresAt) });
  });

  app.openapi(itemsRoute, async (c) => {
    const link = await requireLinkAccess(d.kv, c.req.param("token"), accessOf(c));
    const q = c.req.valid("query");
    if (link.resource.type !== "FOLDER") {
      fail("RESOURCE_005", "This link is to a file, not a folder", "folderSeq");
    }
    const { resource: folder, path } = await resourceInLink(
      d.kv,
      link.share,
      q.folderSeq ?? link.share.rs,
      "folderSeq",
    );
    if (folder.type !== "FOLDER") fail("RESOURCE_005", "folderSeq is a file", "folderSeq");
    const page = await listChildren(d.kv, folder.ownerSeq, folder.rs, {
      sort: "name",
      order: "asc",
      limit: ITEMS_PAGE,
      cursor: q.cursor,
    });
    return ok(c, {
      folder: publicItem(folder),
      path: path.map((r) => ({ resourceSeq: r.rs, name: r.name })),
      items: page.items.filter((r) => r.trashedAt === null).map(publicItem),
      cursor: page.cursor,
    });
  });

  app.openapi(downloadRoute, async (c) => {
    const link = await requireLinkAccess(d.kv, c.req.param("token"), accessOf(c));
    const { resource } = await resourceInLink(d.kv, link.share, c.req.valid("param").rs, "rs");
    if (resource.type !== "FILE" || !resource.blobId) {
      fail("RESOURCE_006", `Resource ${resource.rs} is a folder`, "rs");
    }
    if (!link.flags.cd) fail("PERMISSION_004", "This link does not allow downloads");
    await recordDownload(d.kv, resource, "link", null);
    return await sendFile(c, d, resource, { disposition: "attachment" });
  });

  // Seeing the link's listing is seeing its images: no download permission needed.
  app.openapi(thumbnailRoute, async (c) => {
    const link = await requireLinkAccess(d.kv, c.req.param("token"), accessOf(c));
    const { resource } = await resourceInLink(d.kv, link.share, c.req.valid("param").rs, "rs");
    if (resource.type !== "FILE" || !resource.blobId) {
      fail("RESOURCE_006", `Resource ${resource.rs} is a folder`, "rs");
    }
    return await sendThumbnail(c, d, resource, c.req.valid("query").size);
  });

  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Drive public share-link API",
      version: "v1",
      description: "What the share-link page (/s/{token}) calls: no API key, the link token " +
        "is the credential. Errors answer the drive API's envelope with a code of docs/errors.md.",
    },
    servers: [{ url: PUBLIC_LINKS_BASE }],
  });
  return app;
}
