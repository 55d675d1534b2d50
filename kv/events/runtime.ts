/**
 * The event log's background work in one process, started by boot(): run the sequencer when
 * something is pending (kv/events/sequencer.ts), purge what retention ends, and wake the change
 * feed's long-polls when the log grows.
 *
 * How a process learns of a commit: one poller per process, a `getMany` of the tick, head and
 * lease keys every `pollMs` (200 ms, well inside the 2 s a long-poll on any host may wait). No
 * `kv.watch`: on a local SQLite file it does not see other processes' commits
 * (denoland/deno#21640), and every host must see the same thing on KV Connect and on Deploy.
 * It costs the same whatever the number of waiting clients: the head is read once per process,
 * the new entries are listed once, and every waiter gets them from memory (`subscribe`).
 *
 * Nothing here is needed for correctness: the log, its order and the lease are in KV, and a
 * process that stops only delays sequencing until its lease lapses (LEASE_MS).
 */
import { isTransientKvError } from "../db.ts";
import { eventHeadKey, eventLeaseKey, eventLogKey, eventTickKey } from "../keys.ts";
import type { EventLogHandle } from "../deps.ts";
import type { DriveEvent } from "./log.ts";
import { type EventPosition, positionOfKey } from "./positions.ts";
import {
  type AfterSequencedHook,
  LEASE_MS,
  PURGE_EVERY_MS,
  purgeExpiredEvents,
  readHead,
  releaseLease,
  type SequencedEvent,
  sequenceOnce,
  type SequencerLease,
} from "./sequencer.ts";

export interface EventLog extends EventLogHandle {
  /**
   * Calls `listener` with log entries as they are sequenced, from the moment of subscribing (a
   * delivery may also repeat entries from just before; compare positions). Returns unsubscribe.
   */
  subscribe(listener: (events: SequencedEvent[]) => void): () => void;
  /** Runs a sequencer round now (tests and benches; the process does it by itself). */
  sequenceNow(): Promise<void>;
  /**
   * Stops the background work; the caller closes KV right after. The lease is left to lapse
   * (LEASE_MS): releasing it would need KV after close. `releaseLease` hands it over at once.
   */
  close(): void;
  /** Gives up the sequencer lease now, so another process takes over without waiting. */
  releaseLease(): Promise<void>;
}

interface EventLogOptions {
  retentionDays: number;
  /** Hooks run in each sequencer batch commit (the webhook seam; see sequencer.ts). */
  afterSequenced?: readonly AfterSequencedHook[];
  /** How often to look for other processes' commits; default 200 ms. */
  pollMs?: number;
  /**
   * How long a tick waits before its sequencer round, so the commits of that window share one
   * round (one batch commit) instead of each costing a commit of its own; default 20 ms. A
   * round per commit halved sequential creates (every create became two commits).
   */
  batchMs?: number;
}

