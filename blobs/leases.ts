/**
 * Writer leases: how the leftovers of a write tell "my process is alive" from "my process died".
 *
 * Each blob store instance (one per process) writes under a lease in KV, `[blob_lease, store,
 * writerId]`, and tags what a running write leaves around with its writer id (the fs store's
 * temp file names, the kv store's pending markers). While any of its writes runs, the writer
 * renews the lease every `renewMs`, each renewal promising `expiryMs` more. A process killed
 * mid-write (kill -9, out of memory, power loss) stops renewing, so its lease's `expiresAt`
 * passes; whatever carries its id is then abandoned and a sweep may remove it. A live write on
 * any process sharing the KV keeps its writer's lease current however slowly its client sends,
 * so no process ever removes it.
 *
 * One lease per writer, not per write: a running write costs no KV commit of its own, and a
 * busy process renews once per `renewMs` whatever its number of writes. When no write runs,
 * nothing is renewed and the lease lapses; the next write starts under a fresh writer id (one
 * commit) unless the current lease is still good for a while, so a write never runs under a
 * lease a sweeper could already be taking for dead.
 *
 * The writer stamps `expiresAt` and every other process compares it with its own clock, so the
 * processes' clocks must agree to well within `expiryMs`. Leases are stored with a KV expiry far
 * beyond `expiryMs`, so those of writers that are gone disappear by themselves; a missing lease
 * counts as lapsed. The caller hands in the key builder (boot() passes kv/keys.ts's), so the
 * byte stores import nothing from the data model above them.
 */

/** The stored lease of one writer. */
export interface WriterLease {
  /** When the writer last renewed it (ms). */
  renewedAt: number;
  /** Until when the writer promises to renew it again (ms); after that its writes are dead. */
  expiresAt: number;
}

export interface LeaseTiming {
  /** How often a writer with running writes renews its lease (ms). */
  renewMs: number;
  /** How far each renewal reaches (ms): the time after which a silent writer counts as dead. */
  expiryMs: number;
}

/** 10 s renewals promising 2 min: a dead writer's leftovers are recognised within 2 minutes. */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { renewMs: 10_000, expiryMs: 120_000 };

/** Leases of writers gone for this many expiry periods are dropped by KV itself. */
const KV_EXPIRY_FACTOR = 10;

/** Builds `[blob_lease, store, writerId]` keys, or prefixes with fewer parts. */
export type LeaseKeyOf = (store?: string, writerId?: string) => Deno.KvKey;

/** Writer ids: 32 lowercase hex digits, like blob ids. */
export const WRITER_ID = /^[0-9a-f]{32}$/;

/** The write ran under a lease that lapsed meanwhile, so a sweep may have removed its data. */
export class LeaseLostError extends Error {
  constructor(what: string) {
    super(`${what}: its writer's lease lapsed (a sweep may have taken it for abandoned)`);
  }
}

/** One running write's hold on its writer's lease. */
export interface WriteTerm {
  /** The writer id to tag the write's leftovers with. */
  readonly writerId: string;
  /** Throws LeaseLostError once the lease could not be kept. */
  check(): void;
  /** The write is over (finished or failed): renewals stop when no other write runs. */
  done(): Promise<void>;
}

export interface WriteLeases {
  readonly timing: LeaseTiming;
  /** Starts a write under this writer's lease (taking a fresh one when needed). */
  begin(): Promise<WriteTerm>;
  /**
   * A liveness check for one sweep: is writer `id`'s lease current? Each writer is looked up
   * once per checker.
   */
  liveness(): (writerId: string) => Promise<boolean>;
}

interface Writer {
  id: string;
  versionstamp: string;
  expiresAt: number;
  lost: boolean;
}

function newWriterId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * The leases of one blob store instance (`store` keeps the fs and kv stores' leases apart on one
 * KV). Timers run only while writes do, and are unref'd: a lease never keeps a process alive.
 */
