/**
 * WebDAV locks (RFC 4918 sections 6 and 7) in the one document lock record (kv/tree/locks.ts):
 * a record of source "webdav" holds one exclusive lock or up to DAV_SHARED_MAX shared ones in
 * `dav`, so the editor and the storage provider, which compare owner strings, see any of them as
 * another owner's lock, and WebDAV sees theirs as a lock no token opens.
 *
 * Depth infinity: a lock on a folder covers everything below it. Nothing is written on the
 * members; a write finds such a lock by reading the lock records of the folders above it (one
 * batch of at most MAX_DEPTH keys, read at once). The other way round, a depth-infinity LOCK on a
 * folder must find the locks already held inside: it reads the owner's lock index (lock_owner)
 * and walks each indexed document's path, as the folder guard does (kv/tree/folder_lock_guard.ts),
 * and checks the owner's lock stamp in its commit so a lock taken inside meanwhile retries it.
 *
 * Timeouts: DAV_LOCK_DEFAULT_S when the client asks none, at most DAV_LOCK_MAX_S (a client that
 * asks "Infinite" gets the cap). Expiry is lazy, by our clock, as for editor leases.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { fail } from "../errors.ts";
import { lockKey, lockStampKey, ownerLockKey, resourceKey } from "../keys.ts";
import {
  appendLockEvent,
  type DavLock,
  deleteLockRecord,
  getLocks,
  isLive,
  liveDavLocks,
  type Lock,
  type LockOwner,
  writeLockRecord,
} from "./locks.ts";
import { lockEntriesOf } from "./lock_record.ts";
import { loadPath, type Resource } from "./resources.ts";
import { readTreeShape } from "./tree_shape.ts";

/** Seconds a WebDAV lock lasts when the LOCK names no Timeout. */
export const DAV_LOCK_DEFAULT_S = 3600;
/** The longest WebDAV lock granted (one day); "Infinite" and longer requests get this. */
export const DAV_LOCK_MAX_S = 86_400;
/** Bytes of DAV:owner XML kept per lock (a lock record must stay under KV's 64 KiB value). */
export const DAV_OWNER_XML_MAX = 4096;
/** Shared locks one resource may hold at once. */
export const DAV_SHARED_MAX = 8;

/** A lock that applies to a resource. `dav` null: an editor or provider lock, no token opens it. */
export interface AppliedLock {
  /** The resource holding the lock (the resource itself or a folder above it). */
  rs: number;
  record: Lock;
  dav: DavLock | null;
}

/** Each live lock of a record as AppliedLocks; `below`: only those covering the members. */
function applied(rs: number, record: Lock | null, below: "all" | "infinity"): AppliedLock[] {
  if (!isLive(record)) return [];
  if (record.source !== "webdav") return below === "all" ? [{ rs, record, dav: null }] : [];
  return liveDavLocks(record).filter((l) => below === "all" || l.depth === "infinity")
    .map((dav) => ({ rs, record, dav }));
}

/**
 * Where a resource sits: `self` its rs (null for an unmapped URL) and `ancestors` the folders
 * above it (for an unmapped URL, its would-be parent first), nearest first.
 */
export interface LockChain {
  self: number | null;
  ancestors: number[];
}

/** The chain of an existing resource, or null when it is gone or in the trash. */
export async function chainOf(kv: Deno.Kv, rs: number): Promise<LockChain | null> {
  const p = await loadPath(kv, rs);
  if (!p || p.trashed) return null;
  return { self: rs, ancestors: p.path.slice(1).map((r) => r.rs) };
}

/**
 * The locks applying to a resource: every live lock on itself and the depth-infinity WebDAV locks
 * of the folders above. `members`: the request adds or removes the resource in its folder (PUT
 * of a new file, MKCOL, DELETE, MOVE), so any lock on the parent applies too (RFC 4918 7.4).
 */
export async function locksApplying(
  kv: Deno.Kv,
  chain: LockChain,
  members = false,
): Promise<AppliedLock[]> {
  const rss = chain.self === null ? chain.ancestors : [chain.self, ...chain.ancestors];
  const entries = await lockEntriesOf(kv, rss);
  return entries.flatMap((e, i) => {
    const own = chain.self !== null && i === 0;
    const parent = i === (chain.self === null ? 0 : 1);
    return applied(rss[i], e.value, own || (members && parent) ? "all" : "infinity");
  });
}

