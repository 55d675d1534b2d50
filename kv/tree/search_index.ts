/**
 * The name-token index behind search (res_token, kv/keys.ts): one key per token of a live
 * resource's name, [res_token, ownerSeq, token, rs] → SearchEntry, written by `writeSearchTokens`
 * inside resources.ts `writeResource`, so it changes in the same commit as every create, rename,
 * move, trash, restore and purge. A query is then a prefix scan of one owner's token range
 * (kv/views/search.ts), whatever the size of the drive.
 *
 * Tokens (the rule docs/api.md states):
 * - a name is cut into runs of letters, marks and digits; everything else separates;
 * - each run is also cut at camelCase humps ("quarterlyReport", "XMLParser") and at letter/digit
 *   changes ("Q3", "v2final"), and both the whole run and its parts are tokens, so "report" and
 *   "quarterlyreport" both find "QuarterlyReport.xlsx";
 * - tokens are folded: lower case, compatibility decomposition (NFKD: full-width letters,
 *   ligatures), combining marks removed (accents: "é" → "e"), a few letters that do not decompose
 *   spelled out ("ß" → "ss", "ø" → "o", "æ" → "ae", ...), then recomposed (NFC, so Hangul stays
 *   syllables).
 * Bounded so a commit stays small: at most MAX_TOKENS distinct tokens per name (whole runs
 * first) and each cut to MAX_TOKEN_CHARS code points; a query compares longer words against the
 * full name after the scan.
 *
 * This module imports no resource module (resources.ts imports it): it takes the few fields it
 * needs structurally.
 */
import { resourceKey, searchTokenKey } from "../keys.ts";

/** What the index needs of a resource (a Resource has these). */
interface SearchIndexed {
  rs: number;
  ownerSeq: number;
  name: string;
  type: "FILE" | "FOLDER";
  trashedAt: number | null;
}

/** The value under each token key: enough to filter a hit without reading the resource. */
export interface SearchEntry {
  name: string;
  type: "FILE" | "FOLDER";
}

/** Distinct tokens indexed per name: keeps a purge batch of many resources under KV's limits. */
export const MAX_TOKENS = 12;
/** Code points kept of each token in its key (a longer query word is checked on the name). */
export const MAX_TOKEN_CHARS = 20;

