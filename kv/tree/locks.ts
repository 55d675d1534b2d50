/**
 * Document locks: one record per document, shared by the storage provider protocol, the
 * editor-session (web-office) endpoints and WebDAV (kv/tree/dav_locks.ts), so each sees the
 * others' locks. A WebDAV record may hold several shared locks (`dav`); its `owner` never equals
 * another surface's owner string, so every other surface's check refuses it. Keys (kv/keys.ts): lock,
 * lock_owner (index: the owner's locked documents), lock_stamp (rewritten by every new lock of
 * the owner's), lock_release (administrators' releases).
 * Provider locks follow the protocol's table (no expiry). Editor locks are leases with
 * `expiresAt`; an expired lease counts as no lock. Expiry is compared against our own
 * timestamp, and lock records carry no KV expireIn: an ended lease is removed, with its
 * `unlocked` event (reason `expired`), by releaseExpiredLocks or by the next lock taken on it.
 */
import { commit, commitWithRetry, CONFLICT, getManyValues } from "../db.ts";
import { lockKey, lockReleaseKey, lockStampKey, ownerLockKey } from "../keys.ts";
import { fail } from "../errors.ts";
import { getResourceEntry, MAX_DEPTH, type Resource } from "./resources.ts";
import { eventActor } from "../events/actor.ts";
import { coversBelow, isLive, type Lock, lockEntriesOf } from "./lock_record.ts";
import { appendEvent, eventResource } from "../events/log.ts";
import { readTreeShape } from "./tree_shape.ts";

export { type DavLock, isLive, liveDavLocks, type Lock } from "./lock_record.ts";

// lock_stamp (per owner) changes whenever one of the owner's documents is locked, and lock_owner
// indexes those documents: folder operations read both (kv/tree/folder_lock_guard.ts), so a lock
// taken meanwhile sends them round again; an index entry whose lock is gone is dropped there.

/**
 * Adds to `op` writing a document's lock record (kv/tree/dav_locks.ts writes WebDAV records
 * through this, the one owner of these keys). `takenAt`: a lock was taken, so the owner's lock
 * stamp and index entry are written too (the folder guard reads them).
 */
export function writeLockRecord(op: Deno.AtomicOperation, lock: Lock, takenAt?: number) {
  op.set(lockKey(lock.rs), lock);
  if (takenAt !== undefined && lock.ownerSeq !== undefined) {
    op.set(lockStampKey(lock.ownerSeq), takenAt).set(ownerLockKey(lock.ownerSeq, lock.rs), true);
  }
}

/** Adds to `op` deleting a document's lock record (its owner index entry is dropped lazily). */
export function deleteLockRecord(op: Deno.AtomicOperation, resourceSeq: number) {
  op.delete(lockKey(resourceSeq));
}

/** Adds to `op` the removal of a document's lock and its owner index entry (a purged file). */
export function dropLock(op: Deno.AtomicOperation, ownerSeq: number, resourceSeq: number) {
  op.delete(lockKey(resourceSeq)).delete(ownerLockKey(ownerSeq, resourceSeq));
}

/** Adds to `op` removing a deleted owner's lock stamp (their documents are all gone). */
export function dropLockStamp(op: Deno.AtomicOperation, ownerSeq: number) {
  op.delete(lockStampKey(ownerSeq));
}

/** The live lock of a document, or null. */
export async function getLock(kv: Pick<Deno.Kv, "get">, resourceSeq: number): Promise<Lock | null> {
  const entry = await kv.get<Lock>(lockKey(resourceSeq));
  return isLive(entry.value) ? entry.value : null;
}

/** The live locks of many documents, in order (null where a document has none). */
export async function getLocks(kv: Deno.Kv, rss: number[]): Promise<(Lock | null)[]> {
  const locks = await getManyValues<Lock>(kv, rss.map((resourceSeq) => lockKey(resourceSeq)));
  return locks.map((lock) => isLive(lock) ? lock : null);
}

/**
 * The live locks among documents `rss` of one owner, by rs, for listings: one scan of the
 * owner's lock index (each lock is indexed in its own commit, so no lock is missed; entries of
 * released locks are skipped), then one read of only the indexed documents among `rss`, where
 * `getLocks` would read every document. An owner with more indexed locks than `rss` has
 * documents is read the other way.
 */