/**
 * The live locks held strictly inside `folder` (not on it): through the owner's lock index, each
 * indexed document's path walked to see whether the folder is above it.
 */
export async function locksInside(kv: Deno.Kv, folder: Resource): Promise<AppliedLock[]> {
  const indexed: number[] = [];
  for await (const e of kv.list<true>({ prefix: ownerLockKey(folder.ownerSeq) })) {
    const rs = e.key[2] as number;
    if (rs !== folder.rs) indexed.push(rs);
  }
  const locks = await getLocks(kv, indexed);
  const out: AppliedLock[] = [];
  for (const [i, record] of locks.entries()) {
    if (!record) continue;
    const p = await loadPath(kv, indexed[i]);
    if (p?.path.some((r) => r.rs === folder.rs)) out.push(...applied(indexed[i], record, "all"));
  }
  return out;
}

/** Whether a new lock of `scope` may sit beside `held`: only shared WebDAV locks share. */
const compatible = (scope: DavLock["scope"], held: AppliedLock) =>
  scope === "shared" && held.dav?.scope === "shared";

export interface DavLockInput {
  rs: number;
  scope: DavLock["scope"];
  depth: DavLock["depth"];
  ownerXml: string;
  userSeq: number;
  /** Who took it, for the admin console (the account id). */
  holder: string;
  timeoutS: number;
}

/**
 * Takes a new WebDAV lock on an existing resource. RESOURCE_010 when a conflicting lock applies
 * (on it, on a folder above with depth infinity, or, for a depth-infinity lock on a folder, on
 * anything inside), RESOURCE_002 when the resource is gone or in the trash.
 */
export function takeDavLock(kv: Deno.Kv, input: DavLockInput): Promise<DavLock> {
  return commitWithRetry(async () => {
    const p = await loadPath(kv, input.rs);
    if (!p || p.trashed) fail("RESOURCE_002", `No resource with seq ${input.rs}`);
    const resource = p.path[0];
    const rss = p.path.map((r) => r.rs);
    const entries = await lockEntriesOf(kv, rss);
    const held = entries.flatMap((e, i) => applied(rss[i], e.value, i === 0 ? "all" : "infinity"));
    const wide = input.depth === "infinity" && resource.type === "FOLDER";
    // The owner's lock stamp and tree shape stand for the locks and folders above (and, for a
    // wide lock, below): a lock taken or a folder moved since rewrites one and retries this.
    // Fixed checks however deep: denokv takes 10 per commit (kv/tree/tree_shape.ts).
    const [stamp, shape] = await Promise.all([
      kv.get<number>(lockStampKey(resource.ownerSeq)),
      readTreeShape(kv, resource.ownerSeq),
    ]);
    if (wide) held.push(...await locksInside(kv, resource));
    const clash = held.find((h) => !compatible(input.scope, h));
    if (clash) fail("RESOURCE_010", `The resource is locked by ${clash.record.holder}`);
    const cur = entries[0].value;
    const existing = liveDavLocks(cur);
    if (existing.length >= DAV_SHARED_MAX) {
      fail("RESOURCE_010", `The resource already holds ${DAV_SHARED_MAX} shared locks`);
    }
    const now = Date.now();
    const lock: DavLock = {
      token: `urn:uuid:${crypto.randomUUID()}`,
      scope: input.scope,
      depth: resource.type === "FOLDER" ? input.depth : 0,
      ownerXml: input.ownerXml,
      userSeq: input.userSeq,
      timeoutS: input.timeoutS,
      expiresAt: now + input.timeoutS * 1000,
    };
    const live = isLive(cur) && existing.length > 0;
    const record = recordOf(resource, [...existing, lock], live ? cur!.holder : input.holder, {
      lockedAt: live ? cur!.lockedAt : now,
    });
    const op = kv.atomic().check({ key: resourceKey(input.rs), versionstamp: p.versionstamp })
      .check(entries[0], stamp, shape);
    writeLockRecord(op, record, now);
    if (cur && !isLive(cur)) appendLockEvent(op, "unlocked", resource, cur, "expired");
    if (!live) appendLockEvent(op, "locked", resource, record);
    return (await commit(op)) === true ? lock : CONFLICT;
  });
}

