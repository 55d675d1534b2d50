/**
 * Shared Deno KV helpers: optimistic-concurrency retries, numeric sequences and block-reserved
 * ids.
 * Every multi-key write in kv/ goes through `commitWithRetry` so that a lost race re-reads
 * and tries again instead of leaving a half-written tree.
 */
import { attachParentMemo } from "./parent_memo.ts";
import {
  type CommitObserver,
  currentRequestScope,
  withRequestScope,
} from "../lib/request_scope.ts";
import { DriveError, fail } from "./errors.ts";
import { readyProbeKey, seqKey } from "./keys.ts";

const MAX_ATTEMPTS = 40;

/** Two processes on one SQLite-backed KV file throw this under contention; it is safe to retry. */
export function isTransientKvError(err: unknown): boolean {
  const msg = err instanceof Error ? err.message : String(err);
  return /database is locked|SQLITE_BUSY|busy/i.test(msg);
}

/**
 * Full-jitter exponential backoff, capped at 200 ms: with 16 writers on one key (one user's
 * uploads all charge their usage) a linear 50 ms cap let a few lose all 40 rounds under load
 * (bench/webdav_transfer.ts saw 2–8 of 1,000 PUTs answered RESOURCE_012); spreading the later
 * rounds wider lets each round's losers find a free slot.
 */
function backoff(attempt: number): Promise<void> {
  const ms = Math.min(200, 2 ** Math.min(attempt + 1, 8)) * Math.random();
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs `attempt` until it returns a value other than `CONFLICT`. `attempt` reads what it needs,
 * builds one atomic operation with versionstamp checks and commits it; it returns `CONFLICT`
 * when the commit's checks failed, so the whole read-decide-write cycle runs again.
 */
export const CONFLICT: unique symbol = Symbol("kv-conflict");

/**
 * A per-request observer of commit races rides the request scope (lib/request_scope.ts) rather
 * than a parameter, so the dozens of domain call sites stay unchanged and two services in one
 * process (tests) never count each other's commits. The request middleware sets it with the
 * rest of the scope in one go (api/ops/request_log.ts).
 */
export type { CommitObserver };

/** Runs `fn` with `observer` told about the commits made inside it (and its async work). */
export function observeCommits<T>(observer: CommitObserver, fn: () => T): T {
  return withRequestScope({ commitObserver: observer }, fn);
}

export async function commitWithRetry<T>(
  attempt: () => Promise<T | typeof CONFLICT>,
  conflictError: () => never = () => fail("RESOURCE_012"),
): Promise<T> {
  const observer = currentRequestScope()?.commitObserver;
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    let reason: "conflict" | "busy" = "conflict";
    try {
      const result = await attempt();
      if (result !== CONFLICT) return result;
      observer?.conflict();
    } catch (err) {
      if (err instanceof DriveError || !isTransientKvError(err)) throw err;
      reason = "busy";
    }
    if (i + 1 < MAX_ATTEMPTS) observer?.retry(reason);
    await backoff(i);
  }
  return conflictError();
}

/**
 * Checks one commit may carry on every KV this service runs on: denokv's limit (KV Connect,
 * denokv_proto/limits.rs), where a KV file takes 100. Batched writes size their batches by it;
 * writes that rely on a whole path check a per-drive stamp instead (kv/tree/tree_shape.ts).
 */
export const MAX_COMMIT_CHECKS = 10;

