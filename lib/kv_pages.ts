/**
 * Pages of a listing read from Deno KV with an opaque cursor that never skips and never repeats
 * an item under concurrent writes: every position is a KV list cursor (a key position, so an
 * insert before it is simply not part of the rest and one after it is met), wrapped when a
 * listing reads several key ranges one after the other (`concatSources`) or one range per item
 * of another (`nestedSource`).
 *
 * A source yields one step per KV entry it reads, matching or not, so that `readPage` can bound
 * the work of one page (`maxScan`): a filter that rejects most entries answers a short page with
 * a cursor instead of reading the whole family in one request.
 */

/** One entry read: the item it gives (null: the entry does not match) and the resume point. */
export interface ScanStep<T> {
  item: T | null;
  /** Resuming here continues after this entry. */
  cursor: string;
}

/** A listing: the steps after `cursor` (from the start when undefined), in key order. */
export type Source<T> = (cursor: string | undefined) => AsyncIterable<ScanStep<T>>;

/** The cursor was not made by the source it was given to (or was tampered with). */
export class BadCursorError extends Error {
  constructor() {
    super("cursor is not one this listing returned");
    this.name = "BadCursorError";
  }
}

/** The entries of `selector`, each turned into an item (or null to skip) by `map`. */
export function kvSource<V, T>(
  kv: Deno.Kv,
  selector: Deno.KvListSelector,
  map: (entry: Deno.KvEntry<V>) => T | null | Promise<T | null>,
): Source<T> {
  return async function* (cursor) {
    let iter: Deno.KvListIterator<V>;
    try {
      iter = kv.list<V>(selector, { cursor, batchSize: 100 });
    } catch {
      throw new BadCursorError();
    }
    for (;;) {
      let next: IteratorResult<Deno.KvEntry<V>>;
      try {
        next = await iter.next();
      } catch (err) {
        // KV refuses a cursor that does not decode to a key inside the selector.
        if (cursor !== undefined && err instanceof TypeError) throw new BadCursorError();
        throw err;
      }
      if (next.done) return;
      yield { item: await map(next.value), cursor: iter.cursor };
    }
  };
}

/**
 * The selector of the keys `[...prefix, s, ...]` whose string part `s` starts with `text`: from
 * `text` itself up to (not including) `text` with its last code point one higher. KV orders
 * strings by their UTF-8 bytes, which is code point order.
 */
export function stringPrefixSelector(prefix: Deno.KvKey, text: string): Deno.KvListSelector {
  const points = [...text];
  if (points.length === 0) return { prefix };
  const last = points.pop()!.codePointAt(0)!;
  const after = points.join("") + String.fromCodePoint(Math.min(last + 1, 0x10ffff));
  return { start: [...prefix, text], end: [...prefix, after] };
}

/** Code point (UTF-8, KV key) order of two strings, unlike `<` which compares UTF-16 units. */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function parseCursor(cursor: string): unknown {
  try {
    return JSON.parse(cursor);
  } catch {
    throw new BadCursorError();
  }
}

/** The sources one after the other: the whole of the first, then the second, ... */
export function concatSources<T>(sources: Source<T>[]): Source<T> {
  return async function* (cursor) {
    let at = 0;
    let inner: string | undefined;
    if (cursor !== undefined) {
      const parsed = parseCursor(cursor);
      if (
        !Array.isArray(parsed) || !Number.isInteger(parsed[0]) || parsed[0] < 0 ||
        parsed[0] >= sources.length || (parsed[1] !== null && typeof parsed[1] !== "string")
      ) throw new BadCursorError();
      [at, inner] = [parsed[0], parsed[1] ?? undefined];
    }
    for (; at < sources.length; at++, inner = undefined) {
      for await (const step of sources[at](inner)) {
        yield { item: step.item, cursor: JSON.stringify([at, step.cursor]) };
      }
    }
  };
}

interface NestedCursor {
  /** The outer cursor before the outer item being expanded (null: from the start). */
  o: string | null;
  /** That outer item's id and the inner cursor within it (absent: between outer items). */
  id?: string;
  i?: string;
}

/**
 * Each item of `outer` expanded into the items of its own source (`inner`), e.g. the API keys of
 * each user a search finds. `idOf` names an outer item, so that a resume inside one finds it
 * again even when another outer item was inserted just before it meanwhile.
 */
export function nestedSource<O, T>(
  outer: Source<O>,
  inner: (item: O) => Source<T>,
  idOf: (item: O) => string,
): Source<T> {
  return async function* (cursor) {
    let resume: NestedCursor = { o: null };
    if (cursor !== undefined) {
      const parsed = parseCursor(cursor) as NestedCursor | null;
      if (
        typeof parsed !== "object" || parsed === null ||
        (parsed.o !== null && typeof parsed.o !== "string") ||
        (parsed.id !== undefined && typeof parsed.id !== "string") ||
        (parsed.i !== undefined && typeof parsed.i !== "string")
      ) throw new BadCursorError();
      resume = parsed;
    }
    let before = resume.o;
    const at = (c: NestedCursor) => JSON.stringify(c);
    for await (const step of outer(before ?? undefined)) {
      if (step.item !== null) {
        const id = idOf(step.item);
        const from = resume.id === id ? resume.i : undefined;
        if (resume.id === id) resume = { o: null };
        for await (const s of inner(step.item)(from)) {
          yield { item: s.item, cursor: at({ o: before, id, i: s.cursor }) };
        }
      }
      before = step.cursor;
      yield { item: null, cursor: at({ o: before }) };
    }
  };
}

export interface Page<T> {
  items: T[];
  /** Where the next page starts; null when this page reached the end. */
  nextCursor: string | null;
}

/**
 * At most `limit` items after `cursor`. It reads at most `maxScan` entries: a page cut short by
 * that bound holds fewer items and still a nextCursor. nextCursor is null only when the listing
 * is known to have nothing after this page (one entry is read ahead to know it).
 */
export async function readPage<T>(
  source: Source<T>,
  cursor: string | undefined,
  { limit, maxScan }: { limit: number; maxScan: number },
): Promise<Page<T>> {
  const items: T[] = [];
  let resumeAt = cursor ?? null;
  let scanned = 0;
  const steps = source(cursor)[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await steps.next();
      if (next.done) return { items, nextCursor: null };
      const { item, cursor: after } = next.value;
      // A full page reads ahead only to learn whether anything follows.
      if (item !== null && items.length === limit) return { items, nextCursor: resumeAt };
      if (item !== null) items.push(item);
      resumeAt = after;
      if (++scanned >= maxScan) return { items, nextCursor: resumeAt };
    }
  } finally {
    await steps.return?.(undefined);
  }
}
