/**
 * The shared-with-me list, served from index keys so a page costs the same whatever the
 * number of shares:
 *   ["shared_entry", userSeq, rs]                  -> SharedEntry  (one per listed resource)
 *   ["shared_idx", userSeq, sort, sortValue, rs]   -> shareSeq     (one per sort field)
 *   ["share_visit", shareSeq, userSeq]             -> true         (link visitors, for cleanup)
 *   ["star", userSeq, rs]                          -> Star
 * A user is listed for a resource when named as a recipient (written in the share's commit) or
 * after opening an ORG_LINK / PUBLIC_LINK through GET /shares/link/{token}.
 * Joining a link's list and leaving it when the link goes are events in those same commits
 * (`link_joined`, `link_visitors_removed`; the change feed's access_gained and access_lost).
 * Sort values are a snapshot taken when the entry is written (name, size and update time of
 * that moment; open time moves when the user opens it), so a cursor — a position in the index,
 * never an offset — stays valid under any concurrent change: no item is listed twice or
 * skipped because another item was added, removed, renamed or re-uploaded. Entries show live
 * values; each entry is re-checked when read (the share still grants view, nothing on the
 * path is in the trash), so index keys left behind by a removed share are never shown.
 */
import { accessIfVisible, type Caller, type Permissions } from "./authorize.ts";
import { commit, commitWithRetry, CONFLICT, getManyValues, nextSeq } from "../db.ts";
import { fail } from "../errors.ts";
import {
  getResource,
  loadPath,
  nameKeyOf,
  type Resource,
  splitExtension,
} from "../tree/resources.ts";
import { eventActor } from "../events/actor.ts";
import { appendEvent, eventResource } from "../events/log.ts";
import { getShare, type Share } from "./shares.ts";
import { sharedEntryKey, sharedIndexKey, shareKey, shareVisitKey, starKey } from "../keys.ts";

export const SHARED_SORTS = ["name", "size", "update", "open", "share"] as const;
export type SharedSort = typeof SHARED_SORTS[number];
type SortValue = string | number;

export interface SharedEntry {
  userSeq: number;
  rs: number;
  shareSeq: number;
  /** target: named recipient; link: opened the share's link. */
  via: "target" | "link";
  sharedAt: number;
  openedAt: number | null;
  sort: Record<SharedSort, SortValue>;
}

export interface Star {
  starredSeq: number;
  starredAt: number;
}

/** Adds an entry and its index keys to `op`. */
export function writeSharedEntry(
  op: Deno.AtomicOperation,
  input: {
    userSeq: number;
    resource: Resource;
    shareSeq: number;
    via: SharedEntry["via"];
    sharedAt: number;
    openedAt?: number | null;
  },
): SharedEntry {
  const r = input.resource;
  const entry: SharedEntry = {
    userSeq: input.userSeq,
    rs: r.rs,
    shareSeq: input.shareSeq,
    via: input.via,
    sharedAt: input.sharedAt,
    openedAt: input.openedAt ?? null,
    sort: {
      name: nameKeyOf(r.name),
      size: r.size,
      update: r.updatedAt,
      // Never opened sorts as the oldest open.
      open: input.openedAt ?? 0,
      share: input.sharedAt,
    },
  };
  op.set(sharedEntryKey(entry.userSeq, entry.rs), entry);
  for (const s of SHARED_SORTS) {
    op.set(sharedIndexKey(entry.userSeq, s, entry.sort[s], r.rs), entry.shareSeq);
  }
  if (entry.via === "link") op.set(shareVisitKey(entry.shareSeq, entry.userSeq), true);
  return entry;
}

/** Adds the removal of entries (and their index keys) to `op`. */
export function deleteSharedEntries(op: Deno.AtomicOperation, entries: SharedEntry[]) {
  for (const e of entries) {
    op.delete(sharedEntryKey(e.userSeq, e.rs));
    for (const s of SHARED_SORTS) op.delete(sharedIndexKey(e.userSeq, s, e.sort[s], e.rs));
    if (e.via === "link") op.delete(shareVisitKey(e.shareSeq, e.userSeq));
  }
}

