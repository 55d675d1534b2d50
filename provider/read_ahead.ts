/**
 * Read-ahead for the provider's read-only operations (info, list). A request reads its adapter
 * record first; resolving its path (a name slot per segment) and, for info on a file, its lock
 * follow, one KV round trip each. Here the keys an adapter's last request of the same operation
 * and path read are remembered, and the next such request reads them in the same `getMany` as
 * the adapter record.
 *
 * A remembered key is only a guess. The operation still asks for every key it needs, and a
 * read-ahead entry answers only a request for exactly that key (the key names the owner, the
 * folder and the name, or the document), so a guess gone stale (a renamed file, another adapter
 * root) costs an ordinary read, never a wrong answer. An entry read ahead is what a read a moment
 * earlier returned, from the same snapshot as the adapter record; for an operation that changes
 * nothing, that moment does not matter.
 *
 * Measured (docs/benchmarks-history.md, "Fourth pass"): an info is one `getMany` and the jti commit
 * instead of four round trips.
 */

/** What resolution and entry building read through: a key at a time. */
export type KvReader = Pick<Deno.Kv, "get">;

/** At most this many keys ride along (getMany takes 10; the epoch and the adapter take 2). */
const READ_AHEAD_KEYS = 8;
/** Remembered (adapter, operation, path) triples; past it the memory starts over. */
const MAX_REMEMBERED = 4096;

/** Keys made of strings and numbers only (all the provider reads): a stable text per key. */
function keyText(key: Deno.KvKey): string | null {
  for (const part of key) {
    if (typeof part !== "string" && typeof part !== "number") return null;
  }
  return JSON.stringify(key);
}

export interface ReadAhead {
  /** The keys to read with the adapter record for this request (possibly none). */
  keysFor(adapter: string, operation: string, rawPath: string): Deno.KvKey[];
  /**
   * A reader for one request: answers from `entries` (read ahead for `keys`) when asked for
   * exactly one of those keys, else reads `kv`; `done` remembers what the request read.
   */
  reader(
    kv: Deno.Kv,
    keys: Deno.KvKey[],
    entries: Deno.KvEntryMaybe<unknown>[],
  ): { reader: KvReader; done(adapter: string, operation: string, rawPath: string): void };
}

/** One per provider app (per process): a memo of which keys requests read, never of values. */
export function openReadAhead(): ReadAhead {
  const remembered = new Map<string, Deno.KvKey[]>();
  const slot = (adapter: string, operation: string, rawPath: string) =>
    `${adapter}\n${operation}\n${rawPath}`;

  return {
    keysFor(adapter, operation, rawPath) {
      return remembered.get(slot(adapter, operation, rawPath)) ?? [];
    },

    reader(kv, keys, entries) {
      const ahead = new Map<string, Deno.KvEntryMaybe<unknown>>();
      keys.forEach((key, i) => {
        const text = keyText(key);
        if (text !== null && entries[i]) ahead.set(text, entries[i]);
      });
      const read: Deno.KvKey[] = [];
      const reader: KvReader = {
        get<T = unknown>(key: Deno.KvKey): Promise<Deno.KvEntryMaybe<T>> {
          if (read.length < READ_AHEAD_KEYS) read.push(key);
          const text = keyText(key);
          const entry = text === null ? undefined : ahead.get(text);
          // Each entry answers once: a second read of a key sees KV as it is now.
          if (entry) {
            ahead.delete(text!);
            return Promise.resolve(entry as Deno.KvEntryMaybe<T>);
          }
          return kv.get<T>(key);
        },
      };
      return {
        reader,
        done(adapter, operation, rawPath) {
          if (remembered.size >= MAX_REMEMBERED) remembered.clear();
          const name = slot(adapter, operation, rawPath);
          if (read.length === 0) remembered.delete(name);
          else remembered.set(name, read.filter((k) => keyText(k) !== null));
        },
      };
    },
  };
}
