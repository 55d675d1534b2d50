/**
 * Admin API: the ORG_LINK / PUBLIC_LINK shares a page at a time (searched, or only the active
 * ones), and revoking one (the link stops resolving).
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { toIso } from "../../kv/tree/resources.ts";
import { listLinkSharePage } from "../../kv/sharing/link_pages.ts";
import { removeShare } from "../../kv/sharing/share_writes.ts";
import { getShare, LINK_TYPES, linkUrlOf } from "../../kv/sharing/shares.ts";
import { newOpenApiApp, queryParam, seqParam } from "../http/openapi.ts";
import { adminPageQuery, operation, serveDelete, serveSearchedList } from "./schemas/common.ts";
import { type ShareLink, ShareLinkSchema } from "./schemas/storage.ts";

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

const linkOp = operation("Share links");

export function shareLinksAdminApi(d: Deps) {
  const app = newOpenApiApp();

  serveSearchedList(d.kv, app, {
    path: "/share-links",
    name: linkOp(
      "listShareLinks",
      "List the ORG_LINK and PUBLIC_LINK shares of every tenant, a page at a time in " +
        "share seq order",
    ),
    query: ShareLinksQuery,
    item: ShareLinkSchema,
    what: { items: "The link shares", page: "A page of link shares" },
  }, {
    list: listLinkSharePage,
    filters: (query) => ({ activeOnly: query.active === "true" }),
    view: (page) =>
      page.map(({ share: s, resourceName, owner }): ShareLink => ({
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
      })),
  });

  serveDelete(app, {
    path: "/share-links/{shareSeq}",
    name: linkOp("revokeShareLink", "Revoke a link share: its link stops resolving at once", {
      action: "link_revoked",
      targets: { shareSeq: "shareSeq" },
    }),
    params: z.object({ shareSeq: seqParam("shareSeq").describe("The link share's seq") }),
    done: "Revoked",
    missing: "SHARE_006",
  }, async ({ shareSeq }) => {
    const share = await getShare(d.kv, shareSeq);
    if (!share || !LINK_TYPES.has(share.type)) {
      fail("SHARE_006", `No link share with seq ${shareSeq}`, "shareSeq");
    }
    await removeShare(d, shareSeq);
  });
  return app;
}