export async function readSharedEntries(
  kv: Deno.Kv,
  userSeqs: number[],
  rs: number,
): Promise<SharedEntry[]> {
  return (await getManyValues<SharedEntry>(kv, userSeqs.map((u) => sharedEntryKey(u, rs))))
    .filter((e): e is SharedEntry => e !== null);
}

/** Removes the entries of a share's link visitors (after a link was revoked), in batches. */
export async function clearLinkVisitors(kv: Deno.Kv, share: Share): Promise<void> {
  let batch: number[] = [];
  // Gone for good (purged): its purge is the event; the list entries just go.
  const resource = await getResource(kv, share.rs);
  const flush = async () => {
    const entries = (await readSharedEntries(kv, batch, share.rs))
      .filter((e) => e.shareSeq === share.shareSeq && e.via === "link");
    const op = kv.atomic();
    deleteSharedEntries(op, entries);
    if (resource && entries.length > 0) {
      // The visitors' feeds report access_lost, as recipients' do when a share goes.
      const lost = entries.map((e) => e.userSeq);
      appendLinkVisitorEvent(op, "link_visitors_removed", share, resource, { lost });
    }
    for (const u of batch) op.delete(shareVisitKey(share.shareSeq, u));
    await op.commit();
    batch = [];
  };
  for await (const e of kv.list({ prefix: shareVisitKey(share.shareSeq) })) {
    batch.push(e.key[2] as number);
    if (batch.length === 100) await flush();
  }
  if (batch.length > 0) await flush();
}

/** Adds to `op` the event of link visitors joining or leaving a share (kv/events/log.ts). */
function appendLinkVisitorEvent(
  op: Deno.AtomicOperation,
  kind: "link_joined" | "link_visitors_removed",
  share: Share,
  resource: Resource,
  access: { gained?: number[]; lost?: number[] },
) {
  appendEvent(op, {
    kind,
    at: Date.now(),
    tenantId: resource.tenantId,
    actor: eventActor(null),
    resource: eventResource(resource),
    share: { shareSeq: share.shareSeq, type: share.type, ...access },
  });
}

/**
 * Lists a link's resource for a user who opened it (GET /shares/link/{token}), and records
 * the open. Named recipients and the owner are not touched beyond the open time.
 */
