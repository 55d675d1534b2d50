/**
 * The JSON API behind the public share-link page (GET /s/{token}), mounted at /public/v1.
 * No API key: the link token is the credential, plus an access token (header X-Link-Access or
 * query `access`) once a password-protected link was unlocked. Same envelopes as the external
 * API. Only PUBLIC_LINK shares open here; anything outside the shared subtree is RESOURCE_002.
 */
import { type Context, Hono, type Next } from "hono";
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { listChildren, type Resource, toIso } from "../../kv/tree/resources.ts";
import {
  type AnonymousLink,
  describeLink,
  grantLinkAccess,
  passwordRetryAfter,
  requireLinkAccess,
  resolveLinkToken,
  resourceInLink,
} from "../../kv/sharing/share_links.ts";
import { limitBody } from "../http/body_limit.ts";
import { clientOf } from "../http/client_address.ts";
import { errorEnvelope, ok } from "../http/envelope.ts";
import { sendFile } from "../http/file_response.ts";
import { externalApiError } from "../http/errors.ts";
import { toResourceItem } from "../http/schemas.ts";
import { seqFromPath, validJson, validQuery } from "../http/validate.ts";

export const PUBLIC_LINKS_BASE = "/public/v1";
/**
 * The shape of a link token (base64url, docs/security.md): anything else names no link, and is
 * refused before it reaches a lookup.
 */
const LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{1,128}$/;
const ITEMS_PAGE = 200;

/** What a link shows of a resource: the fields of its item an anonymous visitor needs. */
function publicItem(r: Resource) {
  const { resourceSeq, name, type, size, contentType, updatedAt } = toResourceItem(r);
  return { resourceSeq, name, type, size, contentType, updatedAt };
}

function linkPermissions(link: AnonymousLink) {
  return {
    canView: link.flags.cv,
    canDownload: link.flags.cd,
    canEdit: link.flags.ce,
    canUpload: link.flags.cu,
  };
}

export function publicLinksApi(d: Deps) {
  const app = new Hono();
  app.onError(externalApiError);
  app.notFound(() => fail("REQUEST_004"));
  app.use("*", async (c, next) => {
    await next();
    // Link content is private to whoever holds the token.
    c.header("Cache-Control", "no-store");
    c.header("Referrer-Policy", "no-referrer");
  });
  app.use("*", limitBody());
  const checkToken = async (c: Context, next: Next) => {
    if (!LINK_TOKEN_SHAPE.test(c.req.param("token") ?? "")) {
      fail("SHARE_007", "No share link has this token (a link token is a short base64url string)");
    }
    await next();
  };
  app.use("/links/:token", checkToken);
  app.use("/links/:token/*", checkToken);
  const accessOf = (
    c: { req: { header(n: string): string | undefined; query(n: string): string | undefined } },
  ) => c.req.header("x-link-access") ?? c.req.query("access");

  app.get("/links/:token", async (c) => {
    const link = await describeLink(d.kv, c.req.param("token"), accessOf(c));
    return ok(c, {
      shareType: link.share.type,
      passwordRequired: link.passwordRequired,
      expireDate: link.share.expiresAt === null ? null : toIso(link.share.expiresAt),
      ...(link.unlocked
        ? { resource: publicItem(link.resource), permissions: linkPermissions(link) }
        : {}),
    });
  });

  app.post("/links/:token/access", async (c) => {
    const share = await resolveLinkToken(d.kv, c.req.param("token"));
    // Password tries are budgeted per client (docs/security.md, "Share-link passwords").
    const client = clientOf(c, d.config.trustedProxies);
    const tooMany = (wait: number) =>
      c.json(
        errorEnvelope(
          "LINK_002",
          `Too many wrong passwords from your address for this link; retry in ${wait} s`,
        ),
        429,
        { "Retry-After": String(wait) },
      );
    // Before the body is read: a client that must wait costs no parsing and no password hash.
    const wait = await passwordRetryAfter(d.kv, share.shareSeq, client);
    if (wait > 0) return tooMany(wait);
    const body = await validJson(c, z.object({ password: z.string().max(128) }).strict());
    const granted = await grantLinkAccess(d.kv, share, body.password, client);
    if ("retryAfter" in granted) return tooMany(granted.retryAfter);
    return ok(c, { accessToken: granted.accessToken, expiresAt: toIso(granted.expiresAt) });
  });

  app.get("/links/:token/items", async (c) => {
    const link = await requireLinkAccess(d.kv, c.req.param("token"), accessOf(c));
    const q = validQuery(
      c,
      z.object({
        folderSeq: z.coerce.number().int().positive().optional(),
        cursor: z.string().max(500).optional(),
      }),
    );
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

  app.get("/links/:token/files/:rs/download", async (c) => {
    const link = await requireLinkAccess(d.kv, c.req.param("token"), accessOf(c));
    const { resource } = await resourceInLink(d.kv, link.share, seqFromPath(c, "rs"), "rs");
    if (resource.type !== "FILE" || !resource.blobId) {
      fail("RESOURCE_006", `Resource ${resource.rs} is a folder`, "rs");
    }
    if (!link.flags.cd) fail("PERMISSION_004", "This link does not allow downloads");
    return await sendFile(c, d, resource, { disposition: "attachment" });
  });

  return app;
}