/** Letters with no decomposition that people still type without their stroke or ligature. */
const SPELLED_OUT: Record<string, string> = {
  "ß": "ss",
  "æ": "ae",
  "œ": "oe",
  "ø": "o",
  "đ": "d",
  "ð": "d",
  "ł": "l",
  "þ": "th",
  "ı": "i",
  "ħ": "h",
  "ŧ": "t",
};
const SPELLED_OUT_RE = new RegExp(`[${Object.keys(SPELLED_OUT).join("")}]`, "gu");
const MARKS = /\p{M}/gu;
const RUN = /[\p{L}\p{M}\p{N}]+/gu;
const WORD = /[\p{L}\p{N}]+/gu;
/** camelCase humps, an acronym before a capitalized word, letter/digit changes. */
const HUMP =
  /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=[\p{L}\p{M}])(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

/** Case- and accent-insensitive form of `text` (see the module comment). */
export function foldForSearch(text: string): string {
  return text.toLowerCase().normalize("NFKD").replace(MARKS, "")
    .replace(SPELLED_OUT_RE, (c) => SPELLED_OUT[c]).normalize("NFC");
}

const words = (text: string): string[] => foldForSearch(text).match(WORD) ?? [];

/** Every token of a name, uncut and unbounded: whole runs first, then their parts. */
export function nameTokens(name: string): string[] {
  const runs = name.normalize("NFC").match(RUN) ?? [];
  const out = new Set<string>();
  for (const run of runs) for (const w of words(run)) out.add(w);
  for (const run of runs) {
    const parts = run.split(HUMP);
    if (parts.length > 1) { for (const part of parts) for (const w of words(part)) out.add(w); }
  }
  return [...out];
}

/** A token as its key holds it: at most MAX_TOKEN_CHARS code points. */
export const cutToken = (token: string): string =>
  [...token].length > MAX_TOKEN_CHARS ? [...token].slice(0, MAX_TOKEN_CHARS).join("") : token;

/** The tokens of a name as the index keys them: cut, distinct, at most MAX_TOKENS. */
export function indexedTokens(name: string): string[] {
  return [...new Set(nameTokens(name).map(cutToken))].slice(0, MAX_TOKENS);
}

/**
 * The words of a query, folded and cut at humps like a name's parts ("Q3Report" → q, 3,
 * report): every one must prefix some token of a name for the name to match. A word that is a
 * prefix of another word of the query adds nothing and is dropped.
 */
export function queryTokens(q: string): string[] {
  const parts = new Set<string>();
  for (const run of q.normalize("NFC").match(RUN) ?? []) {
    for (const part of run.split(HUMP)) for (const w of words(part)) parts.add(w);
  }
  const all = [...parts];
  return all.filter((w) => !all.some((o) => o !== w && o.startsWith(w)));
}

/** Whether every query token prefixes some token of `name`. */
export function nameMatches(name: string, query: string[]): boolean {
  const tokens = nameTokens(name);
  return query.every((q) => tokens.some((t) => t.startsWith(q)));
}

/** KV orders string key parts by UTF-8 bytes, which is code point order (not UTF-16's). */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1;
    const d = x.value.codePointAt(0)! - y.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

/**
 * The first of a name's indexed tokens (in key order) that starts with `prefix`: a scan of that
 * prefix's range meets the resource first under this token, and counts it only there, so a
 * name with several matching tokens is listed once.
 */
export function firstIndexedMatch(name: string, prefix: string): string | null {
  let best: string | null = null;
  for (const t of indexedTokens(name)) {
    if (t.startsWith(prefix) && (best === null || compareCodePoints(t, best) < 0)) best = t;
  }
  return best;
}

/** The key range of one owner's tokens that start with `prefix` (already folded and cut). */
export function tokenRange(
  ownerSeq: number,
  prefix: string,
): { start: Deno.KvKey; end: Deno.KvKey } {
  // U+10FFFF sorts after every character a token can hold, so the range ends right after the
  // last token that has the prefix.
  return {
    start: searchTokenKey(ownerSeq, prefix),
    end: searchTokenKey(ownerSeq, `${prefix}\u{10ffff}`),
  };
}

/** How many token keys a resource in this state holds (for commits that budget mutations). */
export function searchKeyCount(r: SearchIndexed | null): number {
  return r && r.trashedAt === null ? indexedTokens(r.name).length : 0;
}

const live = (r: SearchIndexed | null) => r && r.trashedAt === null ? r : null;

/**
 * Adds to `op` the token keys that move a resource from `before` to `after` (either may be
 * null). A trashed resource has no tokens (its descendants keep theirs; search drops them by
 * their path). A change that keeps owner, name and type (new content, a move within the drive)
 * adds nothing.
 */
export function writeSearchTokens(
  op: Deno.AtomicOperation,
  before: SearchIndexed | null,
  after: SearchIndexed | null,
) {
  const was = live(before);
  const is = live(after);
  if (
    was && is && was.rs === is.rs && was.ownerSeq === is.ownerSeq && was.name === is.name &&
    was.type === is.type
  ) return;
  const newTokens = is ? indexedTokens(is.name) : [];
  const kept = was && is && was.ownerSeq === is.ownerSeq && was.rs === is.rs
    ? new Set(newTokens)
    : new Set<string>();
  if (was) {
    for (const t of indexedTokens(was.name)) {
      if (!kept.has(t)) op.delete(searchTokenKey(was.ownerSeq, t, was.rs));
    }
  }
  if (is) {
    const entry: SearchEntry = { name: is.name, type: is.type };
    for (const t of newTokens) op.set(searchTokenKey(is.ownerSeq, t, is.rs), entry);
  }
}

/**
 * Resources per backfill commit: one check each, and denokv (KV Connect) allows 10 checks per
 * commit where the CLI allows 100; 12 tokens each stays far under 1000 mutations.
 */
const BACKFILL_BATCH = 10;

/**
 * Migration: indexes the tokens of every live resource written before this index existed.
 * Each commit is checked against the resources it read, so a resource changed meanwhile (whose
 * own write already set its tokens) is left alone; safe to run twice or on two processes.
 */
export async function indexSearchTokens(kv: Deno.Kv): Promise<void> {
  let batch: Deno.KvEntry<SearchIndexed>[] = [];
  const flush = async () => {
    const op = kv.atomic();
    for (const e of batch) writeSearchTokens(op.check(e), null, e.value);
    if (!(await op.commit()).ok) {
      // Someone changed one of them: index the others one by one.
      for (const e of batch) {
        const one = kv.atomic().check(e);
        writeSearchTokens(one, null, e.value);
        await one.commit();
      }
    }
    batch = [];
  };
  for await (const e of kv.list<SearchIndexed>({ prefix: resourceKey() })) {
    if (e.value.trashedAt !== null) continue;
    batch.push(e);
    if (batch.length === BACKFILL_BATCH) await flush();
  }
  if (batch.length > 0) await flush();
}
