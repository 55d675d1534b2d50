/**
 * Search by name (GET /search): a prefix scan of the name-token index (search_index.ts) of each
 * drive the search covers, never a walk of a drive.
 *
 * - Own scope: the caller's token range. Shared scope: the drives of the owners of what is in
 *   the caller's shared-with-me list (kv/sharing/shared_list.ts), where a hit must have one of
 *   those listed resources on its path (the resource itself, or a shared folder above it).
 * - Every hit is re-checked as a download would be: its path is loaded (anything on it in the
 *   trash drops it) and `accessIfVisible` (kv/sharing/authorize.ts) gives the caller's
 *   permissions or drops it, so a revoked or expired share shows nothing.
 * - The query's longest word drives the scan; the other words, `rt` and `ft` are checked on the
 *   index entry's name and type before anything else is read. A name with several tokens that
 *   start with the driving word is counted under the first of them only, so it appears once.
 * - Order: by owner (user seq), then matching token, then resource seq. The cursor is a position
 *   in that order (owner, token, rs), so pages never skip or repeat under concurrent changes. A
 *   page looks at no more than `ps` + MAX_SCAN index keys; when filters reject that many, it is
 *   shorter than `ps` but still has a cursor.
 */
import { fail } from "../errors.ts";
import { searchTokenKey } from "../keys.ts";
import { accessIfVisible, type Caller, type Permissions } from "../sharing/authorize.ts";
import { FILE_TYPES, type FileTypeFilter } from "../sharing/shared_pages.ts";
import { listSharedEntries } from "../sharing/shared_list.ts";
import {
  getResourceEntries,
  loadPath,
  type Resource,
  type ResourceType,
} from "../tree/resources.ts";
import { splitExtension } from "../tree/names.ts";
import {
  cutToken,
  firstIndexedMatch,
  nameMatches,
  queryTokens,
  type SearchEntry,
  tokenRange,
} from "../tree/search_index.ts";

type SearchScope = "own" | "shared" | "both";

interface SearchQuery {
  q: string;
  scope: SearchScope;
  rt?: ResourceType;
  ft?: FileTypeFilter;
  ps: number;
  cursor?: string;
}

export interface SearchHit {
  resource: Resource;
  permissions: Permissions;
  /** own: in the caller's drive; shared: in someone else's, reached through a share. */
  scope: "own" | "shared";
  /** The folders above it, top first (own hits; empty for shared ones). */
  folders: Resource[];
}

interface SearchPage {
  items: SearchHit[];
  /** null: nothing follows. */
  cursor: string | null;
}

/** Words one query may hold (after folding). */
export const MAX_QUERY_WORDS = 8;
/** Index keys one page may look at beyond `ps` when filters reject entries. */
export const MAX_SCAN = 1000;
/** Candidates whose paths are loaded at once. */
const BATCH = 32;

/** A position in the search order: after token `t` of resource `r` in owner `o`'s drive. */
interface Position {
  o: number;
  t: string;
  r: number;
}

/** The drives to scan, in owner order; `roots`: the listed shared resources (null: own). */
type Drive = { ownerSeq: number; roots: Set<number> | null };

export async function searchResources(
  kv: Deno.Kv,
  caller: Caller,
  query: SearchQuery,
): Promise<SearchPage> {
  const words = queryTokens(query.q);
  if (words.length === 0) fail("REQUEST_001", "q: must contain a letter or a digit", "q");
  if (words.length > MAX_QUERY_WORDS) {
    fail("REQUEST_001", `q: at most ${MAX_QUERY_WORDS} words`, "q");
  }
  // The longest word is likely the rarest: its range is the one scanned.
  const driver = cutToken(words.reduce((a, b) => ([...b].length > [...a].length ? b : a)));
  const binding = bindingOf(words, query);
  const from = decodeSearchCursor(binding, query.cursor);
  const drives = (await drivesToSearch(kv, caller, query.scope))
    .filter((d) => !from || d.ownerSeq >= from.o);

  const items: SearchHit[] = [];
  let last: Position | null = null;
  let scanned = 0;
  for (const drive of drives) {
    const range = tokenRange(drive.ownerSeq, driver);
    const after = from && from.o === drive.ownerSeq ? from : null;
    const start = after ? searchTokenKey(drive.ownerSeq, after.t, after.r) : range.start;
    const iter = kv.list<SearchEntry>({ start, end: range.end }, { batchSize: 200 });
    // Rejected entries stay in the batch (unread) so the cursor advances in key order.
    let batch: { pos: Position; candidate: boolean }[] = [];
    const run = async (): Promise<boolean> => {
      const hits = await Promise.all(
        batch.map((c) => c.candidate ? evaluate(kv, caller, drive, c.pos.r) : null),
      );
      for (const [i, hit] of hits.entries()) {
        last = batch[i].pos;
        if (hit) items.push(hit);
        if (items.length === query.ps) return true;
      }
      batch = [];
      return false;
    };
    for await (const e of iter) {
      const pos: Position = { o: drive.ownerSeq, t: e.key[2] as string, r: e.key[3] as number };
      // `start` is inclusive: the cursor's own key was on the previous page.
      if (after && pos.t === after.t && pos.r === after.r) continue;
      if (++scanned > query.ps + MAX_SCAN) {
        if (batch.length > 0) await run();
        return { items, cursor: encodeAt(binding, last) };
      }
      batch.push({ pos, candidate: matchesEntry(e.value, pos.t, driver, words, query) });
      if (batch.length === BATCH && await run()) return { items, cursor: encodeAt(binding, last) };
    }
    if (batch.length > 0 && await run()) return { items, cursor: encodeAt(binding, last) };
  }
  return { items, cursor: null };
}