export async function recordLinkVisit(
  kv: Deno.Kv,
  share: Share,
  caller: Caller,
  resource: Resource,
): Promise<void> {
  if (share.ownerSeq === caller.userSeq) return;
  await commitWithRetry(async () => {
    const [cur, entry] = await Promise.all([
      kv.get<Share>(shareKey(share.shareSeq)),
      kv.get<SharedEntry>(sharedEntryKey(caller.userSeq, resource.rs)),
    ]);
    if (!cur.value) return;
    const now = Date.now();
    const op = kv.atomic().check(cur, entry);
    if (entry.value) {
      if (!moveOpen(op, entry.value, now)) return;
    } else {
      writeSharedEntry(op, {
        userSeq: caller.userSeq,
        resource,
        shareSeq: share.shareSeq,
        via: "link",
        sharedAt: now,
        openedAt: now,
      });
      // The resource joins the visitor's list: their change feed reports access_gained.
      appendLinkVisitorEvent(op, "link_joined", cur.value, resource, { gained: [caller.userSeq] });
    }
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
}

/** Writes are skipped when the last recorded open is this recent. */
const OPEN_RESOLUTION_MS = 60_000;

function moveOpen(op: Deno.AtomicOperation, e: SharedEntry, now: number): boolean {
  if (e.openedAt !== null && now - e.openedAt < OPEN_RESOLUTION_MS) return false;
  const next: SharedEntry = { ...e, openedAt: now, sort: { ...e.sort, open: now } };
  op.delete(sharedIndexKey(e.userSeq, "open", e.sort.open, e.rs))
    .set(sharedIndexKey(e.userSeq, "open", now, e.rs), e.shareSeq)
    .set(sharedEntryKey(e.userSeq, e.rs), next);
  return true;
}

/**
 * Records that `userSeq` opened (downloaded) something at or below a listed resource: the
 * nearest listed resource on `path` gets the open time (sort `open`).
 */
export async function recordSharedOpen(
  kv: Deno.Kv,
  userSeq: number,
  path: Resource[],
): Promise<void> {
  const keys = path.map((r) => sharedEntryKey(userSeq, r.rs));
  for (let i = 0; i < keys.length; i += 10) {
    const entries = await kv.getMany<SharedEntry[]>(keys.slice(i, i + 10));
    const found = entries.find((e) => e.value !== null);
    if (!found) continue;
    const op = kv.atomic().check(found);
    // A lost race means someone else just recorded an open: good enough.
    if (moveOpen(op, found.value!, Date.now())) await op.commit();
    return;
  }
}

/**
 * Every entry of a user's shared-with-me list, at most `limit` (search's shared scope starts
 * from them). Entries of removed shares may be among them: readers check access themselves.
 */
export async function listSharedEntries(
  kv: Deno.Kv,
  userSeq: number,
  limit = 10_000,
): Promise<SharedEntry[]> {
  const out: SharedEntry[] = [];
  const iter = kv.list<SharedEntry>({ prefix: sharedEntryKey(userSeq) }, { limit, batchSize: 500 });
  for await (const e of iter) out.push(e.value);
  return out;
}

// ---------------------------------------------------------------- stars

export async function getStar(kv: Deno.Kv, userSeq: number, rs: number): Promise<Star | null> {
  return (await kv.get<Star>(starKey(userSeq, rs))).value;
}

export async function starResource(kv: Deno.Kv, userSeq: number, rs: number): Promise<Star> {
  const existing = await getStar(kv, userSeq, rs);
  if (existing) return existing;
  const star: Star = { starredSeq: await nextSeq(kv, "star"), starredAt: Date.now() };
  return commitWithRetry(async () => {
    const cur = await kv.get<Star>(starKey(userSeq, rs));
    if (cur.value) return cur.value;
    return (await commit(kv.atomic().check(cur).set(starKey(userSeq, rs), star))) === true
      ? star
      : CONFLICT;
  });
}

export async function unstarResource(kv: Deno.Kv, userSeq: number, rs: number): Promise<void> {
  await kv.delete(starKey(userSeq, rs));
}

/**
 * Removes everything the shared-with-me list keeps for a deleted user (their entries, index keys,
 * link visits and stars), in commits of at most 100 entries (each takes up to seven mutations).
 * Idempotent: a repeated call after a crash finishes the rest.
 */
export async function forgetRecipient(kv: Deno.Kv, userSeq: number): Promise<void> {
  const deleteAll = async (
    prefix: Deno.KvKey,
    each: (op: Deno.AtomicOperation, e: Deno.KvEntry<unknown>) => void,
  ) => {
    for (;;) {
      const page = await Array.fromAsync(kv.list({ prefix }, { limit: 100 }));
      if (page.length === 0) return;
      const op = kv.atomic();
      for (const e of page) each(op, e);
      await op.commit();
    }
  };
  await deleteAll(sharedEntryKey(userSeq), (op, e) => {
    deleteSharedEntries(op, [e.value as SharedEntry]);
    op.delete(e.key);
  });
  await deleteAll(starKey(userSeq), (op, e) => op.delete(e.key));
}

// ---------------------------------------------------------------- listing

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

export interface SharedListPage {
  items: SharedListItem[];
  next: { ci: number; cv: SortValue; ct: SharedSort } | null;
}

/** How many index keys one page may look at when filters reject entries. */
export const MAX_SCAN = 1000;
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
    const rs = key[4] as number;
    const [entry, share, loaded, star] = await Promise.all([
      kv.get<SharedEntry>(sharedEntryKey(caller.userSeq, rs)),
      shareOf(shareSeq),
      loadPath(kv, rs),
      getStar(kv, caller.userSeq, rs),
    ]);
    // Index keys left behind by a replaced entry (another share, or older sort values) are
    // skipped, so an entry is never listed twice.
    const e = entry.value;
    if (!e || e.shareSeq !== shareSeq || e.sort[q.sb] !== key[3]) return null;
    if (!share || share.rs !== rs || !loaded || loaded.trashed) return null;
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
