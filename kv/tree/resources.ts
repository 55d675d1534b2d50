/**
 * Files and folders as a tree: every resource has a parent pointer (null = the owner's drive
 * root). Its record and its secondary keys (res_name: unique names per folder, case-insensitive;
 * res_by_size and res_by_update: listing orders; res_trash: top-level trashed items instead of
 * those), each holding the record itself so a listing is one prefix scan (kv/tree/listing.ts),
 * are written here only, in the caller's commit; see kv/keys.ts. Trashing a folder only marks the
 * folder: its contents are "in the trash" because an ancestor is, which `loadPath` reports. That
 * keeps trashing O(1) for any folder size. The name rule is kv/tree/names.ts's; content versions
 * are kv/tree/content_versions.ts's.
 */
import { type ParentMemo, parentMemoOf } from "../parent_memo.ts";
import { bySizeKey, byUpdateKey, resourceKey, resourceNameKey, trashIndexKey } from "../keys.ts";
import { fail } from "../errors.ts";
import { isoTime } from "../../lib/iso_time.ts";
import { writeSearchTokens } from "./search_index.ts";
import { nameKeyOf, numberedName } from "./names.ts";
import { appendEvent, resourceEvent, type ResourceEventHint } from "../events/log.ts";
import { writeTreeShape } from "./tree_shape.ts";

export type ResourceType = "FILE" | "FOLDER";

export interface Resource {
  rs: number;
  ownerSeq: number;
  tenantId: number;
  /** null: directly in the owner's drive root. */
  parentRs: number | null;
  name: string;
  type: ResourceType;
  /** Bytes of the current content; 0 for folders. */
  size: number;
  mime: string | null;
  blobId: string | null;
  sha256: string | null;
  /** Content version; increases on every content change (0 for folders). */
  version: number;
  createdAt: number;
  updatedAt: number;
  createdBy: number;
  updatedBy: number;
  trashedAt: number | null;
}

/** Deep enough for any real tree; a move walks (reads) at most this many folders above. */
export const MAX_DEPTH = 64;

export const parentPart = (parentRs: number | null) => parentRs ?? 0;
export const nameIndexKey = (
  ownerSeq: number,
  parentRs: number | null,
  name: string,
): Deno.KvKey => resourceNameKey(ownerSeq, parentPart(parentRs), nameKeyOf(name));

/**
 * Every secondary key a resource in this state owns. The value under each is the resource record
 * itself (the denormalized list entry: name, type, size, mime, times, version, ...), so a listing
 * is one prefix scan with no read per item. Written in the same commit as the record, so the
 * index never disagrees with it.
 */
function indexKeys(r: Resource): Deno.KvKey[] {
  if (r.trashedAt !== null) return [trashIndexKey(r.ownerSeq, r.rs)];
  const p = parentPart(r.parentRs);
  return [
    nameIndexKey(r.ownerSeq, r.parentRs, r.name),
    bySizeKey(r.ownerSeq, p, r.size, r.rs),
    byUpdateKey(r.ownerSeq, p, r.updatedAt, r.rs),
  ];
}

/**
 * What an index entry holds: the record (written by this version), or a bare rs (written before
 * the index carried its entries; read through to the record, see `resolveIndexValues`).
 */
export type IndexValue = Resource | number;

/**
 * Adds to `op` the writes that move a resource from `before` to `after` (either may be null),
 * including the uniqueness check of a new name slot. Each step adds its own mutations; a
 * feature that must change in the same commit as every tree write adds one step here.
 */
export function writeResource(
  op: Deno.AtomicOperation,
  before: Resource | null,
  after: Resource | null,
  /** Who made the change (the user acted for), for its event; null: the service itself. */
  actorSeq: number | null,
  /** What before/after cannot tell: a new file that is a copy. */
  hint?: ResourceEventHint,
) {
  writeIndexEntries(op, before, after);
  writeSearchTokens(op, before, after);
  writeRecord(op, before, after);
  writeTreeShape(op, before, after);
  // The change's event, in the same commit (kv/events/log.ts; docs/changes.md).
  const event = resourceEvent(before, after, actorSeq, hint);
  if (event) appendEvent(op, event);
}

/** The record itself under [res, rs]. */
function writeRecord(op: Deno.AtomicOperation, before: Resource | null, after: Resource | null) {
  if (after) op.set(resourceKey(after.rs), after);
  else if (before) op.delete(resourceKey(before.rs));
}