export async function liveLocksAmong(
  kv: Deno.Kv,
  ownerSeq: number,
  rss: readonly number[],
): Promise<Map<number, Lock>> {
  const wanted = new Set(rss);
  let indexed: number[] = [];
  for await (
    const e of kv.list({ prefix: ownerLockKey(ownerSeq) }, { limit: wanted.size + 1 })
  ) {
    indexed.push(e.key[2] as number);
  }
  if (indexed.length > wanted.size) indexed = [...wanted];
  const among = indexed.filter((resourceSeq) => wanted.has(resourceSeq));
  const locks = await getLocks(kv, among);
  const out = new Map<number, Lock>();
  for (const [i, lock] of locks.entries()) if (lock) out.set(among[i], lock);
  return out;
}

/**
 * Reads the lock entry for use inside another atomic write: the caller adds
 * `op.check(entry)` so that a lock taken concurrently fails its commit.
 */
export async function lockEntryFor(kv: Deno.Kv, resourceSeq: number) {
  return await kv.get<Lock>(lockKey(resourceSeq));
}

/**
 * Who is writing: an owner string, null (nobody), or a predicate accepting the locks the writer
 * may write through (the provider's put carries no owner, so it accepts any lock of its adapter).
 */
export type LockOwner = string | null | ((lock: Lock) => boolean);

/** Throws RESOURCE_010 when someone other than `owner` holds a live lock. */
export function assertNotLockedByOther(lock: Lock | null, owner: LockOwner) {
  const mayWrite = typeof owner === "function" ? owner : (l: Lock) => l.owner === owner;
  if (isLive(lock) && !mayWrite(lock)) {
    fail("RESOURCE_010", `The document is locked by ${lock.holder}`);
  }
}

/**
 * Takes or renews the lock. Same owner: renewed (lease extended). Other live owner:
 * RESOURCE_010, the existing lock unchanged.
 */
export function acquireLock(
  kv: Deno.Kv,
  input: {
    rs: number;
    owner: string;
    source: Lock["source"];
    holder: string;
    ttlMs: number | null;
  },
): Promise<Lock> {
  return commitWithRetry(async () => {
    // The owner's tree shape and lock stamp stand for the folders above (a folder moved or
    // trashed, or locked, since these reads rewrites one and sends this round again): two checks
    // however deep the document sits (kv/tree/tree_shape.ts says why).
    const [res, cur] = await Promise.all([
      getResourceEntry(kv, input.rs),
      kv.get<Lock>(lockKey(input.rs)),
    ]);
    if (!res.value || res.value.trashedAt !== null) {
      fail("RESOURCE_002", `No file with seq ${input.rs}`);
    }
    const [shape, stamp] = await Promise.all([
      readTreeShape(kv, res.value.ownerSeq),
      kv.get<number>(lockStampKey(res.value.ownerSeq)),
    ]);
    assertNotLockedByOther(cur.value, input.owner);
    // The folders above it: a trashed one refuses (the other half of readFolderLockGuard).
    const ancestors = await readAncestorEntries(kv, res.value);
    if (ancestors.some((e) => e.value?.trashedAt != null)) {
      fail("RESOURCE_002", `File ${input.rs} is in a folder in the trash`);
    }
    // A WebDAV depth-infinity lock on a folder above locks the document too.
    const above = await lockEntriesOf(kv, ancestors.map((e) => e.key[1] as number));
    const cover = above.find((e) => coversBelow(e.value));
    if (cover) fail("RESOURCE_010", `The document is locked by ${cover.value!.holder}`);
    const now = Date.now();
    const lock: Lock = {
      rs: input.rs,
      ownerSeq: res.value.ownerSeq,
      owner: input.owner,
      source: input.source,
      holder: input.holder,
      lockedAt: isLive(cur.value) ? cur.value.lockedAt : now,
      expiresAt: input.ttlMs === null ? null : now + input.ttlMs,
    };
    // No expireIn: an ended lease stays until releaseExpiredLocks (or the next lock) reports
    // its end with an `unlocked` event; KV deleting it silently would leave no trace.
    const op = kv.atomic().check(res, cur, shape, stamp).set(lockKey(input.rs), lock)
      .set(lockStampKey(res.value.ownerSeq), now)
      .set(ownerLockKey(res.value.ownerSeq, input.rs), true);
    if (cur.value && !isLive(cur.value)) {
      appendLockEvent(op, "unlocked", res.value, cur.value, "expired");
    }
    if (!isLive(cur.value)) appendLockEvent(op, "locked", res.value, lock);
    return (await commit(op)) === true ? lock : CONFLICT;
  });
}