export async function openEventLog(kv: Deno.Kv, opts: EventLogOptions): Promise<EventLog> {
  const holder = crypto.randomUUID();
  const pollMs = opts.pollMs ?? 200;
  const batchMs = opts.batchMs ?? 20;
  const listeners = new Set<(events: SequencedEvent[]) => void>();
  let closed = false;
  let lastTick: string | null = null;
  let lastHeadStamp: string | null = null;
  // Where the last delivery to waiters ended (read first, so it is never unknown).
  let delivered: EventPosition = await readHead(kv);
  let lastPurge = 0;

  const report = (what: string) => (err: unknown) => {
    if (!closed) console.error(`event log: ${what} failed:`, err);
  };

  // One sequencer round at a time in this process; a wake during a round runs another after it.
  let sequencing: Promise<void> | null = null;
  let again = false;
  // Something may be pending that no round has moved yet (a tick seen, a round that failed).
  let dirty = true;
  const sequence = (): Promise<void> => {
    if (sequencing) {
      again = true;
      return sequencing;
    }
    sequencing = (async () => {
      do {
        again = false;
        dirty = false;
        const moved = await sequenceOnce(kv, {
          holder,
          retentionDays: opts.retentionDays,
          afterSequenced: opts.afterSequenced ?? [],
        });
        if (moved !== null && Date.now() - lastPurge > PURGE_EVERY_MS) {
          lastPurge = Date.now();
          await purgeExpiredEvents(kv, Date.now() - opts.retentionDays * 86_400_000);
        }
      } while (again && !closed);
    })().catch((err) => {
      // Tried again at the next poll; a busy SQLite file is not worth a log line.
      dirty = true;
      if (!isTransientKvError(err)) report("sequencing")(err);
    }).finally(() => {
      sequencing = null;
    });
    return sequencing;
  };

  // A round soon rather than now: the ticks of the next batchMs join it (see batchMs).
  let scheduled: ReturnType<typeof setTimeout> | null = null;
  const sequenceSoon = () => {
    if (scheduled !== null || closed) return;
    scheduled = setTimeout(() => {
      scheduled = null;
      sequence();
    }, batchMs);
  };

  // Hand the entries after the last delivered position to every subscriber, read once.
  let delivering = false;
  let redeliver = false;
  const deliver = async () => {
    if (delivering) {
      redeliver = true;
      return;
    }
    delivering = true;
    try {
      do {
        redeliver = false;
        if (listeners.size === 0) {
          // Nobody waits: only move the mark. A waiter that subscribed during the read scans
          // its own backlog after subscribing, but could end before this head: list instead.
          const head = await readHead(kv);
          if (listeners.size === 0) delivered = head;
          else redeliver = true;
          continue;
        }
        const events: SequencedEvent[] = [];
        const from = delivered;
        for await (
          const e of kv.list<DriveEvent>({
            prefix: eventLogKey(),
            start: eventLogKey(from.vs, from.n + 1),
          })
        ) {
          events.push({ position: positionOfKey(e.key), event: e.value });
        }
        if (events.length === 0) continue;
        delivered = events[events.length - 1].position;
        for (const listener of listeners) listener(events);
      } while (redeliver && !closed);
    } catch (err) {
      // The next poll delivers again from the same position.
      lastHeadStamp = null;
      if (!isTransientKvError(err)) report("waking long-polls")(err);
    } finally {
      delivering = false;
    }
  };

  /** Acts on what the tick, head and lease say now. */
  const look = (
    tick: Deno.KvEntryMaybe<unknown>,
    head: Deno.KvEntryMaybe<unknown>,
    lease: Deno.KvEntryMaybe<SequencerLease>,
  ) => {
    if (tick.versionstamp !== lastTick || dirty) {
      lastTick = tick.versionstamp;
      sequenceSoon();
    } else {
      // Nothing new: still keep the lease (renewed halfway) or take over a lapsed one.
      const l = lease.value;
      const mine = l?.holder === holder;
      if (!l || l.expiresAt < Date.now() || (mine && l.expiresAt - Date.now() < LEASE_MS / 2)) {
        sequence();
      }
    }
    if (head.versionstamp !== lastHeadStamp) {
      lastHeadStamp = head.versionstamp;
      deliver();
    }
  };

  const timer = setInterval(async () => {
    try {
      const [tick, head, lease] = await kv.getMany<[unknown, unknown, SequencerLease]>([
        eventTickKey(),
        eventHeadKey(),
        eventLeaseKey(),
      ]);
      if (!closed) look(tick, head, lease);
    } catch (err) {
      if (!isTransientKvError(err)) report("polling")(err);
    }
  }, pollMs);
  Deno.unrefTimer(timer);

  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async sequenceNow() {
      await sequence();
      if (again) await sequence();
    },
    close() {
      closed = true;
      clearInterval(timer);
      if (scheduled !== null) clearTimeout(scheduled);
    },
    releaseLease: () => releaseLease(kv, holder),
  };
}
