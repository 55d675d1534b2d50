/**
 * What the tree writes (folders.ts, content.ts, moves.ts) share: where a resource may go and
 * under which name, the record of a new resource, and the reads a commit checks.
 *
 * The commit discipline of every tree write: validate, then commit the resource, its index keys
 * and usage in one atomic write, checked against the entries the validation read (retried by
 * commitWithRetry when one changed); byte streams go to the blob store first and are deleted
 * again when the commit fails, so a failed request never leaves a half-written tree or changes
 * stored content.
 */
import type { BlobInfo } from "../../blobs/store.ts";
import type { Deps } from "../deps.ts";
import { type ErrorCode, fail } from "../errors.ts";
import { mimeOf } from "../../lib/mime.ts";
import { type Lock, lockEntryFor, type LockOwner } from "./locks.ts";
import { readFolderLockGuard } from "./folder_lock_guard.ts";
import {
  freeName,
  getResourceEntry,
  type IndexValue,
  nameHolder,
  nameIndexKey,
  type Resource,
  rsOfIndexValue,
} from "./resources.ts";
import type { User } from "../identity/users.ts";
import { lockStampKey, resourceKey, usageKey, userKey } from "../keys.ts";

/** What to do when the name is taken: pick "name (n).ext", or fail with RESOURCE_003. */
export type OnNameConflict = "rename" | "fail";

/**
 * The entry of a live folder of `ownerSeq`'s drive, for the commit to check; null for the drive
 * root. RESOURCE_008 when there is no such folder, RESOURCE_005 when `parentRs` is a file.
 */
export async function requireFolderEntry(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  field = "pfs",
) {
  if (parentRs === null) return null;
  const entry = await getResourceEntry(kv, parentRs);
  const p = entry.value;
  if (!p || p.trashedAt !== null || p.ownerSeq !== ownerSeq) {
    fail("RESOURCE_008", `No folder with seq ${parentRs} in this drive`, field);
  }
  if (p.type !== "FOLDER") {
    fail("RESOURCE_005", `Resource ${parentRs} is a file, not a folder`, field);
  }
  return entry;
}

/**
 * What a new file's checks read, in one getMany: the owner (USER_001), their usage and lock stamp,
 * the parent folder's entry (null for the drive root; RESOURCE_008 / RESOURCE_005 as
 * requireFolderEntry answers them) and, given `name`, who holds that name slot.
 */
export async function readNewFileState(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name?: string,
) {
  const keys: Deno.KvKey[] = [userKey(ownerSeq), usageKey(ownerSeq), lockStampKey(ownerSeq)];
  if (name !== undefined) keys.push(nameIndexKey(ownerSeq, parentRs, name));
  if (parentRs !== null) keys.push(resourceKey(parentRs));
  const entries = await kv.getMany<unknown[]>(keys);
  const owner = (entries[0].value as User | null) ??
    fail("USER_001", `No user with seq ${ownerSeq}`, "userSeq");
  const slot = name === undefined ? null : entries[3] as Deno.KvEntryMaybe<IndexValue>;
  let parent: Deno.KvEntry<Resource> | null = null;
  if (parentRs !== null) {
    const entry = entries.at(-1) as Deno.KvEntryMaybe<Resource>;
    const p = entry.value;
    if (!p || p.trashedAt !== null || p.ownerSeq !== ownerSeq) {
      fail("RESOURCE_008", `No folder with seq ${parentRs} in this drive`, "pfs");
    }
    if (p.type !== "FOLDER") {
      fail("RESOURCE_005", `Resource ${parentRs} is a file, not a folder`, "pfs");
    }
    parent = entry as Deno.KvEntry<Resource>;
  }
  return {
    owner,
    usage: entries[1] as Deno.KvEntryMaybe<number>,
    lockStamp: entries[2] as Deno.KvEntryMaybe<number>,
    holder: slot?.value == null ? null : rsOfIndexValue(slot.value),
    parent,
  };
}

