/**
 * Files and folders as a tree: every resource has a parent pointer (null = the owner's drive
 * root). Its secondary keys (res_name: unique names per folder, case-insensitive; res_by_size
 * and res_by_update: listing orders; res_trash: top-level trashed items instead of those), each
 * holding the record itself so a listing is one prefix scan, and its content versions
 * (res_version) are written here only, in the caller's commit; see
 * kv/keys.ts. Trashing a folder only marks the folder: its contents are "in the trash" because an ancestor
 * is, which `loadPath` reports. That keeps trashing O(1) for any folder size.
 */
import { type ParentMemo, parentMemoOf } from "../parent_memo.ts";
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
import { isoTime } from "../../lib/iso_time.ts";
import { writeSearchTokens } from "./search_index.ts";
import { appendEvent, resourceEvent, type ResourceEventHint } from "../events/log.ts";

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

/*
 * The characters of a name (nameCharacterProblem). Refused:
 * - lone surrogates: not Unicode at all (a KV key stores one as U+FFFD, so different names would
 *   share one index slot);
 * - C0, DEL and C1 controls: the storage provider protocol refuses them in a path segment;
 * - bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): they make a
 *   name display differently from what it is ("invoice\u202efdp.exe" shows as "invoiceexe.pdf");
 * - every other format character (category Cf) and default-ignorable code point: they render as
 *   nothing (or as a hidden hyphen), so two names differing only by them look identical.
 * Kept where writing needs them, and only there (elsewhere they are just as invisible):
 * - ZWJ inside an emoji sequence (a pictograph, skin tone or VS16 before it, a pictograph after);
 * - ZWJ and ZWNJ between letters or marks of a script whose spelling uses them (JOINING_SCRIPT:
 *   Persian "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", Devanagari half forms);
 * - tag characters between U+1F3F4 and U+E007F (subdivision flags);
 * - variation selectors after a character they change: VS16 after a text-style emoji (and a keycap
 *   base when U+20E3 follows), VS15 after an emoji, VS1–VS14 and the ideographic selectors after
 *   an ideograph, a math symbol or Myanmar, the Mongolian selectors after Mongolian.
 * Confusable letters of different scripts (Latin "a", Cyrillic "\u0430") are not this rule's: they
 * are visible characters, and telling them apart is the client's display (UTS #39).
 */
const BIDI_CONTROLS: Record<number, string> = {
  0x061c: "ARABIC LETTER MARK",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
};
/** Names of the invisible characters people meet most, for the error message. */
const INVISIBLE_NAMES: Record<number, string> = {
  0x00ad: "SOFT HYPHEN",
  0x034f: "COMBINING GRAPHEME JOINER",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x2060: "WORD JOINER",
  0x3164: "HANGUL FILLER",
  0xfe0e: "VARIATION SELECTOR-15",
  0xfe0f: "VARIATION SELECTOR-16",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
};
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;
const KEYCAP = 0x20e3;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const isTag = (cp: number | undefined) => cp !== undefined && cp >= 0xe0020 && cp <= 0xe007e;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const EMOJI_SELECTOR = /[\ufe0e\ufe0f]/u;
const OTHER_SELECTOR = /[\ufe00-\ufe0d\u{e0100}-\u{e01ef}]/u;
const MONGOLIAN_SELECTOR = /[\u180b-\u180d\u180f]/u;
const EMOJI = /\p{Emoji}/u;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const KEYCAP_BASE = /[0-9#*]/;
const VARIANT_BASE = /[\p{Ideographic}\p{Sm}\p{scx=Myanmar}]/u;
const MONGOLIAN = /^(?=[\p{L}\p{M}])\p{scx=Mongolian}$/u;
/** Before a ZWJ in an emoji sequence (a pictograph, a skin tone, or VS16 after a pictograph). */
const EMOJI_BEFORE_ZWJ = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\ufe0f]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** Letters and marks of the scripts whose spelling uses ZWJ and ZWNJ (Arabic, Indic, ...). */
const JOINING_SCRIPT = new RegExp(
  "^(?=[\\p{L}\\p{M}])[" +
    [
      "Arabic",
      "Syriac",
      "Nko",
      "Mongolian",
      "Devanagari",
      "Bengali",
      "Gurmukhi",
      "Gujarati",
      "Oriya",
      "Tamil",
      "Telugu",
      "Kannada",
      "Malayalam",
      "Sinhala",
      "Khmer",
      "Myanmar",
      "Tibetan",
    ].map((s) => `\\p{scx=${s}}`).join("") + "]$",
  "u",
);

