/** Admin API: every ORG_LINK / PUBLIC_LINK share, and revoking one (the link stops resolving). */
import { Hono } from "hono";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { getResource, toIso } from "../../kv/tree/resources.ts";
import { listLinkShares } from "../../kv/sharing/share_links.ts";
import { removeShare } from "../../kv/sharing/share_writes.ts";
import { getShare, LINK_TYPES, linkUrlOf } from "../../kv/sharing/shares.ts";
import { seqFromPath } from "../http/validate.ts";
import type { ShareLink } from "./schemas.ts";

export function shareLinksAdminApi(d: Deps) {
  const app = new Hono();

  app.get("/share-links", async (c) => {
    const shares = await listLinkShares(d.kv);
    const items = await Promise.all(shares.map(async (s): Promise<ShareLink> => ({
      shareSeq: s.shareSeq,
      resourceSeq: s.rs,
      resourceName: (await getResource(d.kv, s.rs))?.name ?? null,
      ownerSeq: s.ownerSeq,
      shareType: s.type,
      // listLinkShares returns only shares that have a link token.
      url: linkUrlOf(d.config.publicUrl, s)!,
      expireDate: s.expiresAt === null ? null : toIso(s.expiresAt),
      isPasswordEnabled: s.passwordHash !== null,
      createdAt: toIso(s.createdAt),
    })));
    return c.json({ items });
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

  return app;
}
