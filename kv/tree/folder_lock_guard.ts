/**
 * The folder guard of the document locks (kv/tree/locks.ts): a folder holding a locked document
 * may not be renamed, moved or trashed, since the editor keeps writing back to the document's
 * path.
 */
import { fail } from "../errors.ts";
import { lockStampKey, ownerLockKey } from "../keys.ts";
import { dropStaleOwnerEntry, getLocks, type Lock, type LockOwner } from "./locks.ts";
import { getResourceEntry, MAX_DEPTH, type Resource } from "./resources.ts";

/**
 * Guards renaming, moving or trashing a folder: an editor holding a lock on a document inside
 * keeps writing back to that document's path, so the folder must stay put (RESOURCE_010, like
 * the document itself). Returns the owner's lock stamp entry for the caller to check in its
 * commit, which makes a lock taken between this read and that commit retry the operation.
 * Reads the folder owner's locks through their index and walks each one's ancestors, memoized.
 */
export async function readFolderLockGuard(
  kv: Deno.Kv,
  folder: Resource,
  owner: LockOwner,
): Promise<Deno.KvEntryMaybe<number>> {
  const stamp = await kv.get<number>(lockStampKey(folder.ownerSeq));
  const mayWrite = typeof owner === "function" ? owner : (l: Lock) => l.owner === owner;
  const indexed: Deno.KvEntry<true>[] = [];
  for await (const e of kv.list<true>({ prefix: ownerLockKey(folder.ownerSeq) })) {
    indexed.push(e);
  }
  const locks = await getLocks(kv, indexed.map((e) => e.key[2] as number));
  const inside = new Map<number, boolean>([[folder.rs, true]]);
  for (const [i, lock] of locks.entries()) {
    if (!lock) {
      await dropStaleOwnerEntry(kv, indexed[i]);
      continue;
    }
    if (!mayWrite(lock) && await isInside(kv, lock.rs, folder, inside)) {
      fail("RESOURCE_010", `Folder ${folder.rs} holds a document locked by ${lock.holder}`);
    }
  }
  return stamp;
}

/** Whether `resourceSeq` is below `folder`, walking parents and remembering every answer on the way. */
async function isInside(
  kv: Deno.Kv,
  resourceSeq: number,
  folder: Resource,
  inside: Map<number, boolean>,
): Promise<boolean> {
  const walked: number[] = [];
  let cur: number | null = resourceSeq;
  let answer = false;
  for (let depth = 0; cur !== null && depth <= MAX_DEPTH + 1; depth++) {
    const known = inside.get(cur);
    if (known !== undefined) {
      answer = known;
      break;
    }
    walked.push(cur);
    const r: Resource | null = (await getResourceEntry(kv, cur)).value;
    if (!r || r.ownerSeq !== folder.ownerSeq) break;
    cur = r.parentRs;
  }
  for (const w of walked) inside.set(w, answer);
  return answer;
}
