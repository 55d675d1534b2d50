/**
 * Admin API: the ORG_LINK / PUBLIC_LINK shares a page at a time (searched, or only the active
 * ones), and revoking one (the link stops resolving).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { toIso } from "../../kv/tree/resources.ts";
import { listLinkSharePage } from "../../kv/sharing/link_pages.ts";
import { removeShare } from "../../kv/sharing/share_writes.ts";
import { getShare, LINK_TYPES, linkUrlOf } from "../../kv/sharing/shares.ts";
import { newOpenApiApp, queryParam, seqParam } from "../http/openapi.ts";
import { pageWithCursor } from "../http/cursor.ts";
import { seqFromPath, validQuery } from "../http/validate.ts";
import {
  adminErrors,
  adminPageQuery,
  type Paged,
  pageOf,
  type ShareLink,
  ShareLinkSchema,
} from "./schemas.ts";

const ShareLinksQuery = adminPageQuery(
  "the resource's name or a word of it, or of the owner's accountId, e-mail or name",
  "report",
).extend({
  active: z.enum(["true", "false"], { error: "active must be true or false" }).optional()
    .openapi({
      ...queryParam("active"),
      description: "true: only links that still open (not expired); default false: all",
      example: "true",
    }),
});

// The handlers validate by hand (seqFromPath, validQuery); these declarations document them.
const listShareLinksRoute = createRoute({
  method: "get",
  path: "/share-links",
  tags: ["Share links"],
  operationId: "listShareLinks",
  summary: "List the ORG_LINK and PUBLIC_LINK shares of every tenant, a page at a time in " +
    "share seq order",
  request: { query: ShareLinksQuery },
  responses: {
    200: {
      description: "A page of link shares",
      content: { "application/json": { schema: pageOf(ShareLinkSchema, "The link shares") } },
    },
    ...adminErrors("RESOURCE_018"),
  },
});

const revokeShareLinkRoute = createRoute({
  method: "delete",
  path: "/share-links/{shareSeq}",
  tags: ["Share links"],
  operationId: "revokeShareLink",
  summary: "Revoke a link share: its link stops resolving at once",
  request: {
    params: z.object({ shareSeq: seqParam("shareSeq").describe("The link share's seq") }),
  },
  responses: {
    204: { description: "Revoked" },
    ...adminErrors("SHARE_006"),
  },
});

export function shareLinksAdminApi(d: Deps) {
  const app = newOpenApiApp();

  app.get("/share-links", async (c) => {
    const { q, active, limit, cursor } = validQuery(c, ShareLinksQuery);
    const activeOnly = active === "true";
    const page = await pageWithCursor(
      JSON.stringify(["share-links", q ?? "", activeOnly]),
      cursor,
      (inner) => listLinkSharePage(d.kv, { q, activeOnly }, { cursor: inner, limit }),
    );
    const items = page.items.map(({ share: s, resourceName, owner }): ShareLink => ({
      shareSeq: s.shareSeq,
      resourceSeq: s.rs,
      resourceName,
      ownerSeq: s.ownerSeq,
      ownerAccountId: owner?.accountId ?? null,
      shareType: s.type,
      // The page holds only shares that have a link token.
      url: linkUrlOf(d.config.publicUrl, s)!,
      expireDate: s.expiresAt === null ? null : toIso(s.expiresAt),
      isPasswordEnabled: s.passwordHash !== null,
      createdAt: toIso(s.createdAt),
    }));
    return c.json({ items, nextCursor: page.nextCursor } satisfies Paged<ShareLink>);
  });

  app.delete("/share-links/:shareSeq", async (c) => {
    const seq = seqFromPath(c, "shareSeq");
    const share = await getShare(d.kv, seq);
    if (!share || !LINK_TYPES.has(share.type)) {
      fail("SHARE_006", `No link share with seq ${seq}`, "shareSeq");
    }
    await removeShare(d, seq);
    return c.body(null, 204);
  });

  app.openAPIRegistry.registerPath(listShareLinksRoute);
  app.openAPIRegistry.registerPath(revokeShareLinkRoute);
  return app;
}