/**
 * The index entries: keys `before` had and `after` has not are deleted; every key of `after` is
 * (re)written with `after` as its value, since any field a listing shows may have changed; a
 * name slot `before` did not hold must be free (checked).
 */
function writeIndexEntries(
  op: Deno.AtomicOperation,
  before: Resource | null,
  after: Resource | null,
) {
  const oldKeys = before ? indexKeys(before) : [];
  const newKeys = after ? indexKeys(after) : [];
  const id = (k: Deno.KvKey) => JSON.stringify(k);
  const newIds = new Set(newKeys.map(id));
  const oldIds = new Set(oldKeys.map(id));
  for (const k of oldKeys) if (!newIds.has(id(k))) op.delete(k);
  for (const k of newKeys) {
    if (!oldIds.has(id(k)) && k[0] === FAMILY_RES_NAME) op.check({ key: k, versionstamp: null });
    op.set(k, after as Resource);
  }
}

const FAMILY_RES_NAME = resourceNameKey(0, 0)[0];

export async function getResourceEntries(kv: Deno.Kv, rss: number[]) {
  const out: Deno.KvEntryMaybe<Resource>[] = [];
  for (let i = 0; i < rss.length; i += 10) {
    out.push(
      ...await kv.getMany<Resource[]>(
        rss.slice(i, i + 10).map((resourceSeq) => resourceKey(resourceSeq)),
      ),
    );
  }
  return out;
}

export async function getResourceEntry(kv: Deno.Kv, resourceSeq: number) {
  return await kv.get<Resource>(resourceKey(resourceSeq));
}

export async function getResource(
  kv: Pick<Deno.Kv, "get">,
  resourceSeq: number,
): Promise<Resource | null> {
  return (await kv.get<Resource>(resourceKey(resourceSeq))).value;
}

/**
 * Every resource record `ownerSeq` owns, trash and orphans included. A full scan of the
 * resource records (for audits and invariant tests, never a request path): it reads the
 * records themselves, so it also finds what an index lost.
 */
export async function listResourcesOwnedBy(kv: Deno.Kv, ownerSeq: number): Promise<Resource[]> {
  const out: Resource[] = [];
  for await (const e of kv.list<Resource>({ prefix: resourceKey() })) {
    if (e.value.ownerSeq === ownerSeq) out.push(e.value);
  }
  return out;
}

/**
 * The resource followed by its ancestors up to the drive root (nearest first), with whether
 * anything on that path is in the trash, and the versionstamp of the resource's own entry.
 */
export async function loadPath(
  kv: Deno.Kv,
  resourceSeq: number,
): Promise<{ path: Resource[]; trashed: boolean; versionstamp: string } | null> {
  const memo = parentMemoOf(kv);
  const path: Resource[] = [];
  let next: number | null = resourceSeq;
  let trashed = false;
  let versionstamp = "";
  while (next !== null && path.length <= MAX_DEPTH + 1) {
    // `next` and the ancestors the memo guesses for it, read at once (kv/parent_memo.ts).
    const guess = guessedChain(memo, next, MAX_DEPTH + 2 - path.length);
    const entries: Deno.KvEntryMaybe<Resource>[] = guess.length === 1
      ? [await kv.get<Resource>(resourceKey(next))]
      : await getResourceEntriesAtOnce(kv, guess);
    for (let i = 0; i < guess.length && next !== null && guess[i] === next; i++) {
      const r: Resource | null = entries[i].value;
      if (!r) return path.length === 0 ? null : { path, trashed: true, versionstamp };
      // The resource's own entry: a commit that acts on what was decided here can check it.
      if (path.length === 0) versionstamp = entries[i].versionstamp!;
      path.push(r);
      memo?.set(r.rs, r.parentRs);
      if (r.trashedAt !== null) trashed = true;
      // What the record says, not the guess: a moved folder ends the batch here.
      next = r.parentRs;
      if (path.length > MAX_DEPTH + 1) break;
    }
  }
  return { path, trashed, versionstamp };
}

/** `resourceSeq` then the parents `memo` remembers above it, at most `max`, stopping at a repeat. */
function guessedChain(memo: ParentMemo | undefined, resourceSeq: number, max: number): number[] {
  const chain = [resourceSeq];
  for (
    let p = memo?.get(resourceSeq);
    typeof p === "number" && chain.length < max;
    p = memo!.get(p)
  ) {
    if (chain.includes(p)) break;
    chain.push(p);
  }
  return chain;
}

