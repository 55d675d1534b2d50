/**
 * The shape of a document's lock record (kv/tree/locks.ts holds the operations on it), kept apart
 * so kv/tree/dav_locks.ts and locks.ts share it without importing each other.
 */
import { lockKey } from "../keys.ts";

export interface Lock {
  rs: number;
  /** The document owner's seq (absent on locks written before it was recorded). */
  ownerSeq?: number;
  /** Opaque owner string; equality decides who may unlock. */
  owner: string;
  source: "provider" | "office" | "webdav";
  /** Adapter name (provider), user seq (office) or account id (webdav), for display. */
  holder: string;
  lockedAt: number;
  /** null: no lease (provider locks). WebDAV: the latest end among `dav`. */
  expiresAt: number | null;
  /** WebDAV only: one exclusive lock, or one or more shared ones (kv/tree/dav_locks.ts). */
  dav?: DavLock[];
}

/** One WebDAV lock (RFC 4918 section 6) inside a document's lock record. */
export interface DavLock {
  /** `urn:uuid:…`, the lock token the client submits in its If header. */
  token: string;
  scope: "exclusive" | "shared";
  /** "infinity" on a folder also covers everything below it. */
  depth: 0 | "infinity";
  /** The LOCK body's DAV:owner element as sent, "" without one; given back in lockdiscovery. */
  ownerXml: string;
  userSeq: number;
  timeoutS: number;
  expiresAt: number;
}

/** The unexpired WebDAV locks of a record (a shared one may run out before the others). */
export function liveDavLocks(lock: Lock | null, now = Date.now()): DavLock[] {
  return isLive(lock, now) ? (lock.dav ?? []).filter((l) => l.expiresAt > now) : [];
}

/** Whether a record holds a WebDAV lock covering what lies below its folder. */
export const coversBelow = (lock: Lock | null) =>
  liveDavLocks(lock).some((l) => l.depth === "infinity");

export function isLive(lock: Lock | null, now = Date.now()): lock is Lock {
  return lock !== null && (lock.expiresAt === null || lock.expiresAt > now);
}

/** The lock entries of many documents, in order, in getMany's batches of 10 sent at once. */
export async function lockEntriesOf(kv: Deno.Kv, rss: number[]) {
  const batches: Promise<Deno.KvEntryMaybe<Lock>[]>[] = [];
  for (let i = 0; i < rss.length; i += 10) {
    batches.push(kv.getMany<Lock[]>(rss.slice(i, i + 10).map((rs) => lockKey(rs))));
  }
  return (await Promise.all(batches)).flat();
}
