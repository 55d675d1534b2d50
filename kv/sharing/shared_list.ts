/**
 * The shared-with-me list, served from index keys so a page costs the same whatever the
 * number of shares:
 *   ["shared_entry", userSeq, rs]                  -> SharedEntry  (one per listed resource)
 *   ["shared_idx", userSeq, sort, sortValue, rs]   -> shareSeq     (one per sort field)
 *   ["share_visit", shareSeq, userSeq]             -> true         (link visitors, for cleanup)
 * A user is listed for a resource when named as a recipient (written in the share's commit) or
 * after opening an ORG_LINK / PUBLIC_LINK through GET /shares/link/{token}.
 * Joining a link's list and leaving it when the link goes are events in those same commits
 * (`link_joined`, `link_visitors_removed`; the change feed's access_gained and access_lost).
 * Sort values are a snapshot taken when the entry is written (name, size and update time of
 * that moment; open time moves when the user opens it), so a cursor — a position in the index,
 * never an offset — stays valid under any concurrent change: no item is listed twice or
 * skipped because another item was added, removed, renamed or re-uploaded. Entries show live
 * values; each entry is re-checked when read (the share still grants view, nothing on the
 * path is in the trash), so index keys left behind by a removed share are never shown
 * (kv/sharing/shared_pages.ts reads a page).
 */
import type { Caller } from "./authorize.ts";
import { commit, commitWithRetry, CONFLICT, getManyValues } from "../db.ts";
import { getResource, type Resource } from "../tree/resources.ts";
import { nameKeyOf } from "../tree/names.ts";
import { eventActor } from "../events/actor.ts";
import { appendEvent, eventResource } from "../events/log.ts";
import type { Share } from "./shares.ts";
import { sharedEntryKey, sharedIndexKey, shareKey, shareVisitKey } from "../keys.ts";
import { forgetStars } from "./stars.ts";
// The stars moved to ./stars.ts (any viewable resource, not only shared ones); named here too.
export { getStar, type Star, starResource, unstarResource } from "./stars.ts";

export const SHARED_SORTS = ["name", "size", "update", "open", "share"] as const;
export type SharedSort = typeof SHARED_SORTS[number];
export type SortValue = string | number;

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
  resourceSeq: number,
): Promise<SharedEntry[]> {
  return (await getManyValues<SharedEntry>(kv, userSeqs.map((u) => sharedEntryKey(u, resourceSeq))))
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

/**
 * Removes everything the shared-with-me list keeps for a deleted user (their entries, index keys,
 * link visits and, through ./stars.ts, stars), in commits of at most 100 entries (each takes up to seven mutations).
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
  await forgetStars(kv, userSeq);
}