const hexOf = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
const chr = (cp: number | undefined) => cp === undefined ? "" : String.fromCodePoint(cp);

/** Whether the invisible character at `i` is one that writing needs there (see above). */
function neededThere(cps: number[], i: number): boolean {
  const cp = cps[i];
  const c = chr(cp);
  const before = chr(cps[i - 1]);
  const after = chr(cps[i + 1]);
  if (cp === ZWJ && EMOJI_BEFORE_ZWJ.test(before) && PICTOGRAPH.test(after)) return true;
  if (cp === ZWJ || cp === ZWNJ) return JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after);
  if (isTag(cp) || cp === CANCEL_TAG) {
    let start = i - 1;
    while (isTag(cps[start])) start--;
    let end = i;
    while (isTag(cps[end])) end++;
    // At least one tag between the black flag and the cancel tag.
    return cps[start] === BLACK_FLAG && cps[end] === CANCEL_TAG && end - start > 1;
  }
  if (EMOJI_SELECTOR.test(c)) {
    if (!EMOJI.test(before)) return false;
    // A keycap base is plain text unless U+20E3 follows; VS16 after an emoji that is already
    // emoji-style changes nothing, so it would be invisible.
    if (KEYCAP_BASE.test(before)) return cp === VS16 && cps[i + 1] === KEYCAP;
    return cp === VS15 || !EMOJI_PRESENTATION.test(before);
  }
  if (OTHER_SELECTOR.test(c)) return VARIANT_BASE.test(before);
  if (MONGOLIAN_SELECTOR.test(c)) return MONGOLIAN.test(before);
  return false;
}

/**
 * Why `name` holds a character no name may contain, as "must not contain <what> (U+XXXX ... at
 * character n)" for the caller to prefix with the field, or null. Positions count code points of
 * the name as sent, from 1. Only characters: empty names, length, dots and slashes are
 * validateName's.
 */
export function nameCharacterProblem(name: string): string | null {
  const cps = Array.from(name, (c) => c.codePointAt(0)!);
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i];
    const at = `at character ${i + 1}`;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      return `must not contain a lone surrogate (${hexOf(cp)} ${at}); names must be valid Unicode`;
    }
    const c = chr(cp);
    if (CONTROL.test(c)) return `must not contain a control character (${hexOf(cp)} ${at})`;
    const bidi = BIDI_CONTROLS[cp];
    if (bidi) {
      return `must not contain a bidirectional control character (${hexOf(cp)} ${bidi} ${at}): ` +
        "it makes a name display differently from what it is";
    }
    if (INVISIBLE.test(c) && !neededThere(cps, i)) {
      const label = INVISIBLE_NAMES[cp] ? `${hexOf(cp)} ${INVISIBLE_NAMES[cp]}` : hexOf(cp);
      return `must not contain an invisible format character (${label} ${at})` +
        (cp === ZWJ || cp === ZWNJ
          ? ": joiners are kept only inside emoji sequences and between letters of scripts that join"
          : "");
    }
  }
  return null;
}

/** Spaces and the characters that render as nothing: a name of only these shows nothing. */
const BLANK = /^[\s\p{Default_Ignorable_Code_Point}]*$/u;

/**
 * Validates a file or folder name and returns it NFC-normalized: the one name rule of every path
 * that names something (drive API, provider, restore, copy keep names that passed it). `field`
 * names the request field in the error (RESOURCE_004).
 */
export function validateName(name: string, field: string): string {
  const bad = nameCharacterProblem(name);
  if (bad) fail("RESOURCE_004", `${field} ${bad}`, field);
  const n = name.normalize("NFC");
  if (n.trim() === "") fail("RESOURCE_004", `${field} must not be empty`, field);
  if (BLANK.test(n)) {
    fail("RESOURCE_004", `${field} must contain a visible character`, field);
  }
  if ([...n].length > MAX_NAME_LENGTH) {
    fail("RESOURCE_004", `${field} is longer than ${MAX_NAME_LENGTH} characters`, field);
  }
  if (n === "." || n === "..") fail("RESOURCE_004", `${field} must not be "." or ".."`, field);
  if (/[/\\]/.test(n)) fail("RESOURCE_004", `${field} must not contain "/" or "\\"`, field);
  return n;
}

