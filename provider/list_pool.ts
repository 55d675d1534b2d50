/**
 * The listing worker: a provider `list` of 1,000 entries spends most of its CPU turning the
 * folder's records from KV into JSON (V8 deserialization of each record, then the answer), and a
 * Deno process runs all of its JavaScript on one thread. Handing that part to a worker thread
 * with its own handle on the same KV file lets a second core do it while the main thread keeps
 * serving other requests. Measured in docs/benchmarks.md ("Fourth pass").
 *
 * Only for a KV file: a `:memory:` store is private to its handle, and Deno Deploy has no
 * workers, so there (or with `DRIVE_LIST_WORKERS=0`) `list` builds its answer in-thread. The
 * worker only reads; it starts with the first listing. A worker that cannot answer (its KV handle
 * failed to open, it died) never fails a listing: the main thread answers it, the failure is
 * logged, and a dead worker's slot starts a new one with the next listing.
 */
import { kvLocation } from "../config.ts";
import type { DirectoryListing } from "./entries.ts";
import { ProviderError } from "./responses.ts";
import { getLogger } from "@logtape/logtape";

export interface ListPool {
  /**
   * The `list` answer's JSON bytes, built on a worker; a ProviderError as the worker threw it.
   * When the worker itself fails (it cannot open the KV file, it died), `inThread` answers
   * instead and the failure is logged: a listing never fails for want of a worker.
   */
  run(
    listing: DirectoryListing,
    inThread: () => Promise<Uint8Array<ArrayBuffer>>,
  ): Promise<Uint8Array<ArrayBuffer>>;
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

/** Null when listings stay in-thread: no KV file, or `workers` is 0. */
export function openListPool(kvPath: string, workers: number): ListPool | null {
  if (workers <= 0 || kvLocation(kvPath) !== "file") return null;
  const pending = new Map<number, {
    resolve(bytes: Uint8Array<ArrayBuffer>): void;
    reject(err: unknown): void;
  }>();
  // `workers` slots, each started with the first listing sent to it; listings go round-robin.
  const slots: (Worker | null)[] = Array.from({ length: workers }, () => null);
  let nextId = 1;

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

  return {
    async run(listing, inThread) {
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
    },
    close() {
      for (const w of slots) w?.terminate();
      slots.fill(null);
      failAll(new Error("the listing worker was closed"));
    },
  };
}