/**
 * Extends the lease of a live lock that `owner` holds (a save by the lock holder). Returns null
 * and writes nothing when `owner` holds no live lock, so a save never creates a lock.
 */
export function renewLock(
  kv: Deno.Kv,
  resourceSeq: number,
  owner: string,
  ttlMs: number,
): Promise<Lock | null> {
  return commitWithRetry(async () => {
    const cur = await kv.get<Lock>(lockKey(resourceSeq));
    if (!isLive(cur.value) || cur.value.owner !== owner) return null;
    const lock: Lock = { ...cur.value, expiresAt: Date.now() + ttlMs };
    const op = kv.atomic().check(cur).set(lockKey(resourceSeq), lock);
    return (await commit(op)) === true ? lock : CONFLICT;
  });
}

/**
 * Releases the lock held by `owner`. No live lock: succeeds. Another owner: RESOURCE_010 and
 * the lock is kept (there is no force-unlock here; see forceReleaseLock).
 */
export function releaseLock(kv: Deno.Kv, resourceSeq: number, owner: string): Promise<void> {
  return commitWithRetry(async () => {
    const cur = await kv.get<Lock>(lockKey(resourceSeq));
    if (!isLive(cur.value)) {
      if (cur.value) await releaseExpiredLock(kv, cur as Deno.KvEntry<Lock>);
      return;
    }
    assertNotLockedByOther(cur.value, owner);
    const op = kv.atomic().check(cur).delete(lockKey(resourceSeq));
    await appendUnlockEvent(kv, op, cur.value, "released");
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
}

export interface LockRelease {
  lock: Lock;
  releasedBy: string;
  releasedAt: number;
}

/** Administrator's release of any lock, recorded under lock_release (kv/keys.ts). */
export function forceReleaseLock(
  kv: Deno.Kv,
  resourceSeq: number,
  releasedBy: string,
): Promise<LockRelease | null> {
  return commitWithRetry(async () => {
    const cur = await kv.get<Lock>(lockKey(resourceSeq));
    if (!isLive(cur.value)) return null;
    const record: LockRelease = { lock: cur.value, releasedBy, releasedAt: Date.now() };
    const op = kv.atomic().check(cur).delete(lockKey(resourceSeq)).set(
      lockReleaseKey(record.releasedAt, resourceSeq),
      record,
    );
    await appendUnlockEvent(kv, op, cur.value, "admin", releasedBy);
    return (await commit(op)) === true ? record : CONFLICT;
  });
}

export async function listLocks(kv: Deno.Kv): Promise<Lock[]> {
  const out: Lock[] = [];
  const now = Date.now();
  for await (const e of kv.list<Lock>({ prefix: lockKey() })) {
    if (isLive(e.value, now)) out.push(e.value);
  }
  return out;
}

/**
 * Removes an owner index entry whose lock is gone (kv/tree/folder_lock_guard.ts meets them). Fails
 * harmlessly when the document was locked again meanwhile, since that rewrites the entry.
 */
export async function dropStaleOwnerEntry(kv: Deno.Kv, entry: Deno.KvEntry<true>): Promise<void> {
  await kv.atomic().check(entry).delete(entry.key).commit();
}

/**
 * Adds locks written before they recorded their document's owner to the owner index, so the
 * folder guard sees them. Runs at start; a no-op once every lock carries `ownerSeq`.
 */
export async function indexLocksByOwner(kv: Deno.Kv): Promise<void> {
  for await (const e of kv.list<Lock>({ prefix: lockKey() })) {
    if (e.value.ownerSeq !== undefined) continue;
    const res = (await getResourceEntry(kv, e.value.rs)).value;
    if (!res) continue;
    const lock: Lock = { ...e.value, ownerSeq: res.ownerSeq };
    // An ended lease too: releaseExpiredLocks reports and removes it.
    await kv.atomic().check(e).set(e.key, lock)
      .set(ownerLockKey(res.ownerSeq, lock.rs), true).commit();
  }
}

/** The entries of the folders above `r`, nearest first (at most MAX_DEPTH of them). */
async function readAncestorEntries(kv: Deno.Kv, r: Resource) {
  const out: Deno.KvEntryMaybe<Resource>[] = [];
  for (let next = r.parentRs; next !== null && out.length < MAX_DEPTH;) {
    const entry = await getResourceEntry(kv, next);
    out.push(entry);
    next = entry.value?.parentRs ?? null;
  }
  return out;
}

export async function listLockReleases(kv: Deno.Kv, limit = 100): Promise<LockRelease[]> {
  const out: LockRelease[] = [];
  for await (
    const e of kv.list<LockRelease>({ prefix: lockReleaseKey() }, { reverse: true, limit })
  ) out.push(e.value);
  return out;
}

/** The owner string of a lock taken through the storage provider protocol by `adapter`. */
export const providerLockOwner = (adapter: string, owner: string) => `provider:${adapter}:${owner}`;

/**
 * Releases every lock an adapter holds. Provider locks have no lease, so without this a deleted
 * adapter's locks would stay until an administrator force-released each one.
 */
export async function releaseAdapterLocks(kv: Deno.Kv, adapter: string): Promise<number> {
  const prefix = providerLockOwner(adapter, "");
  let released = 0;
  for await (const e of kv.list<Lock>({ prefix: lockKey() })) {
    if (e.value.source !== "provider" || !e.value.owner.startsWith(prefix)) continue;
    // A lock changed meanwhile is no longer this one; leave it.
    const op = kv.atomic().check(e).delete(e.key);
    await appendUnlockEvent(kv, op, e.value, "adapter_removed", "adapter removed");
    if ((await op.commit()).ok) released++;
  }
  return released;
}

/** Why a lock ended, in its `unlocked` event's `detail.reason`. */
export type UnlockReason = "released" | "admin" | "adapter_removed" | "expired";

/** Adds to `op` a lock event of `resource` (kv/events/log.ts). */
export function appendLockEvent(
  op: Deno.AtomicOperation,
  kind: "locked" | "unlocked",
  resource: Resource,
  lock: Lock,
  reason?: UnlockReason,
  releasedBy?: string,
) {
  const detail: Record<string, string | number> = { source: lock.source, holder: lock.holder };
  if (reason !== undefined) detail.reason = reason;
  if (releasedBy !== undefined) detail.releasedBy = releasedBy;
  if (reason === "expired" && lock.expiresAt !== null) detail.expiredAt = lock.expiresAt;
  appendEvent(op, {
    kind,
    at: Date.now(),
    tenantId: resource.tenantId,
    // A lease runs out by itself: nobody acted, whoever's request happened to notice.
    actor: reason === "expired" ? { userSeq: null } : eventActor(null),
    resource: eventResource(resource),
    detail,
  });
}

/** The unlock event of a live lock; a document gone meanwhile (purged) has no event to tell. */
async function appendUnlockEvent(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  lock: Lock,
  reason: UnlockReason,
  releasedBy?: string,
) {
  if (!isLive(lock)) return;
  const resource = (await getResourceEntry(kv, lock.rs)).value;
  if (resource) appendLockEvent(op, "unlocked", resource, lock, reason, releasedBy);
}

/**
 * Removes one ended lease with its owner index entry and an `unlocked` event (reason
 * `expired`) in one commit checked against the entry read, so of several processes (or a
 * sweep and a release) that meet it, one reports it. False when it changed meanwhile.
 */
async function releaseExpiredLock(kv: Deno.Kv, entry: Deno.KvEntry<Lock>): Promise<boolean> {
  const lock = entry.value;
  const resource = (await getResourceEntry(kv, lock.rs)).value;
  const op = kv.atomic().check(entry).delete(entry.key);
  if (resource) {
    op.delete(ownerLockKey(resource.ownerSeq, lock.rs));
    appendLockEvent(op, "unlocked", resource, lock, "expired");
  }
  return (await op.commit()).ok;
}

/**
 * Releases every lock whose lease has ended, each with its `unlocked` event (reason
 * `expired`). Expiry is otherwise lazy (an ended lease simply counts as no lock), so this is
 * where it becomes an event: every process runs it at start and every LOCK_SWEEP_MS
 * (every LOCK_SWEEP_MS, boot.ts); a lease that a new lock replaces first is reported by that
 * lock's commit instead. One pass lists every lock record.
 */
export async function releaseExpiredLocks(kv: Deno.Kv, now = Date.now()): Promise<number> {
  let released = 0;
  for await (const e of kv.list<Lock>({ prefix: lockKey() })) {
    if (isLive(e.value, now)) continue;
    if (await releaseExpiredLock(kv, e)) released++;
  }
  return released;
}

/** How often each process looks for ended leases: an unlock is reported within this long. */
export const LOCK_SWEEP_MS = 15_000;
