/**
 * What every drive operation works on (`Deps`), and the one way to build it (`createDeps`):
 * boot, the admin CLI, kv/testing.ts, the tests and the benches all call it, so every field is
 * always there and no production code has a branch for "absent in tests". kv/deps_test.ts holds
 * the brand below to that: a Deps written out by hand does not type-check.
 */
import pLimit, { type LimitFunction } from "p-limit";
import type { BlobStore } from "../blobs/store.ts";
import type { Config } from "../config.ts";
import { type IdAllocator, openIdAllocator } from "./db.ts";
import { identityEpochKey } from "./keys.ts";
import { openSecretsKey, type SecretsKey } from "./secrets_key.ts";
import { type OfficeConverter, openOfficeConverter } from "../lib/office_converter.ts";

/** Only createDeps can name it, so only createDeps (or a spread of its result) makes a Deps. */
const BUILT_BY_CREATE_DEPS: unique symbol = Symbol("built by createDeps");

export interface Deps {
  readonly [BUILT_BY_CREATE_DEPS]: true;
  kv: Deno.Kv;
  blobs: BlobStore;
  config: Config;
  /** Resource ids for this process (blocks reserved in KV; see openIdAllocator in db.ts). */
  ids: IdAllocator;
  /** The key sealing adapter secrets, resolved once per service (kv/secrets_key.ts). */
  secretsKey: SecretsKey;
  /**
   * This process's event-log runtime: a server's sequencer and long-poll wake-ups
   * (kv/events/runtime.ts, given by boot), else `passiveEventLog`.
   */
  events: EventLogHandle;
  /**
   * Read-mostly identity facts, valid per request against one epoch key read in the same
   * snapshot as the request's first record: a server's cache (kv/identity/cache.ts, given by
   * boot), else `uncachedFacts`, which loads every fact from KV.
   */
  identity: FactCache;
  /**
   * Turns for building large listings on this thread: a drive API folder or trash page (up to
   * 1,000 entries) and a provider `list` answer each wait for one. A few build at once and the
   * rest queue, so the memory a listing load takes does not grow with its number of clients
   * (p-limit of DRIVE_LIST_CONCURRENCY; provider/list_pool.ts).
   */
  listingTurns: LimitFunction;
  /**
   * Turns for a user's password hash (sign-in, setting a password): scrypt runs on libuv's thread
   * pool, but with every core hashing the event loop still starves for CPU, so at most one core
   * less than the machine has hashes at once and the rest queue (docs/benchmarks.md, sign-in).
   */
  passwordTurns: LimitFunction;
  /**
   * Office documents to PDF for previews (lib/office_converter.ts): a pool of long-lived
   * LibreOffice processes, started on the first preview; boot's close stops them.
   */
  officeConverter: OfficeConverter;
  /** Turns for making a thumbnail: libvips decodes on its own threads, a few images at once. */
  thumbnailTurns: LimitFunction;
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

/** What createDeps may be given instead of its defaults (boot gives the serving runtime). */
type DepsOverrides = Partial<Omit<Deps, typeof BUILT_BY_CREATE_DEPS | "kv" | "blobs">>;

/** Builds the Deps of one service (or CLI run, or test) over its opened stores. */
export function createDeps(
  config: Config,
  stores: { kv: Deno.Kv; blobs: BlobStore },
  overrides: DepsOverrides = {},
): Deps {
  const { kv, blobs } = stores;
  return {
    [BUILT_BY_CREATE_DEPS]: true,
    kv,
    blobs,
    config,
    ids: openIdAllocator(kv),
    secretsKey: openSecretsKey(config),
    events: passiveEventLog,
    identity: uncachedFacts(kv),
    listingTurns: pLimit(config.listConcurrency),
    passwordTurns: pLimit(Math.max(1, navigator.hardwareConcurrency - 1)),
    officeConverter: openOfficeConverter({
      soffice: config.previewSoffice,
      workers: config.previewWorkers,
      queue: config.previewQueue,
      timeoutMs: config.previewTimeoutMs,
    }),
    thumbnailTurns: pLimit(Math.max(1, navigator.hardwareConcurrency)),
    ...overrides,
  };
}

/**
 * The event log of a process that serves nothing (the admin CLI, domain tests and benches): it
 * appends events like any other and leaves sequencing them to the servers, whose rounds also
 * run the webhook hook boot installs (a round here would skip it). Nobody long-polls its
 * change feed, so it has nothing to deliver.
 */
const passiveEventLog: EventLogHandle = {
  subscribe: () => () => {},
  sequenceNow: () => Promise.resolve(),
  releaseLease: () => Promise.resolve(),
  close: () => {},
};

/** Identity facts read from KV on every call: what a cache answers, with no memory kept. */
function uncachedFacts(kv: Deno.Kv): FactCache {
  return {
    async read(keys) {
      const [epochEntry, ...entries] = await kv.getMany([identityEpochKey(), ...keys]);
      return { epoch: (epochEntry.value as Deno.KvU64 | null)?.value ?? 0n, entries };
    },
    fact: (_epoch, _kind, _id, load) => load(),
  };
}
