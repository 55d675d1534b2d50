/**
 * The sequencer: moves pending events (kv/events/log.ts) into the log `[event, versionstamp, n]`
 * in commit order, and is the only writer of the log. Every process runs one; a lease in KV
 * (`event_lease`, an expiry compared here, since expireIn deletes lazily) elects which one
 * moves events at a time. The others only watch the lease and take over when it lapses.
 *
 * Why no event can land behind a reader's cursor (docs/changes.md "Ordering"):
 * 1. A round reads the pending events in one read, which is one snapshot of the KV: every
 *    change committed before it is in it, and every change committed after it has a larger
 *    versionstamp than all of it (SQLite serializes commits; Deploy's KV gives commit versions
 *    above the read version). A backlog larger than one read (1,000) is not one snapshot, so
 *    then the round first commits a barrier (the lease renewed, versionstamp B), scans every
 *    page, and takes only the events with versionstamp < B, all of which committed before the
 *    scan began.
 * 2. The round moves them in versionstamp order, in batches whose commits check the lease is
 *    still the one this round read or wrote (and renew it). A deposed sequencer's batch fails;
 *    the next round (any process) continues in order.
 * 3. So the log grows only at its end: every event appended later has a larger position than
 *    every event a reader has already seen.
 *
 * The seam for webhooks: `afterSequenced` hooks get each batch's atomic operation and its events
 * before it commits, so they can add their own writes (a delivery record, `op.enqueue`) to the
 * same commit: an event is in the log if and only if its deliveries were queued.
 */
import {
  eventFloorKey,
  eventHeadKey,
  eventLeaseKey,
  eventLogKey,
  eventPendingKey,
} from "../keys.ts";
import type { DriveEvent } from "./log.ts";
import { comparePositions, type EventPosition, LOG_START, positionOfKey } from "./positions.ts";

export interface SequencerLease {
  holder: string;
  expiresAt: number;
}

/** Up to where retention removed the log; a cursor before it has missed events. */
interface EventFloor {
  position: EventPosition;
  removedAt: number;
}

/** One event as it entered the log. */
export interface SequencedEvent {
  position: EventPosition;
  event: DriveEvent;
}

/**
 * Called with each batch's atomic operation before it commits. A hook may add at most
 * 1000 - 2 * BATCH_EVENTS - 2 mutations (KV allows 1000 per commit; a batch uses up to 2 per
 * event, the head and the lease). A hook that throws fails the batch, which is retried by the
 * next round.
 */
export type AfterSequencedHook = (
  op: Deno.AtomicOperation,
  events: readonly SequencedEvent[],
) => void | Promise<void>;

const BATCH_EVENTS = 200;
/** How long a sequencer's lease lasts without renewal. */
export const LEASE_MS = 5_000;
/** Retention purge: at most this many removals per commit, and how often the leader runs it. */
const PURGE_BATCH = 500;
export const PURGE_EVERY_MS = 60 * 60 * 1000;

interface SequencerOptions {
  /** This process's id in the lease. */
  holder: string;
  retentionDays: number;
  afterSequenced: readonly AfterSequencedHook[];
}

type Pending = { key: Deno.KvKey; vs: string; n: number; event: DriveEvent };

/** At most this many pending entries are read in one snapshot (KV's limit for one read). */
const SNAPSHOT_READ = 1000;

/**
 * One round, when this process holds (or can take) the lease: move every pending event that is
 * known to have no earlier one still unseen into the log, in commit order. Returns how many it
 * moved, or null when another process holds the lease.
 */
