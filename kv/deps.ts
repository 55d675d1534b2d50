import type { LimitFunction } from "p-limit";
import type { BlobStore } from "../blobs/store.ts";
import type { Config } from "../config.ts";
import type { IdAllocator } from "./db.ts";
import type { SecretsKey } from "./secrets_key.ts";

/** What every drive operation works on; built once by boot() in boot.ts and passed down. */
export interface Deps {
  kv: Deno.Kv;
  blobs: BlobStore;
  config: Config;
  /** Resource ids for this process (blocks reserved in KV; see openIdAllocator in db.ts). */
  ids: IdAllocator;
  /** The key sealing adapter secrets, resolved once per service (kv/secrets_key.ts). */
  secretsKey: SecretsKey;
  /**
   * This process's event-log runtime (kv/events/runtime.ts): the sequencer and the long-poll
   * wake-ups. Absent in domain tests, where events are still appended and the feed polls.
   */
  events?: EventLogHandle;
  /**
   * This process's cache of read-mostly identity facts (kv/identity/cache.ts), valid per request
   * against one epoch key read in the same snapshot as the request's first record. Absent in
   * domain tests, where every fact is read from KV.
   */
  identity?: FactCache;
  /**
   * Turns for building large listings on this thread: a drive API folder or trash page (up to
   * 1,000 entries) and a provider `list` answer each wait for one. A few build at once and the
   * rest queue, so the memory a listing load takes does not grow with its number of clients
   * (boot: p-limit of DRIVE_LIST_CONCURRENCY; provider/list_pool.ts). Absent in domain tests.
   */
  listingTurns?: LimitFunction;
}

/**
 * The identity fact cache by its shape (kv/identity/cache.ts implements it; this layer may not
 * import the domain). `read` returns `keys`' entries and the epoch from one snapshot; `fact`
 * answers from memory what was loaded at that epoch or later, else loads and keeps it.
 */
export interface FactCache {
  read(keys: Deno.KvKey[]): Promise<{ epoch: bigint; entries: Deno.KvEntryMaybe<unknown>[] }>;
  fact<T>(epoch: bigint, kind: string, id: string | number, load: () => Promise<T>): Promise<T>;
}

/**
 * The event log runtime by its shape (kv/events/runtime.ts's EventLog implements it; this layer
 * may not import the domain). `subscribe` hands over sequenced log entries as they arrive.
 */
export interface EventLogHandle {
  subscribe(listener: (entries: unknown[]) => void): () => void;
  sequenceNow(): Promise<void>;
  releaseLease(): Promise<void>;
  close(): void;
}