export async function getResourceEntry(kv: Deno.Kv, rs: number) {
  return await kv.get<Resource>(resourceKey(rs));
}

export async function getResource(
  kv: Pick<Deno.Kv, "get">,
  rs: number,
): Promise<Resource | null> {
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
 * anything on that path is in the trash, and the versionstamp of the resource's own entry.
 */
export async function loadPath(
  kv: Deno.Kv,
  rs: number,
): Promise<{ path: Resource[]; trashed: boolean; versionstamp: string } | null> {
  const memo = parentMemoOf(kv);
  const path: Resource[] = [];
  let next: number | null = rs;
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

/** `rs` then the parents `memo` remembers above it, at most `max`, stopping at a repeat. */
function guessedChain(memo: ParentMemo | undefined, rs: number, max: number): number[] {
  const chain = [rs];
  for (let p = memo?.get(rs); typeof p === "number" && chain.length < max; p = memo!.get(p)) {
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

/**
 * The records of index values, in order: entries that hold their record need no read; bare rs
 * values (written by earlier versions) are read in getMany batches, and dropped when gone.
 */
export async function resolveIndexValues(kv: Deno.Kv, values: IndexValue[]): Promise<Resource[]> {
  const missing = values.filter((v): v is number => typeof v === "number");
  if (missing.length === 0) return values as Resource[];
  const read = await getManyValues<Resource>(kv, missing.map((rs) => resourceKey(rs)));
  const byRs = new Map(missing.map((rs, i) => [rs, read[i]]));
  return values.map((v) => typeof v === "number" ? byRs.get(v) ?? null : v)
    .filter((r): r is Resource => r !== null);
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

/** One page of an index's resources, from one prefix scan (the entries hold the records). */
export async function listIndexPage(
  kv: Deno.Kv,
  prefix: Deno.KvKey,
  opts: { order: "asc" | "desc"; limit: number; cursor?: string },
): Promise<{ items: Resource[]; cursor: string | null }> {
  let iter;
  try {
    iter = kv.list<IndexValue>({ prefix }, {
      limit: opts.limit,
      cursor: opts.cursor,
      reverse: opts.order === "desc",
    });
  } catch {
    fail("RESOURCE_018", "cursor is not a cursor this listing returned", "cursor");
  }
  const values: IndexValue[] = [];
  try {
    for await (const e of iter) values.push(e.value);
  } catch {
    fail("RESOURCE_018", "cursor is not a cursor this listing returned", "cursor");
  }
  const items = await resolveIndexValues(kv, values);
  return { items, cursor: values.length === opts.limit && iter.cursor ? iter.cursor : null };
}

/** All children of a folder, name order (for ZIP downloads and provider `list`). */
export async function* iterateChildren(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
): AsyncGenerator<Resource> {
  // One scan in KV's largest batches; only entries of earlier versions (a bare rs) need a read.
  const iter = kv.list<IndexValue>({ prefix: listPrefix("name", ownerSeq, parentRs) }, {
    batchSize: 1000,
  });
  for await (const e of iter) {
    const r = typeof e.value === "number" ? await getResource(kv, e.value) : e.value;
    if (r) yield r;
  }
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

/** Every stored content version with its entry: a full scan, for audits only. */
export async function* iterateVersionEntries(
  kv: Deno.Kv,
): AsyncGenerator<{ rs: number; entry: Deno.KvEntry<ContentVersion> }> {
  for await (const entry of kv.list<ContentVersion>({ prefix: versionKey() })) {
    yield { rs: entry.key[1] as number, entry };
  }
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

/**
 * Adds to `op` the removal of a content version whose resource record is gone (a repair), only
 * if the version is unchanged and the record still absent.
 */
export function dropOrphanVersion(
  op: Deno.AtomicOperation,
  rs: number,
  entry: Deno.KvEntry<unknown>,
) {
  op.check({ key: resourceKey(rs), versionstamp: null });
  deleteVersion(op, rs, entry.key[2] as number, entry.versionstamp);
}