export async function sequenceOnce(kv: Deno.Kv, opts: SequencerOptions): Promise<number | null> {
  const read = await kv.get<SequencerLease>(eventLeaseKey());
  const held = read.value !== null && read.value.expiresAt > Date.now();
  if (held && read.value!.holder !== opts.holder) return null;
  let lease: { key: Deno.KvKey; versionstamp: string | null } = read;
  const renewed = (): SequencerLease => ({ holder: opts.holder, expiresAt: Date.now() + LEASE_MS });

  // The common case: one read, one snapshot of the KV. Every change committed before it is in
  // it, every later one has a larger versionstamp, so all of it can move.
  let pending: Pending[] = [];
  for await (
    const e of kv.list<DriveEvent>({ prefix: eventPendingKey() }, {
      limit: SNAPSHOT_READ,
      batchSize: SNAPSHOT_READ,
    })
  ) pending.push({ key: e.key, vs: e.versionstamp, n: e.key[2] as number, event: e.value });
  if (pending.length === SNAPSHOT_READ) {
    // A backlog larger than one read: its pages are not one snapshot. A barrier commit (the
    // lease renewed) first; everything committed before it is visible to the scan after it,
    // and only that moves now.
    const barrier = await kv.atomic().check(lease).set(eventLeaseKey(), renewed()).commit();
    if (!barrier.ok) return null;
    lease = { key: eventLeaseKey(), versionstamp: barrier.versionstamp };
    pending = [];
    for await (const e of kv.list<DriveEvent>({ prefix: eventPendingKey() })) {
      if (e.versionstamp >= barrier.versionstamp) continue;
      pending.push({ key: e.key, vs: e.versionstamp, n: e.key[2] as number, event: e.value });
    }
  }
  if (pending.length === 0) {
    // Nothing to move: keep (or take over) the lease when it runs low.
    if (!held || read.value!.expiresAt - Date.now() < LEASE_MS / 2) {
      const ok = await kv.atomic().check(lease).set(eventLeaseKey(), renewed()).commit();
      if (!ok.ok) return null;
    }
    return 0;
  }
  pending.sort((a, b) => comparePositions(a, b));
  let moved = 0;
  for (let i = 0; i < pending.length; i += BATCH_EVENTS) {
    const batch = pending.slice(i, i + BATCH_EVENTS);
    // Checked against the lease as last read or written, and renewed: a sequencer that lost
    // the lease meanwhile fails here and moves nothing.
    const op = kv.atomic().check(lease).set(eventLeaseKey(), renewed());
    const events: SequencedEvent[] = [];
    for (const p of batch) {
      op.delete(p.key).set(eventLogKey(p.vs, p.n), p.event);
      events.push({ position: { vs: p.vs, n: p.n }, event: p.event });
    }
    op.set(eventHeadKey(), events[events.length - 1].position);
    for (const hook of opts.afterSequenced) await hook(op, events);
    const res = await op.commit();
    if (!res.ok) return moved;
    lease = { key: eventLeaseKey(), versionstamp: res.versionstamp };
    moved += batch.length;
  }
  return moved;
}

/** Gives up the lease when this process holds it, so another takes over at once. */
export async function releaseLease(kv: Deno.Kv, holder: string): Promise<void> {
  const lease = await kv.get<SequencerLease>(eventLeaseKey());
  if (lease.value?.holder !== holder) return;
  await kv.atomic().check(lease).delete(eventLeaseKey()).commit();
}

/**
 * Removes log entries older than `cutoffMs` (oldest first, stopping at the first newer one) and
 * raises the floor in the same commits. Returns how many it removed.
 */
export async function purgeExpiredEvents(kv: Deno.Kv, cutoffMs: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const old: Deno.KvKey[] = [];
    for await (
      const e of kv.list<DriveEvent>({ prefix: eventLogKey() }, { limit: PURGE_BATCH })
    ) {
      if (e.value.at >= cutoffMs) break;
      old.push(e.key);
    }
    if (old.length === 0) return removed;
    // Checked, so two processes purging at once never lower the floor.
    const cur = await kv.get<EventFloor>(eventFloorKey());
    const last = positionOfKey(old[old.length - 1]);
    const floor: EventFloor = {
      position: cur.value && comparePositions(cur.value.position, last) > 0
        ? cur.value.position
        : last,
      removedAt: Date.now(),
    };
    const op = kv.atomic().check(cur);
    for (const key of old) op.delete(key);
    op.set(eventFloorKey(), floor);
    if (!(await op.commit()).ok) continue;
    removed += old.length;
    if (old.length < PURGE_BATCH) return removed;
  }
}

/** The floor: every position at or before it has been removed (LOG_START when none was). */
export async function readFloor(kv: Deno.Kv): Promise<EventPosition> {
  return (await kv.get<EventFloor>(eventFloorKey())).value?.position ?? LOG_START;
}

/** The newest log position, or LOG_START for an empty log. */
export async function readHead(kv: Deno.Kv): Promise<EventPosition> {
  return (await kv.get<EventPosition>(eventHeadKey())).value ?? LOG_START;
}
