/**
 * Where provider `list` answers are built, and how many at once.
 *
 * A `list` of 1,000 entries is mostly V8 turning the folder's records from KV into objects, then
 * into JSON: a few MiB of short-lived objects per answer. Sixteen clients listing at once, each
 * answer built as soon as it arrives, keep sixteen answers' objects alive across the KV reads
 * and V8 grows its heap to hold them. The pool admits `DRIVE_LIST_CONCURRENCY` listings per
 * building thread and queues the rest (p-limit; on the main thread these are `Deps.listingTurns`,
 * shared with the drive API's pages): 128 clients then peak where 16 do (277 MiB against 502-534
 * before), at the same or a better rate (docs/benchmarks-history.md, "Fifth pass").
 *
 * Listing workers (`DRIVE_LIST_WORKERS`): a Deno process runs all of its JavaScript on one
 * thread, so the pool can hand the build to worker threads, each with its own handle on the same
 * KV file, while the main thread keeps serving other requests ("Fourth pass"). Only for a KV
 * file: a `:memory:` store is private to its handle, and Deno Deploy has no workers, so there
 * (or with `DRIVE_LIST_WORKERS=0`) answers are built in-thread. The worker only reads; it starts
 * with the first listing. A worker that cannot answer (its KV handle failed to open, it died)
 * never fails a listing: the main thread answers it, the failure is logged, and a dead worker's
 * slot starts a new one with the next listing.
 */
import pLimit, { type LimitFunction } from "p-limit";
import { kvLocation } from "../config.ts";
import type { DirectoryListing } from "./entries.ts";
import { ProviderError } from "./responses.ts";
import { getLogger } from "@logtape/logtape";

export interface ListPool {
  /**
   * The `list` answer's JSON bytes once the listing's turn comes: built on a worker when there
   * are workers (a ProviderError as the worker threw it), else by `inThread`. When a worker
   * itself fails (it cannot open the KV file, it died), `inThread` answers instead and the
   * failure is logged: a listing never fails for want of a worker.
   */
  run(
    listing: DirectoryListing,
    inThread: () => Promise<Uint8Array<ArrayBuffer>>,
  ): Promise<Uint8Array<ArrayBuffer>>;
  /**
   * Listings being built now, and waiting for their turn (the metrics read these): this
   * thread's turns, which the drive API's listings share, and the workers'.
   */
  counts(): { building: number; waiting: number };
  close(): void;
}

/** A request to the worker, and its answer (list_worker.ts). */
export interface ListRequest {
  id: number;
  kvPath: string;
  listing: DirectoryListing;
}
export type ListAnswer =
  | { id: number; ok: true; bytes: Uint8Array<ArrayBuffer> }
  | { id: number; ok: false; status: number; message: string };

/**
 * The service's pool. `mainTurns` are this thread's listing turns (`Deps.listingTurns`, shared
 * with the drive API's listings); each worker gets as many. Workers only over a KV file; with
 * none (or another store) every answer is built in-thread, in one of `mainTurns`.
 */
export function openListPool(kvPath: string, workers: number, mainTurns: LimitFunction): ListPool {
  if (workers <= 0 || kvLocation(kvPath) !== "file") return inThreadPool(mainTurns);
  const turns = pLimit(mainTurns.concurrency * workers);
  const pending = new Map<number, {
    resolve(bytes: Uint8Array<ArrayBuffer>): void;
    reject(err: unknown): void;
  }>();
  // `workers` slots, each started with the first listing sent to it; listings go round-robin.
  const slots: (Worker | null)[] = Array.from({ length: workers }, () => null);
  let nextId = 1;
  let closed = false;

  const failAll = (err: unknown) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const start = (slot: number) => {
    const w = new Worker(new URL("./list_worker.ts", import.meta.url), { type: "module" });
    w.onmessage = (e: MessageEvent<ListAnswer>) => {
      const answer = e.data;
      const p = pending.get(answer.id);
      if (!p) return;
      pending.delete(answer.id);
      if (answer.ok) p.resolve(answer.bytes);
      else if (answer.status === 500) p.reject(new Error(answer.message));
      else p.reject(new ProviderError(answer.status, answer.message));
    };
    // A worker that died fails the pending listings (each a 500); its slot starts a new one.
    w.onerror = (e) => {
      e.preventDefault();
      if (slots[slot] === w) slots[slot] = null;
      w.terminate();
      failAll(new Error(`listing worker failed: ${e.message}`));
    };
    return w;
  };

  const onWorker = async (
    listing: DirectoryListing,
    inThread: () => Promise<Uint8Array<ArrayBuffer>>,
  ) => {
    // Listings still queued when the service stops are built in-thread: no worker starts again.
    if (closed) return await inThread();
    const id = nextId++;
    const slot = id % slots.length;
    const worker = slots[slot] ??= start(slot);
    try {
      return await new Promise<Uint8Array<ArrayBuffer>>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, kvPath, listing } satisfies ListRequest);
      });
    } catch (err) {
      if (err instanceof ProviderError) throw err;
      // Under the service's `drive` category (api/ops/logging.ts), as provider/responses.ts logs.
      getLogger(["drive", "provider"]).warning("listing worker failed; listing in-thread", {
        error: String(err),
      });
      return await inThread();
    }
  };

  return {
    run: (listing, inThread) => turns(() => onWorker(listing, inThread)),
    counts: () => {
      const [main, workers] = [countsOf(mainTurns), countsOf(turns)];
      return {
        building: main.building + workers.building,
        waiting: main.waiting + workers.waiting,
      };
    },
    close() {
      closed = true;
      for (const w of slots) w?.terminate();
      slots.fill(null);
      failAll(new Error("the listing worker was closed"));
    },
  };
}

/** No workers: each answer built on this thread, in one of its turns. */
function inThreadPool(turns: LimitFunction): ListPool {
  return {
    run: (_listing, inThread) => turns(inThread),
    counts: () => countsOf(turns),
    close() {},
  };
}

const countsOf = (turns: LimitFunction) => ({
  building: turns.activeCount,
  waiting: turns.pendingCount,
});
