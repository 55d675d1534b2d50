/**
 * Files and folders as a tree: every resource has a parent pointer (null = the owner's drive
 * root). Its secondary keys (res_name: unique names per folder, case-insensitive; res_by_size
 * and res_by_update: listing orders; res_trash: top-level trashed items instead of those) and
 * its content versions (res_version) are written here only, in the caller's commit; see
 * kv/keys.ts. Trashing a folder only marks the folder: its contents are "in the trash" because an ancestor
 * is, which `loadPath` reports. That keeps trashing O(1) for any folder size.
 */
import { getManyValues } from "../db.ts";
import {
  bySizeKey,
  byUpdateKey,
  resourceKey,
  resourceNameKey,
  trashIndexKey,
  versionKey,
} from "../keys.ts";
import { fail } from "../errors.ts";

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

export interface ContentVersion {
  version: number;
  blobId: string;
  size: number;
  sha256: string;
  createdAt: number;
  createdBy: number;
  /** Why it was saved: upload, version, overwrite, copy, template, or an editor's save type. */
  reason: string;
}

export const MAX_NAME_LENGTH = 255;
/** Deep enough for any real tree, and keeps a move's ancestor checks under KV's 100 per commit. */
export const MAX_DEPTH = 64;

const parentPart = (parentRs: number | null) => parentRs ?? 0;
export const nameKeyOf = (name: string) => name.normalize("NFC").toLowerCase();
export const nameIndexKey = (
  ownerSeq: number,
  parentRs: number | null,
  name: string,
): Deno.KvKey => resourceNameKey(ownerSeq, parentPart(parentRs), nameKeyOf(name));

export type ListSort = "name" | "size" | "update";
const LIST_INDEX = { name: resourceNameKey, size: bySizeKey, update: byUpdateKey } as const;
const listPrefix = (sort: ListSort, ownerSeq: number, parentRs: number | null): Deno.KvKey =>
  LIST_INDEX[sort](ownerSeq, parentPart(parentRs));

/** The owner's top-level trashed items, in resourceSeq order. */
export const trashIndexPrefix = (ownerSeq: number): Deno.KvKey => trashIndexKey(ownerSeq);

/** Every secondary key a resource in this state owns. */
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
 * Adds to `op` the writes that move a resource from `before` to `after` (either may be null),
 * including the uniqueness check of a new name slot.
 */
export function writeResource(
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
    op.set(k, (after as Resource).rs);
  }
  if (after) op.set(resourceKey(after.rs), after);
  else if (before) op.delete(resourceKey(before.rs));
}

const FAMILY_RES_NAME = resourceNameKey(0, 0)[0];

/** Adds to `op` the record of one stored content version of file `rs`. */
export function writeVersion(op: Deno.AtomicOperation, rs: number, record: ContentVersion) {
  op.set(versionKey(rs, record.version), record);
}

/**
 * Adds to `op` the removal of one content version; with `versionstamp`, only if it is still the
 * entry that was read.
 */
export function deleteVersion(
  op: Deno.AtomicOperation,
  rs: number,
  version: number,
  versionstamp?: string | null,
) {
  const key = versionKey(rs, version);
  if (versionstamp !== undefined) op.check({ key, versionstamp });
  op.delete(key);
}

/** The stored entry of one content version (for a versionstamp check). */
export function getVersionEntry(kv: Deno.Kv, rs: number, version: number) {
  return kv.get<ContentVersion>(versionKey(rs, version));
}

export async function getResourceEntries(kv: Deno.Kv, rss: number[]) {
  const out: Deno.KvEntryMaybe<Resource>[] = [];
  for (let i = 0; i < rss.length; i += 10) {
    out.push(...await kv.getMany<Resource[]>(rss.slice(i, i + 10).map((rs) => resourceKey(rs))));
  }
  return out;
}

/**
 * Validates a file or folder name and returns it NFC-normalized. `field` names the request
 * field in the error.
 */
export function validateName(name: string, field: string): string {
  const n = name.normalize("NFC");
  if (n.trim() === "") fail("RESOURCE_004", `${field} must not be empty`, field);
  if ([...n].length > MAX_NAME_LENGTH) {
    fail("RESOURCE_004", `${field} is longer than ${MAX_NAME_LENGTH} characters`, field);
  }
  if (n === "." || n === "..") fail("RESOURCE_004", `${field} must not be "." or ".."`, field);
  if (/[/\\]/.test(n)) fail("RESOURCE_004", `${field} must not contain "/" or "\\"`, field);
  // C0, DEL and C1: the storage provider protocol refuses all of them in a path segment.
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(n)) {
    fail("RESOURCE_004", `${field} must not contain control characters`, field);
  }
  return n;
}

export async function getResourceEntry(kv: Deno.Kv, rs: number) {
  return await kv.get<Resource>(resourceKey(rs));
}

export async function getResource(kv: Deno.Kv, rs: number): Promise<Resource | null> {
  return (await kv.get<Resource>(resourceKey(rs))).value;
}

/** The stored content versions of a file, oldest first. */
export async function listVersions(kv: Deno.Kv, rs: number): Promise<ContentVersion[]> {
  const out: ContentVersion[] = [];
  for await (const e of kv.list<ContentVersion>({ prefix: versionKey(rs) })) {
    out.push(e.value);
  }
  return out;
}

/**
 * Every blob id a stored version or resource record points at (a full scan, for the orphan blob
 * sweep). Keys never move, so an id referenced for the whole scan is always seen.
 */