/** The checks an index entry answers alone: type filters, every word, counted once. */
function matchesEntry(
  entry: SearchEntry,
  token: string,
  driver: string,
  words: string[],
  query: SearchQuery,
): boolean {
  if (query.rt && entry.type !== query.rt) return false;
  if (query.ft) {
    if (entry.type !== "FILE") return false;
    const ext = splitExtension(entry.name)[1].slice(1).toLowerCase();
    if (!(FILE_TYPES[query.ft] as readonly string[]).includes(ext)) return false;
  }
  return firstIndexedMatch(entry.name, driver) === token && nameMatches(entry.name, words);
}

/**
 * The hit for resource `resourceSeq` of `drive`, or null when it is not one: gone, in the trash (itself
 * or a folder above), outside the listed shared resources, or no longer visible to the caller.
 */
async function evaluate(
  kv: Deno.Kv,
  caller: Caller,
  drive: Drive,
  resourceSeq: number,
): Promise<SearchHit | null> {
  const loaded = await loadPath(kv, resourceSeq);
  if (!loaded || loaded.trashed || loaded.path[0].ownerSeq !== drive.ownerSeq) return null;
  if (drive.roots && !loaded.path.some((r) => drive.roots!.has(r.rs))) return null;
  const access = await accessIfVisible(kv, caller, loaded);
  if (!access) return null;
  return {
    resource: access.resource,
    permissions: access.permissions,
    scope: access.isOwner ? "own" : "shared",
    folders: access.isOwner ? loaded.path.slice(1).reverse() : [],
  };
}

/** The caller's drive and/or the drives holding what is shared with the caller. */
async function drivesToSearch(kv: Deno.Kv, caller: Caller, scope: SearchScope): Promise<Drive[]> {
  const drives = new Map<number, Set<number> | null>();
  if (scope !== "shared") drives.set(caller.userSeq, null);
  if (scope !== "own") {
    const entries = await listSharedEntries(kv, caller.userSeq);
    for (const { value: r } of await getResourceEntries(kv, entries.map((e) => e.rs))) {
      if (!r || r.ownerSeq === caller.userSeq) continue;
      const roots = drives.get(r.ownerSeq) ?? new Set<number>();
      roots.add(r.rs);
      drives.set(r.ownerSeq, roots);
    }
  }
  return [...drives].map(([ownerSeq, roots]) => ({ ownerSeq, roots }))
    .sort((a, b) => a.ownerSeq - b.ownerSeq);
}

// ---------------------------------------------------------------- cursor

/** What a cursor was issued for: the same words and filters (FNV-1a of them, in hex). */
function bindingOf(words: string[], q: SearchQuery): string {
  const text = JSON.stringify([words, q.scope, q.rt ?? null, q.ft ?? null]);
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193) >>> 0;
  return h.toString(16);
}

function encodeAt(binding: string, pos: Position | null): string | null {
  if (!pos) return null;
  const bytes = new TextEncoder().encode(JSON.stringify({ b: binding, ...pos }));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

function decodeSearchCursor(binding: string, cursor: string | undefined): Position | null {
  if (cursor === undefined) return null;
  let p: Partial<Position & { b: string }> | null = null;
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    p = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch { /* reported below */ }
  if (
    p?.b !== binding || !Number.isSafeInteger(p.o) || typeof p.t !== "string" ||
    !Number.isSafeInteger(p.r)
  ) {
    fail("RESOURCE_018", "cursor is not one this search returned for these parameters", "cursor");
  }
  return { o: p.o!, t: p.t!, r: p.r! };
}
