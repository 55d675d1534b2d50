/**
 * One page of the shared-with-me list (GET /shared), from its sort index (kv/sharing/shared_list.ts
 * writes it): each index key is re-checked against its entry, its share, the resource's path and
 * the caller's access before it is shown, and the filters (type, file type, owner, update time)
 * apply to the live resource.
 */
import { accessIfVisible, type Caller, type Permissions } from "./authorize.ts";
import { fail } from "../errors.ts";
import { sharedEntryKey, sharedIndexKey } from "../keys.ts";
import { loadPath, type Resource } from "../tree/resources.ts";
import { splitExtension } from "../tree/names.ts";
import {
  getStar,
  type SharedEntry,
  type SharedSort,
  type SortValue,
  type Star,
} from "./shared_list.ts";
import { getShare, type Share } from "./shares.ts";

export const FILE_TYPES = {
  document: ["doc", "docx", "docm", "dot", "dotx", "odt", "rtf", "hwp", "hwpx"],
  spreadsheet: ["xls", "xlsx", "xlsm", "csv", "ods", "cell"],
  presentation: ["ppt", "pptx", "pptm", "odp", "show"],
  pdf: ["pdf"],
  image: ["png", "jpg", "jpeg", "gif", "webp", "avif", "bmp", "svg", "ico", "heic", "tif", "tiff"],
  note: ["note", "md", "txt"],
} as const;
export type FileTypeFilter = keyof typeof FILE_TYPES;

export interface SharedListQuery {
  ps: number;
  rt?: "FILE" | "FOLDER";
  ft?: FileTypeFilter;
  /** Owner's accountId (case-insensitive); resolved to a user seq by the caller. */
  ownerSeq?: number;
  /** Inclusive updatedAt range (ms). */
  updatedFrom?: number;
  updatedTo?: number;
  sb: SharedSort;
  so: "asc" | "desc";
  /** Position after which to continue: the last entry's resource seq and sort value. */
  cursor?: { ci: number; cv: SortValue };
}

export interface SharedListItem {
  entry: SharedEntry;
  share: Share;
  resource: Resource;
  permissions: Permissions;
  star: Star | null;
}

interface SharedListPage {
  items: SharedListItem[];
  next: { ci: number; cv: SortValue; ct: SharedSort } | null;
}

/** How many index keys one page may look at when filters reject entries. */
const MAX_SCAN = 1000;
const BATCH = 25;

function matchesFilters(q: SharedListQuery, r: Resource): boolean {
  if (q.rt && r.type !== q.rt) return false;
  if (q.ownerSeq !== undefined && r.ownerSeq !== q.ownerSeq) return false;
  if (q.ft) {
    if (r.type !== "FILE") return false;
    const ext = splitExtension(r.name)[1].slice(1).toLowerCase();
    if (!(FILE_TYPES[q.ft] as readonly string[]).includes(ext)) return false;
  }
  if (q.updatedFrom !== undefined && q.updatedTo !== undefined) {
    if (r.updatedAt < q.updatedFrom || r.updatedAt > q.updatedTo) return false;
  }
  return true;
}

/**
 * One page of what is shared with `caller`. Looks at no more than `ps` + MAX_SCAN index keys:
 * when filters reject that many, the page is shorter than `ps` but still has a cursor.
 */
export async function listSharedWithMe(
  kv: Deno.Kv,
  caller: Caller,
  q: SharedListQuery,
): Promise<SharedListPage> {
  const prefix = sharedIndexKey(caller.userSeq, q.sb);
  const reverse = q.so === "desc";
  const at = q.cursor ? [...prefix, q.cursor.cv, q.cursor.ci] : null;
  const selector: Deno.KvListSelector = !at
    ? { prefix }
    : reverse
    ? { prefix, end: at }
    : { prefix, start: at };
  const scanLimit = q.ps + MAX_SCAN;
  // One more than the budget (to know whether more follow), plus the cursor's own key, which
  // an inclusive `start` yields and the loop skips: running out of `limit` must never look
  // like the end of the list.
  const limit = scanLimit + 1 + (at && !reverse ? 1 : 0);
  const iter = kv.list<number>(selector, { reverse, limit, batchSize: 100 });
  const shares = new Map<number, Promise<Share | null>>();
  const shareOf = (seq: number) => {
    if (!shares.has(seq)) shares.set(seq, getShare(kv, seq));
    return shares.get(seq)!;
  };
  const evaluate = async (key: Deno.KvKey, shareSeq: number): Promise<SharedListItem | null> => {
    const resourceSeq = key[4] as number;
    const [entry, share, loaded, star] = await Promise.all([
      kv.get<SharedEntry>(sharedEntryKey(caller.userSeq, resourceSeq)),
      shareOf(shareSeq),
      loadPath(kv, resourceSeq),
      getStar(kv, caller.userSeq, resourceSeq),
    ]);
    // Index keys left behind by a replaced entry (another share, or older sort values) are
    // skipped, so an entry is never listed twice.
    const e = entry.value;
    if (!e || e.shareSeq !== shareSeq || e.sort[q.sb] !== key[3]) return null;
    if (!share || share.rs !== resourceSeq || !loaded || loaded.trashed) return null;
    const resource = loaded.path[0];
    if (!matchesFilters(q, resource)) return null;
    const access = await accessIfVisible(kv, caller, loaded);
    if (!access || access.isOwner) return null;
    return { entry: entry.value, share, resource, permissions: access.permissions, star };
  };

  const items: SharedListItem[] = [];
  let scanned = 0;
  let lastKey: Deno.KvKey | null = null;
  let batch: Deno.KvEntry<number>[] = [];
  let exhausted = true;
  const run = async (): Promise<boolean> => {
    const results = await Promise.all(batch.map((e) => evaluate(e.key, e.value)));
    for (const [i, item] of results.entries()) {
      lastKey = batch[i].key;
      if (item) items.push(item);
      if (items.length === q.ps) {
        // Still false when the budget ran out: the iterator's limit is not the list's end.
        exhausted = exhausted && i === batch.length - 1 && !(await hasMore());
        return true;
      }
    }
    batch = [];
    return false;
  };
  const it = iter[Symbol.asyncIterator]();
  const hasMore = async () => !(await it.next()).done;
  try {
    for (;;) {
      const next = await it.next();
      if (next.done) break;
      const e = next.value;
      // `start` is inclusive: skip the cursor's own key.
      if (at && !reverse && e.key[3] === at[3] && e.key[4] === at[4]) continue;
      if (++scanned > scanLimit) {
        exhausted = false;
        break;
      }
      batch.push(e);
      if (batch.length === BATCH && (await run())) break;
    }
    if (items.length < q.ps && batch.length > 0) await run();
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) {
      fail("RESOURCE_018", "The cursor does not belong to this listing", "ci");
    }
    throw err;
  }
  const k = lastKey as Deno.KvKey | null;
  const next = !exhausted && k ? { ci: k[4] as number, cv: k[3] as SortValue, ct: q.sb } : null;
  return { items, next };
}