/** Records in getMany's batches of 10, all sent at once: one round trip's wait for any chain. */
async function getResourceEntriesAtOnce(kv: Deno.Kv, rss: number[]) {
  const batches: Promise<Deno.KvEntryMaybe<Resource>[]>[] = [];
  for (let i = 0; i < rss.length; i += 10) {
    batches.push(kv.getMany<Resource[]>(rss.slice(i, i + 10).map((r) => resourceKey(r))));
  }
  return (await Promise.all(batches)).flat();
}

/** The child named `name` (any case) of a folder, or null. */
export async function findChildByName(
  kv: Pick<Deno.Kv, "get">,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
): Promise<Resource | null> {
  const v = (await kv.get<IndexValue>(nameIndexKey(ownerSeq, parentRs, name))).value;
  if (v === null) return null;
  return typeof v === "number" ? getResource(kv, v) : v;
}

/**
 * The child named `name` (any case) of a folder, with an entry a commit may check to be sure the
 * child is unchanged: its name-index entry, which every commit changing the record rewrites with
 * it (writeResource), or, for an entry written before the index held records, its record's entry.
 * Null when there is no such child.
 */
export async function findChildEntryByName(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
): Promise<Deno.KvEntry<Resource> | null> {
  const e = await kv.get<IndexValue>(nameIndexKey(ownerSeq, parentRs, name));
  if (e.value === null) return null;
  if (typeof e.value !== "number") return e as Deno.KvEntry<Resource>;
  const r = await getResourceEntry(kv, e.value);
  return r.value === null ? null : r as Deno.KvEntry<Resource>;
}

/** The rs holding the name slot `name` (any case) in a folder, or null when it is free. */
export async function nameHolder(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
): Promise<number | null> {
  const v = (await kv.get<IndexValue>(nameIndexKey(ownerSeq, parentRs, name))).value;
  return v === null ? null : rsOfIndexValue(v);
}

/** The rs an index entry points at. */
export const rsOfIndexValue = (v: IndexValue): number => typeof v === "number" ? v : v.rs;

/** The first free name among name, "name (1)", "name (2)", ... in a folder. */
export async function freeName(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
  ignoreRs?: number,
): Promise<string> {
  for (let n = 0; n < 10_000; n++) {
    const candidate = n === 0 ? name : numberedName(name, n);
    const taken = await nameHolder(kv, ownerSeq, parentRs, candidate);
    if (taken === null || taken === ignoreRs) return candidate;
  }
  return fail("RESOURCE_003", `Too many files named like "${name}"`);
}

/** `new Date(ms).toISOString()`, fast: listings format two per entry (lib/iso_time.ts). */
export function toIso(ms: number): string {
  return isoTime(ms);
}

// ---------------------------------------------------------------- audits (kv/ops/fsck.ts)

/** Every resource record with its entry (for its versionstamp): a full scan, for audits only. */
export async function* iterateResourceEntries(
  kv: Deno.Kv,
): AsyncGenerator<Deno.KvEntry<Resource>> {
  yield* kv.list<Resource>({ prefix: resourceKey() });
}

/** The index keys a resource in this state owns, as `writeResource` writes them. */
export const expectedIndexKeys = (r: Resource): Deno.KvKey[] => indexKeys(r);

/** Every entry of the four resource index families: a full scan, for audits only. */
export async function* iterateIndexEntries(
  kv: Deno.Kv,
): AsyncGenerator<Deno.KvEntry<IndexValue>> {
  const families = [
    resourceNameKey(0, 0),
    bySizeKey(0, 0),
    byUpdateKey(0, 0),
    trashIndexKey(0),
  ];
  for (const family of families) {
    yield* kv.list<IndexValue>({ prefix: [family[0]] });
  }
}

/**
 * Adds to `op` the removal of an index entry no resource owns in its current state (a repair),
 * only if the entry is still the one read.
 */
export function dropStaleIndexEntry(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<unknown>,
) {
  const families = new Set([
    resourceNameKey(0, 0)[0],
    bySizeKey(0, 0)[0],
    byUpdateKey(0, 0)[0],
    trashIndexKey(0)[0],
  ]);
  if (!families.has(entry.key[0])) {
    throw new Error(`not a resource index key: ${String(entry.key[0])}`);
  }
  op.check(entry).delete(entry.key);
}
