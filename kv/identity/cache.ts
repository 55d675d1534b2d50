/**
 * The process's cache of read-mostly identity facts: a user with their standing (disabled, or
 * their tenant disabled) behind an API key or adapter, and an adapter's opened secret.
 *
 * How soon a change takes effect: at once, on every process. Every commit that changes a user
 * or tenant record also adds 1 to one counter, `["identity_epoch"]` (`bumpIdentityEpoch`, in the
 * same atomic operation). Every request reads that counter in the same `getMany` snapshot as the
 * record it must read anyway (the API key, the adapter), so it costs no extra round trip, and a
 * fact is answered from memory only when it was loaded at that epoch or a later one, i.e. after
 * the last change that had committed when the request's snapshot was taken. The records that
 * are read on every request (API keys, adapters) need no epoch: they are never cached, only what
 * is derived from them (the opened secret, keyed by the record's versionstamp).
 *
 * A writer that forgot the epoch would leave a fact stale; as a second line, no fact is kept for
 * longer than `maxAgeMs` (60 s). The cache is a memo of committed state, never correctness state:
 * a new process starts empty and every answer equals a fresh read. boot() builds one per process
 * (Deps.identity); the tests in kv/identity/cache_test.ts and tests/runtime/identity_cache_test.ts
 * (two processes on one KV file) hold it to this.
 */
import type { FactCache } from "../deps.ts";
import { identityEpochKey } from "../keys.ts";

interface IdentityCacheOptions {
  /** Longest a fact is kept, whatever the epoch says (the second line). Default 60 s. */
  maxAgeMs?: number;
  /** Facts kept at most; past it the cache starts over. Default 10,000. */
  maxEntries?: number;
}

interface Kept {
  epoch: bigint;
  loadedAt: number;
  value: unknown;
}

/** Adds to `op` the epoch bump that makes every process drop its cached identity facts. */
export function bumpIdentityEpoch(op: Deno.AtomicOperation): Deno.AtomicOperation {
  return op.sum(identityEpochKey(), 1n);
}

/** The current epoch alone (tests; requests read it with their first record through `read`). */
export async function readIdentityEpoch(kv: Deno.Kv): Promise<bigint> {
  return (await kv.get<Deno.KvU64>(identityEpochKey())).value?.value ?? 0n;
}

export function openIdentityCache(kv: Deno.Kv, opts: IdentityCacheOptions = {}): FactCache {
  const maxAgeMs = opts.maxAgeMs ?? 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  /** The newest epoch any request of this process has read; facts are kept for it only. */
  let newest = -1n;
  const facts = new Map<string, Kept>();

  return {
    async read(keys) {
      const [epochEntry, ...entries] = await kv.getMany([identityEpochKey(), ...keys]);
      const epoch = (epochEntry.value as Deno.KvU64 | null)?.value ?? 0n;
      if (epoch > newest) {
        newest = epoch;
        facts.clear();
      }
      return { epoch, entries };
    },

    async fact<T>(epoch: bigint, kind: string, id: string | number, load: () => Promise<T>) {
      const name = `${kind}:${id}`;
      const kept = facts.get(name);
      // Kept facts were loaded at `newest` >= `epoch`: no older than the request's snapshot.
      if (kept && kept.epoch === newest && Date.now() - kept.loadedAt < maxAgeMs) {
        return kept.value as T;
      }
      const loadedAt = Date.now();
      const value = await load();
      // Kept only when no newer epoch was seen meanwhile (a change may have raced the load).
      if (epoch === newest && value !== null && value !== undefined) {
        if (facts.size >= maxEntries) facts.clear();
        facts.set(name, { epoch, loadedAt, value });
      }
      return value;
    },
  };
}