export async function* iterateReferencedBlobIds(kv: Deno.Kv): AsyncGenerator<string> {
  for await (const e of kv.list<ContentVersion>({ prefix: versionKey() })) yield e.value.blobId;
  for await (const e of kv.list<Resource>({ prefix: resourceKey() })) {
    if (e.value.blobId) yield e.value.blobId;
  }
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

/** The resource, or RESOURCE_002 naming `field`. Trashed resources count as missing. */
export async function requireResource(
  kv: Deno.Kv,
  rs: number,
  field = "resourceSeq",
): Promise<Resource> {
  const r = await getResource(kv, rs);
  if (!r || r.trashedAt !== null) fail("RESOURCE_002", `No file or folder with seq ${rs}`, field);
  return r;
}

/**
 * The resource followed by its ancestors up to the drive root (nearest first), with whether
 * anything on that path is in the trash.
 */
export async function loadPath(
  kv: Deno.Kv,
  rs: number,
): Promise<{ path: Resource[]; trashed: boolean } | null> {
  const path: Resource[] = [];
  let next: number | null = rs;
  let trashed = false;
  while (next !== null) {
    const r = await getResource(kv, next);
    if (!r) return path.length === 0 ? null : { path, trashed: true };
    path.push(r);
    if (r.trashedAt !== null) trashed = true;
    next = r.parentRs;
    if (path.length > MAX_DEPTH + 1) break;
  }
  return { path, trashed };
}

/** The child named `name` (any case) of a folder, or null. */
export async function findChildByName(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
): Promise<Resource | null> {
  const rs = (await kv.get<number>(nameIndexKey(ownerSeq, parentRs, name))).value;
  return rs === null ? null : getResource(kv, rs);
}

export async function hasChildren(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
): Promise<boolean> {
  for await (
    const _ of kv.list({ prefix: resourceNameKey(ownerSeq, parentPart(parentRs)) }, { limit: 1 })
  ) return true;
  return false;
}

export interface ListOptions {
  sort: ListSort;
  order: "asc" | "desc";
  limit: number;
  cursor?: string;
}

/** One page of a folder's children in index order; `cursor` is KV's own, so pages never skip or repeat. */
export function listChildren(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  opts: ListOptions,
): Promise<{ items: Resource[]; cursor: string | null }> {
  return listIndexPage(kv, listPrefix(opts.sort, ownerSeq, parentRs), opts);
}

/** One page of the resources an index (keys whose value is a resourceSeq) points at. */
export async function listIndexPage(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  opts: { order: "asc" | "desc"; limit: number; cursor?: string },
): Promise<{ items: Resource[]; cursor: string | null }> {
  let iter;
  try {
    iter = kv.list<number>({ prefix }, {
      limit: opts.limit,
      cursor: opts.cursor,
      reverse: opts.order === "desc",
    });
  } catch {
    fail("RESOURCE_018", "cursor is not a cursor this listing returned", "cursor");
  }
  const seqs: number[] = [];
  try {
    for await (const e of iter) seqs.push(e.value);
  } catch {
    fail("RESOURCE_018", "cursor is not a cursor this listing returned", "cursor");
  }
  const items = (await getManyValues<Resource>(kv, seqs.map((rs) => resourceKey(rs)))).filter((
    r,
  ): r is Resource => r !== null);
  return { items, cursor: seqs.length === opts.limit && iter.cursor ? iter.cursor : null };
}

/** All children of a folder, name order (for ZIP downloads and provider `list`). */
export async function* iterateChildren(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
): AsyncGenerator<Resource> {
  let cursor: string | undefined;
  do {
    const page = await listChildren(kv, ownerSeq, parentRs, {
      sort: "name",
      order: "asc",
      limit: 500,
      cursor,
    });
    yield* page.items;
    cursor = page.cursor ?? undefined;
  } while (cursor);
}

/**
 * Every non-trashed descendant of a folder, each folder before its contents, with its names
 * below `folder` (["a", "b", "c.txt"] for folder/a/b/c.txt). Nesting is bounded by MAX_DEPTH.
 */
export async function* iterateSubtree(
  kv: Deno.Kv,
  folder: Resource,
  below: string[] = [],
): AsyncGenerator<{ resource: Resource; path: string[] }> {
  for await (const child of iterateChildren(kv, folder.ownerSeq, folder.rs)) {
    const path = [...below, child.name];
    yield { resource: child, path };
    if (child.type === "FOLDER" && path.length <= MAX_DEPTH) {
      yield* iterateSubtree(kv, child, path);
    }
  }
}

/** Splits "report.final.docx" into ["report.final", ".docx"]; dotfiles have no extension. */
export function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return [name, ""];
  return [name.slice(0, dot), name.slice(dot)];
}

/** "name (n).ext" for n = 1, 2, ... — the collision rule of `st=duplicate` and `ncp=AUTO`. */
export function numberedName(name: string, n: number): string {
  const [base, ext] = splitExtension(name);
  const suffix = ` (${n})`;
  // Keep within the name limit by shortening the base, never the extension.
  const room = MAX_NAME_LENGTH - [...suffix].length - [...ext].length;
  const cut = [...base].slice(0, Math.max(room, 1)).join("");
  return `${cut}${suffix}${ext}`;
}

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
    const taken = (await kv.get<number>(nameIndexKey(ownerSeq, parentRs, candidate))).value;
    if (taken === null || taken === ignoreRs) return candidate;
  }
  return fail("RESOURCE_003", `Too many files named like "${name}"`);
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}