/** The record holding `locks` (all live, at least one) on `resource`. */
function recordOf(
  resource: { rs: number; ownerSeq?: number },
  locks: DavLock[],
  holder: string,
  times: { lockedAt: number },
): Lock {
  const exclusive = locks.find((l) => l.scope === "exclusive");
  return {
    rs: resource.rs,
    ownerSeq: resource.ownerSeq,
    // Never another surface's owner string: their equality checks refuse every WebDAV lock.
    owner: exclusive ? `webdav:${exclusive.token}` : "webdav:shared",
    source: "webdav",
    holder,
    lockedAt: times.lockedAt,
    expiresAt: Math.max(...locks.map((l) => l.expiresAt)),
    dav: locks,
  };
}

/**
 * Whether any document or folder of `ownerSeq` was ever locked (their lock stamp exists; every
 * lock taken writes it): when not, no lock can apply to anything in their drive.
 */
export async function everLocked(kv: Deno.Kv, ownerSeq: number): Promise<boolean> {
  return (await readLockStamp(kv, ownerSeq)).value !== null;
}

/** The owner's lock stamp entry (null value: never locked), to check in a commit. */
export function readLockStamp(kv: Deno.Kv, ownerSeq: number): Promise<Deno.KvEntryMaybe<number>> {
  return kv.get<number>(lockStampKey(ownerSeq));
}

/**
 * Writes to a document by any surface honour the WebDAV depth-infinity locks of the folders above
 * it: RESOURCE_010 unless `owner` accepts them. Returns the check for the caller's commit: the
 * owner's lock stamp, which every new lock of theirs rewrites (a folder lock taken meanwhile
 * retries the write). A drive whose owner never had a lock costs one read.
 */
export async function readInheritedLockGuard(
  kv: Deno.Kv,
  r: Resource,
  owner: LockOwner,
  /** The owner's lock stamp entry, when the caller read it already (one round trip less). */
  read?: Deno.KvEntryMaybe<number>,
): Promise<Deno.AtomicCheck[]> {
  if (r.parentRs === null) return [];
  const stamp = read ?? await kv.get<number>(lockStampKey(r.ownerSeq));
  if (stamp.value === null) return [stamp];
  const chain = await chainOf(kv, r.rs);
  const held = chain ? await locksApplying(kv, { self: null, ancestors: chain.ancestors }) : [];
  const mayWrite = typeof owner === "function" ? owner : (l: Lock) => l.owner === owner;
  const other = held.find((h) => !mayWrite(h.record));
  if (other) fail("RESOURCE_010", `A folder above is locked by ${other.record.holder}`);
  return [stamp];
}

/**
 * Adding, removing or renaming a member of folder `folderRs` (a create, rename, move or trash
 * through any surface) honours the WebDAV locks protecting that folder's membership (RFC 4918
 * 7.4): any lock on the folder itself and the depth-infinity locks above it. RESOURCE_010 unless
 * `owner` accepts them; only WebDAV, with the tokens its If header submitted, can. Returns the
 * owner's lock stamp for the caller's commit, as readInheritedLockGuard does; `stamp` is that
 * entry when the caller read it already. A drive root holds no lock.
 */
export async function readMembershipLockGuard(
  kv: Deno.Kv,
  ownerSeq: number,
  folderRs: number | null,
  owner: LockOwner,
  stamp?: Deno.KvEntryMaybe<number>,
): Promise<Deno.AtomicCheck[]> {
  if (folderRs === null) return [];
  const read = stamp ?? await kv.get<number>(lockStampKey(ownerSeq));
  if (read.value === null) return [read];
  // A folder gone or in the trash: the operation's own checks of it answer.
  const above = await chainOf(kv, folderRs);
  if (!above) return [read];
  const held = await locksApplying(
    kv,
    { self: null, ancestors: [folderRs, ...above.ancestors] },
    true,
  );
  const mayWrite = typeof owner === "function" ? owner : (l: Lock) => l.owner === owner;
  const other = held.find((h) => !mayWrite(h.record));
  if (other) fail("RESOURCE_010", `Folder ${other.rs} is locked by ${other.record.holder}`);
  return [read];
}