/** What readNewFileState answers. */
export type NewFileState = Awaited<ReturnType<typeof readNewFileState>>;

/**
 * Whether `state`, read by an edge before (its owner state beside its path walk, the parent's
 * entry from the walk), is about this owner and parent and still names a live folder of theirs.
 */
export function stateFits(state: NewFileState, ownerSeq: number, parentRs: number | null) {
  if (state.owner.userSeq !== ownerSeq) return false;
  if (parentRs === null) return state.parent === null;
  const p = state.parent?.value;
  return p?.rs === parentRs && p.ownerSeq === ownerSeq && p.type === "FOLDER" &&
    p.trashedAt === null;
}

/**
 * The name to commit under: `name` itself, or the first free "name (n).ext" when told to rename.
 * The name index is not checked here but by the commit (writeResource), and a failed commit is
 * retried whatever check failed: it may be the name slot, or a concurrent change elsewhere (a
 * move's ancestor chain). The retry's pickName answers RESOURCE_003 when the name really is
 * taken by then.
 */
export async function pickName(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
  onConflict: OnNameConflict,
  ignoreRs?: number,
): Promise<string> {
  if (onConflict === "rename") return await freeName(kv, ownerSeq, parentRs, name, ignoreRs);
  const taken = await nameHolder(kv, ownerSeq, parentRs, name);
  if (taken !== null && taken !== ignoreRs) {
    fail("RESOURCE_003", `"${name}" already exists in this folder`);
  }
  return name;
}

/** Who creates what where; `content` null makes a folder, else a file at version 1. */
interface NewResource {
  rs: number;
  ownerSeq: number;
  tenantId: number;
  parentRs: number | null;
  name: string;
  actorSeq: number;
  content: BlobInfo | null;
}

/** The record of a resource just created: never updated, not trashed. */
export function newResource(r: NewResource): Resource {
  const now = Date.now();
  const c = r.content;
  return {
    rs: r.rs,
    ownerSeq: r.ownerSeq,
    tenantId: r.tenantId,
    parentRs: r.parentRs,
    name: r.name,
    type: c ? "FILE" : "FOLDER",
    size: c ? c.size : 0,
    mime: c ? mimeOf(r.name) : null,
    blobId: c ? c.blobId : null,
    sha256: c ? c.sha256 : null,
    version: c ? 1 : 0,
    createdAt: now,
    updatedAt: now,
    createdBy: r.actorSeq,
    updatedBy: r.actorSeq,
    trashedAt: null,
  };
}

/** A live resource's entry and its lock entry, both for the commit that changes it to check. */
interface LiveEntries {
  cur: Deno.KvEntry<Resource>;
  lock: Deno.KvEntryMaybe<Lock>;
}

/** The error for a missing or trashed resource, as `fail` takes it: code, message, field. */
export type NotFound = [code: ErrorCode, message: string, field?: string];

/**
 * Reads resource `resourceSeq` and its lock; fails with `notFound` when the resource is missing or in the
 * trash. Whether the lock lets the caller write is the caller's check.
 */
export async function readLiveEntries(
  d: Deps,
  resourceSeq: number,
  notFound: NotFound,
): Promise<LiveEntries> {
  const [cur, lock] = await Promise.all([
    getResourceEntry(d.kv, resourceSeq),
    lockEntryFor(d.kv, resourceSeq),
  ]);
  if (!cur.value || cur.value.trashedAt !== null) fail(...notFound);
  return { cur: cur as Deno.KvEntry<Resource>, lock };
}

/**
 * The checks a folder's rename, move or trash adds to its commit: none for a file, else the
 * lock stamp read by readFolderLockGuard, which first refuses a folder holding a locked document.
 */
export async function folderLockGuard(
  d: Deps,
  r: Resource,
  owner: LockOwner,
): Promise<Deno.AtomicCheck[]> {
  return r.type === "FOLDER" ? [await readFolderLockGuard(d.kv, r, owner)] : [];
}
