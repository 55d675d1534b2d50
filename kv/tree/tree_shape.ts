/**
 * The owner's tree shape stamp: one key per drive rewritten by every commit that changes which
 * folders sit above which (a folder moved, trashed, restored, deleted, or handed to another
 * drive). A write that relies on the folders above an item staying put (a lock, a share, a move's
 * cycle check) checks this one key instead of every ancestor's entry. That keeps such commits at
 * a fixed number of checks however deep the tree: denokv takes at most 10 checks per commit
 * (denokv_proto/limits.rs), and checking each ancestor failed from about 5 levels down. The cost:
 * folder moves and trash of one drive serialize on this key, which they already nearly did
 * through the owner's lock stamp and name index.
 */
import { treeShapeKey } from "../keys.ts";

/** What a tree write must tell about a resource for the stamp (a subset of Resource). */
interface Placed {
  type: string;
  ownerSeq: number;
  parentRs: number | null;
  trashedAt: number | null;
}

/** The owner's stamp entry, to check in a commit that relies on the folders above an item. */
export function readTreeShape(
  kv: Pick<Deno.Kv, "get">,
  ownerSeq: number,
): Promise<Deno.KvEntryMaybe<number>> {
  return kv.get<number>(treeShapeKey(ownerSeq));
}

/** Whether going from `before` to `after` changes a folder's place (so the paths below it). */
export function changesShape(before: Placed | null, after: Placed | null): boolean {
  const folder = before ?? after;
  if (!folder || folder.type !== "FOLDER") return false;
  if (!before || !after) return before !== null; // a new folder moves nothing; a gone one does
  return before.parentRs !== after.parentRs || before.trashedAt !== after.trashedAt ||
    before.ownerSeq !== after.ownerSeq;
}

/**
 * Adds to `op` the stamp of every drive whose shape the write changes (kv/tree/resources.ts
 * writeResource calls it for each tree write). Setting a key twice in one commit is allowed, so
 * a batch trashing many folders rewrites it once per folder, harmlessly.
 */
export function writeTreeShape(
  op: Deno.AtomicOperation,
  before: Placed | null,
  after: Placed | null,
) {
  if (!changesShape(before, after)) return;
  const now = Date.now();
  if (before) op.set(treeShapeKey(before.ownerSeq), now);
  if (after && after.ownerSeq !== before?.ownerSeq) op.set(treeShapeKey(after.ownerSeq), now);
}

/** Adds to `op` removing a deleted owner's stamp (their drive is gone). */
export function dropTreeShape(op: Deno.AtomicOperation, ownerSeq: number) {
  op.delete(treeShapeKey(ownerSeq));
}