/** A WebDAV lock found by its token among the records of a chain. */
export interface FoundDavLock {
  rs: number;
  lock: DavLock;
  record: Lock;
}

/**
 * The live WebDAV lock named `token` that applies to the resource of `chain` (on it, or on a
 * folder above with depth infinity), or null.
 */
export async function findDavLock(
  kv: Deno.Kv,
  chain: LockChain,
  token: string,
): Promise<FoundDavLock | null> {
  for (const a of await locksApplying(kv, chain)) {
    if (a.dav?.token === token) return { rs: a.rs, lock: a.dav, record: a.record };
  }
  return null;
}

/** Sets a new timeout on the lock named `token` applying to `chain`; null when there is none. */
export function refreshDavLock(
  kv: Deno.Kv,
  chain: LockChain,
  token: string,
  timeoutS: number,
): Promise<FoundDavLock | null> {
  return commitWithRetry(async () => {
    const found = await findDavLock(kv, chain, token);
    if (!found) return null;
    const entry = await kv.get<Lock>(lockKey(found.rs));
    const now = Date.now();
    const locks = liveDavLocks(entry.value, now).map((l) =>
      l.token === token ? { ...l, timeoutS, expiresAt: now + timeoutS * 1000 } : l
    );
    const lock = locks.find((l) => l.token === token);
    if (!lock) return CONFLICT;
    const record: Lock = {
      ...entry.value!,
      dav: locks,
      expiresAt: Math.max(...locks.map((l) => l.expiresAt)),
    };
    const op = kv.atomic().check(entry);
    writeLockRecord(op, record);
    return (await commit(op)) === true ? { rs: found.rs, lock, record } : CONFLICT;
  });
}

/**
 * Removes the lock named `token` applying to `chain` (UNLOCK may name a member of a locked
 * folder). The record goes with its last lock, with an `unlocked` event. False when no such lock.
 */
export function releaseDavLock(kv: Deno.Kv, chain: LockChain, token: string): Promise<boolean> {
  return commitWithRetry(async () => {
    const found = await findDavLock(kv, chain, token);
    if (!found) return false;
    const entry = await kv.get<Lock>(lockKey(found.rs));
    const rest = liveDavLocks(entry.value).filter((l) => l.token !== token);
    const op = kv.atomic().check(entry);
    if (rest.length > 0) {
      writeLockRecord(op, recordOf(entry.value!, rest, entry.value!.holder, entry.value!));
    } else {
      deleteLockRecord(op, found.rs);
      const res = (await loadPath(kv, found.rs))?.path[0];
      if (res) appendLockEvent(op, "unlocked", res, entry.value!, "released");
    }
    return (await commit(op)) === true ? true : CONFLICT;
  });
}

/**
 * Ends every WebDAV lock held on `rs` and, for a folder, on anything inside it, each with an
 * `unlocked` event: a resource moved through WebDAV leaves its locks behind and a deleted one
 * loses them, members included (RFC 4918 7.7, 9.6, 9.9.4); other surfaces' records are kept.
 * Called after the MOVE or DELETE succeeded (its tokens were submitted).
 */
export async function releaseDavLocksOn(kv: Deno.Kv, rs: number): Promise<void> {
  await releaseRecord(kv, rs);
  const r = (await loadPath(kv, rs))?.path[0];
  if (r?.type !== "FOLDER") return;
  const inside = new Set((await locksInside(kv, r)).flatMap((h) => h.dav ? [h.rs] : []));
  for (const member of inside) await releaseRecord(kv, member);
}

/** Deletes the WebDAV lock record of `rs`, with an `unlocked` event; other records stay. */
function releaseRecord(kv: Deno.Kv, rs: number): Promise<void> {
  return commitWithRetry(async () => {
    const entry = await kv.get<Lock>(lockKey(rs));
    if (entry.value?.source !== "webdav") return;
    const op = kv.atomic().check(entry);
    deleteLockRecord(op, rs);
    const res = (await loadPath(kv, rs))?.path[0];
    if (res && isLive(entry.value)) appendLockEvent(op, "unlocked", res, entry.value, "released");
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
}
