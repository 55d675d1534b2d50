/**
 * Purging from the trash as the drive API does it: the tree operation (kv/tree/trash.ts) and
 * then the shares of everything it removed, so no recipient list or link points at nothing.
 * It lives here, above the tree, because shares depend on resources and not the other way.
 */
import type { Deps } from "../deps.ts";
import { isDriveError } from "../errors.ts";
import { listTrash, type PurgeResult, purgeTrashed } from "../tree/trash.ts";
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

/** Top-level trash items read per page while emptying the trash. */
const EMPTY_PAGE = 100;

/**
 * Empties `ownerSeq`'s trash: every top-level item purged as purgeTrashedWithShares does it (its
 * own bounded commits, events, freed blobs and shares), one after the other, so no commit grows
 * with the trash. An item restored or purged by someone else meanwhile is skipped. Items trashed
 * while this runs may or may not be purged too.
 */
export async function emptyTrash(
  d: Deps,
  input: { ownerSeq: number; actorSeq?: number },
): Promise<{ items: number; resources: number; freedBytes: number }> {
  const total = { items: 0, resources: 0, freedBytes: 0 };
  let cursor: string | undefined;
  do {
    const page = await listTrash(d.kv, input.ownerSeq, { limit: EMPTY_PAGE, cursor });
    for (const item of page.items) {
      if (item.trashedAt === null) continue;
      try {
        const result = await purgeTrashedWithShares(d, { ...input, rs: item.rs });
        total.items++;
        total.resources += result.resources;
        total.freedBytes += result.freedBytes;
      } catch (err) {
        // Restored or purged meanwhile: no longer this call's to purge.
        if (isDriveError(err, "RESOURCE_019")) continue;
        throw err;
      }
    }
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  return total;
}
