/**
 * A user's resources, found through the two index families every resource of an owner is in:
 * `res_name` (every item not itself trashed, the contents of trashed folders included) and
 * `res_trash` (the top-level trashed items). Deletion and transfer take them a page at a time
 * until none is left, so the work is bounded per step and resumes where a crash left it.
 */
import { resourceNameKey, trashIndexKey } from "../keys.ts";
import {
  dropStaleIndexEntry,
  getResourceEntries,
  type IndexValue,
  type Resource,
  rsOfIndexValue,
} from "../tree/resources.ts";

/**
 * Up to `limit` resources of `ownerSeq`, each with its entry (for the commit's check); empty only
 * when the owner has none left.
 */
export async function firstOwned(
  kv: Deno.Kv,
  ownerSeq: number,
  limit: number,
): Promise<Deno.KvEntry<Resource>[]> {
  for (;;) {
    const { live, listed } = await listOwned(kv, ownerSeq, limit);
    // Nothing live but stale entries dropped: list again, there may be more behind them.
    if (live.length > 0 || listed === 0) return live;
  }
}

async function listOwned(kv: Deno.Kv, ownerSeq: number, limit: number) {
  const index: Deno.KvEntry<IndexValue>[] = [];
  for (const prefix of [resourceNameKey(ownerSeq), trashIndexKey(ownerSeq)]) {
    const left = limit - index.length;
    if (left <= 0) break;
    index.push(...await Array.fromAsync(kv.list<IndexValue>({ prefix }, { limit: left })));
  }
  const entries = await getResourceEntries(kv, index.map((e) => rsOfIndexValue(e.value)));
  const out: Deno.KvEntry<Resource>[] = [];
  const stale: Deno.KvEntry<IndexValue>[] = [];
  entries.forEach((entry, i) => {
    if (entry.value && entry.value.ownerSeq === ownerSeq) out.push(entry as Deno.KvEntry<Resource>);
    else stale.push(index[i]);
  });
  // An index entry whose record is gone or owned by someone else would be listed forever: drop
  // it (checked, so an entry rewritten meanwhile stays).
  if (stale.length > 0) {
    const op = kv.atomic();
    for (const e of stale) dropStaleIndexEntry(op, e);
    await op.commit();
  }
  return { live: dedupe(out), listed: index.length };
}

/** One entry per resource (a record is listed once per index it is in; only res_name here). */
function dedupe(entries: Deno.KvEntry<Resource>[]): Deno.KvEntry<Resource>[] {
  const seen = new Set<number>();
  return entries.filter((e) => !seen.has(e.value.rs) && (seen.add(e.value.rs), true));
}