/** Commits `op`, returning CONFLICT when a check failed. */
export async function commit(op: Deno.AtomicOperation): Promise<true | typeof CONFLICT> {
  let res: Deno.KvCommitResult | Deno.KvCommitError;
  try {
    res = await op.commit();
  } catch (err) {
    // A commit past MAX_COMMIT_CHECKS on denokv: no write of ours builds one (each checks a fixed
    // number of keys, or batches by the limit), so this is a bug; say what rather than 500.
    if (err instanceof Error && /too many checks/i.test(err.message)) {
      fail(
        "SERVICE_004",
        "This write checks more keys than the shared KV server takes in one commit (denokv: " +
          "10 checks); nothing was written. Please report it: every write is meant to fit",
      );
    }
    throw err;
  }
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

/** Hands out ids of one named sequence; see `openIdAllocator`. */
export interface IdAllocator {
  /** A positive integer no other call, in this process or any other on the KV, gets. */
  next(name: string): Promise<number>;
}

/** Ids a process reserves per commit: one commit on the sequence key per this many creates. */
const ID_BLOCK_SIZE = 1000;

/**
 * Ids from blocks reserved in one commit each on the sequence's key (the same key and value as
 * `nextSeq`, so both may serve one sequence): a process takes `blockSize` numbers at once and
 * hands them out from memory, so no create contends on one hot key. The block in memory is a
 * cache of a reservation already committed, never correctness state: a process that stops
 * leaves a gap, and ids of different processes interleave, so ids are unique and positive but
 * neither gap-free nor ordered across processes. boot() builds one per process (on `Deps`).
 */
export function openIdAllocator(kv: Deno.Kv, blockSize = ID_BLOCK_SIZE): IdAllocator {
  const blocks = new Map<string, { next: number; end: number }>();
  const reserving = new Map<string, Promise<void>>();

  async function reserve(name: string): Promise<void> {
    const last = await commitWithRetry(async () => {
      const cur = await kv.get<number>(seqKey(name));
      const end = (cur.value ?? 0) + blockSize;
      const ok = await commit(kv.atomic().check(cur).set(seqKey(name), end));
      return ok === true ? end : CONFLICT;
    });
    blocks.set(name, { next: last - blockSize + 1, end: last });
  }

  return {
    async next(name: string): Promise<number> {
      for (;;) {
        const block = blocks.get(name);
        if (block && block.next <= block.end) return block.next++;
        // Concurrent callers wait for the one reservation in flight instead of each taking one.
        let pending = reserving.get(name);
        if (!pending) {
          pending = reserve(name).finally(() => reserving.delete(name));
          reserving.set(name, pending);
        }
        await pending;
      }
    },
  };
}

/**
 * /readyz's KV check: writes a probe key, reads it back and deletes it. Throws when KV cannot
 * do all three (the probe expires by itself should the delete not happen).
 */
export async function kvRoundTrip(kv: Deno.Kv): Promise<void> {
  const probe = readyProbeKey(crypto.randomUUID());
  const now = Date.now();
  const res = await kv.set(probe, now, { expireIn: 60_000 });
  if (!res.ok) throw new Error("the probe write was not committed");
  const back = await kv.get<number>(probe);
  await kv.delete(probe);
  if (back.value !== now) throw new Error("the probe read back a different value");
}

/** How long a commit keeps retrying SQLite's "database is locked" before it gives up (503). */
const BUSY_RETRY_MS = 5_000;

/**
 * Opens Deno KV with every atomic commit retried while SQLite reports "database is locked".
 * Several processes on one KV file contend for SQLite's single writer, and Deno KV surfaces a
 * lost wait as an exception rather than waiting longer. A commit that threw it did not apply
 * (the transaction never started), so committing the same operation again is safe: its checks
 * are evaluated afresh. Done here, once, the ~60 commits across kv/ (many outside
 * `commitWithRetry`: leases, key creation, the event sequencer) all get it, instead of each
 * failing its request with a 503 under two-process load.
 */
export async function openKv(path?: string): Promise<Deno.Kv> {
  // Also carries the process's memo of parent pointers (kv/parent_memo.ts) for loadPath.
  return attachParentMemo(retryBusyCommits(await Deno.openKv(path)));
}

/** Makes every commit of `kv`'s atomic operations retry "database is locked" (see openKv). */
export function retryBusyCommits(kv: Deno.Kv): Deno.Kv {
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    const commitOnce = op.commit.bind(op);
    op.commit = () => commitPastBusy(commitOnce);
    return op;
  };
  return kv;
}

async function commitPastBusy(
  commitOnce: () => Promise<Deno.KvCommitResult | Deno.KvCommitError>,
): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
  const deadline = Date.now() + BUSY_RETRY_MS;
  for (let attempt = 0;; attempt++) {
    try {
      return await commitOnce();
    } catch (err) {
      if (!isTransientKvError(err) || Date.now() > deadline) throw err;
      currentRequestScope()?.commitObserver?.retry("busy");
      await backoff(attempt);
    }
  }
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
