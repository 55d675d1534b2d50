/**
 * Shared Deno KV helpers: optimistic-concurrency retries and numeric sequences.
 * Every multi-key write in kv/ goes through `commitWithRetry` so that a lost race re-reads
 * and tries again instead of leaving a half-written tree.
 */
import { DriveError, fail } from "./errors.ts";
import { seqKey } from "./keys.ts";

const MAX_ATTEMPTS = 40;

/** Two processes on one SQLite-backed KV file throw this under contention; it is safe to retry. */
function isTransientKvError(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return /database is locked|SQLITE_BUSY|busy/i.test(msg);
}

function backoff(attempt: number): Promise<void> {
  const ms = Math.min(50, 1 + attempt * 2) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` until it returns a value other than `CONFLICT`. `attempt` reads what it needs,
 * builds one atomic operation with versionstamp checks and commits it; it returns `CONFLICT`
 * when the commit's checks failed, so the whole read-decide-write cycle runs again.
 */
export const CONFLICT: unique symbol = Symbol("kv-conflict");

export async function commitWithRetry<T>(
  attempt: () => Promise<T | typeof CONFLICT>,
  conflictError: () => never = () => fail("RESOURCE_012"),
): Promise<T> {
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    try {
      const result = await attempt();
      if (result !== CONFLICT) return result;
    } catch (err) {
      if (err instanceof DriveError || !isTransientKvError(err)) throw err;
    }
    await backoff(i);
  }
  return conflictError();
}

/** Commits `op`, returning CONFLICT when a check failed. */
export async function commit(op: Deno.AtomicOperation): Promise<true | typeof CONFLICT> {
  const res = await op.commit();
  return res.ok ? true : CONFLICT;
}

/** Next value of a named, strictly increasing positive sequence (shared by every process on the KV). */
export function nextSeq(kv: Deno.Kv, name: string): Promise<number> {
  return commitWithRetry(async () => {
    const cur = await kv.get<number>(seqKey(name));
    const next = (cur.value ?? 0) + 1;
    const ok = await commit(kv.atomic().check(cur).set(seqKey(name), next));
    return ok === true ? next : CONFLICT;
  });
}

/** Reads many keys, in getMany's batches of at most 10. */
export async function getManyValues<T>(kv: Deno.Kv, keys: Deno.KvKey[]): Promise<(T | null)[]> {
  const out: (T | null)[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    const entries = await kv.getMany<T[]>(keys.slice(i, i + 10));
    for (const e of entries) out.push(e.value as T | null);
  }
  return out;
}