export function openWriteLeases(
  kv: Deno.Kv,
  keyOf: LeaseKeyOf,
  store: "fs" | "kv" | "s3",
  timing: LeaseTiming = DEFAULT_LEASE_TIMING,
): WriteLeases {
  const expireIn = timing.expiryMs * KV_EXPIRY_FACTOR;
  const lease = (): WriterLease => {
    const now = Date.now();
    return { renewedAt: now, expiresAt: now + timing.expiryMs };
  };

  /** The current writer: its id, the lease as last written, and whether it was lost. */
  let writer: Writer | null = null;
  let running = 0;
  let timer: number | null = null;
  let renewal: Promise<void> | null = null;

  const renewOnce = async () => {
    const current = writer;
    if (!current || current.lost) return;
    const key = keyOf(store, current.id);
    const next = lease();
    try {
      const res = await kv.atomic().check({ key, versionstamp: current.versionstamp })
        .set(key, next, { expireIn }).commit();
      if (res.ok) {
        current.versionstamp = res.versionstamp;
        current.expiresAt = next.expiresAt;
      } else {
        // Only KV's own expiry removes a lease (after many periods of silence): this writer
        // was paused that long, and its writes may have been swept.
        current.lost = true;
      }
    } catch {
      // KV unreachable for a moment: the next renewal tries again, and the lease reaches
      // several renewal periods ahead.
    }
  };
  // One renewal at a time.
  const renew = (): Promise<void> =>
    renewal ??= renewOnce().finally(() => {
      renewal = null;
    });

  const startWriter = async () => {
    const id = newWriterId();
    const key = keyOf(store, id);
    const first = lease();
    const res = await kv.atomic().check({ key, versionstamp: null })
      .set(key, first, { expireIn }).commit();
    if (!res.ok) throw new Error(`writer id ${id} is already leased`);
    writer = { id, versionstamp: res.versionstamp, expiresAt: first.expiresAt, lost: false };
    return writer;
  };
  let starting: Promise<Writer> | null = null;
  /**
   * The current writer when its lease stays good until the next renewal at the latest (a write
   * must never start under a lease a sweeper may already count as lapsed), else a fresh one;
   * writes that begin together share it.
   */
  const currentWriter = () => {
    if (writer && !writer.lost && Date.now() + 2 * timing.renewMs < writer.expiresAt) {
      return Promise.resolve(writer);
    }
    return starting ??= startWriter().finally(() => {
      starting = null;
    });
  };

  return {
    timing,

    async begin(): Promise<WriteTerm> {
      const mine = await currentWriter();
      running++;
      if (timer === null) {
        timer = Number(setInterval(renew, timing.renewMs));
        Deno.unrefTimer(timer);
      }
      let over = false;
      return {
        writerId: mine.id,
        check() {
          if (mine.lost || Date.now() >= mine.expiresAt) {
            throw new LeaseLostError(`a write of writer ${mine.id}`);
          }
        },
        async done() {
          if (over) return;
          over = true;
          if (--running === 0 && timer !== null) {
            clearInterval(timer);
            timer = null;
            // No KV call outlives the last write.
            await renewal;
          }
        },
      };
    },

    liveness() {
      const known = new Map<string, Promise<boolean>>();
      return (writerId: string) => {
        let live = known.get(writerId);
        if (!live) {
          live = kv.get<WriterLease>(keyOf(store, writerId)).then((e) =>
            e.value !== null && e.value.expiresAt >= Date.now()
          );
          known.set(writerId, live);
        }
        return live;
      };
    },
  };
}

/**
 * Removes an abandoned write: its marker is marked taken first, so a writer that was only paused
 * can no longer clear it and publish what `cleanup` removes; then `cleanup`, then the marker. A
 * sweep dying half-way leaves it taken, and the next sweep finishes. False: the marker changed
 * meanwhile (its writer came back), nothing removed.
 */
export async function removeTakenWrite<T extends object>(
  kv: Deno.Kv,
  marker: Deno.KvEntry<T>,
  cleanup: () => Promise<void>,
): Promise<boolean> {
  const res = await kv.atomic().check(marker).set(marker.key, { ...marker.value, taken: true })
    .commit();
  if (!res.ok) return false;
  await cleanup();
  await kv.atomic().check({ key: marker.key, versionstamp: res.versionstamp }).delete(marker.key)
    .commit();
  return true;
}
