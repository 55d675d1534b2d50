/**
 * Purging from the trash as the drive API does it: the tree operation (kv/tree/trash.ts) and
 * then the shares of everything it removed, so no recipient list or link points at nothing.
 * It lives here, above the tree, because shares depend on resources and not the other way.
 */
import type { Deps } from "../deps.ts";
import { type PurgeResult, purgeTrashed } from "../tree/trash.ts";
import { removeShare } from "./share_writes.ts";
import { shareOfResource } from "./shares.ts";

export async function purgeTrashedWithShares(
  d: Deps,
  input: { ownerSeq: number; rs: number; actorSeq?: number },
): Promise<PurgeResult> {
  const result = await purgeTrashed(d, input);
  for (const resourceSeq of result.purgedSeqs) {
    const share = await shareOfResource(d.kv, resourceSeq);
    if (share) await removeShare(d, share.shareSeq, input.actorSeq ?? input.ownerSeq);
  }
  return result;
}
