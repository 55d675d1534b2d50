/**
 * The change feed: the event log as one caller may see it (docs/changes.md). A caller sees the
 * changes in their own drive, the changes to resources shared with them (as they can see them
 * when the feed is read), and gaining or losing access through a share as changes of their own.
 * Reads and admin actions (AUDIT_KINDS) are the activity log's, never the feed's.
 */
import type { Caller } from "../identity/users.ts";
import { fail } from "../errors.ts";
import { eventLogKey } from "../keys.ts";
import { accessIfVisible } from "../sharing/authorize.ts";
import { loadPath } from "../tree/resources.ts";
import {
  AUDIT_KINDS,
  barrierVersionstamp,
  type DriveEvent,
  type EventKind,
} from "../events/log.ts";
import {
  comparePositions,
  encodeCursor,
  type EventPosition,
  positionOfKey,
  WHOLE_COMMIT,
} from "../events/positions.ts";
import { readFloor, type SequencedEvent } from "../events/sequencer.ts";
import type { EventLog } from "../events/runtime.ts";
import type { EventLogHandle } from "../deps.ts";

/** How many log entries one feed request reads at most, whatever it finds visible. */
const MAX_SCAN = 2000;

/** A change as the feed shows it: the event, with access changes named as such. */
type ChangeKind =
  | Exclude<EventKind, "downloaded" | "link_opened" | "admin_action">
  | (
    "access_gained" | "access_lost"
  );

export interface Change extends Omit<DriveEvent, "kind" | "tenantId"> {
  kind: ChangeKind;
  /** The position just after this change (resume here to skip it). */
  cursor: string;
}

interface ChangesPage {
  items: Change[];
  /** Where to resume: after the last entry read (visible or not). */
  cursor: string;
  /** Whether the log holds more entries after `cursor` right now. */
  hasMore: boolean;
}

/** The current position: every change committed before this call is behind it. */
export async function currentCursor(kv: Deno.Kv): Promise<string> {
  return encodeCursor({ vs: await barrierVersionstamp(kv), n: WHOLE_COMMIT });
}

/** 410 CHANGES_001 when retention removed events after `from`. */
async function assertCursorLive(kv: Deno.Kv, from: EventPosition): Promise<void> {
  if (comparePositions(from, await readFloor(kv)) < 0) {
    fail(
      "CHANGES_001",
      "The cursor is older than the event retention window; list again and take a new cursor",
      "cursor",
    );
  }
}

/** One page of the caller's changes after `from`. */
export async function readChanges(
  kv: Deno.Kv,
  caller: Caller,
  from: EventPosition,
  pageSize: number,
): Promise<ChangesPage> {
  await assertCursorLive(kv, from);
  const view = new CallerView(kv, caller);
  const items: Change[] = [];
  let last = from;
  let scanned = 0;
  let hasMore = false;
  for await (const e of listAfter(kv, from, MAX_SCAN + 1)) {
    if (items.length >= pageSize || scanned >= MAX_SCAN) {
      hasMore = true;
      break;
    }
    scanned++;
    last = positionOfKey(e.key);
    const change = await view.changeOf(e.value, last);
    if (change) items.push(change);
  }
  return { items, cursor: encodeCursor(last), hasMore };
}

/**
 * Whether a change visible to the caller is after `from`, waiting up to `timeoutMs` for one to
 * commit (on any process). The process's EventLog wakes waiters with the new entries it read
 * once for all of them.
 */
export async function waitForChanges(
  kv: Deno.Kv,
  log: EventLogHandle,
  caller: Caller,
  from: EventPosition,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<boolean> {
  await assertCursorLive(kv, from);
  const view = new CallerView(kv, caller);
  let seen = from;
  const queue: SequencedEvent[][] = [];
  let wake: (() => void) | null = null;
  const unsubscribe = (log as EventLog).subscribe((events) => {
    queue.push(events);
    wake?.();
  });
  const deadline = Date.now() + timeoutMs;
  const onAbort = () => wake?.();
  signal?.addEventListener("abort", onAbort);
  try {
    // Subscribed first, then the backlog: whatever enters the log meanwhile is in the queue.
    for await (const e of listAfter(kv, from)) {
      seen = positionOfKey(e.key);
      if (await view.changeOf(e.value, seen)) return true;
    }
    while (!signal?.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      if (queue.length === 0) {
        // Until new entries arrive, the deadline, or the client goes (the abort wakes it too).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => wake?.(), left);
          wake = () => {
            clearTimeout(timer);
            wake = null;
            resolve();
          };
        });
      }
      const batches = queue.splice(0);
      for (const batch of batches) {
        for (const { position, event } of batch) {
          if (comparePositions(position, seen) <= 0) continue;
          seen = position;
          if (await view.changeOf(event, position)) return true;
        }
      }
    }
    return false;
  } finally {
    unsubscribe();
    signal?.removeEventListener("abort", onAbort);
  }
}

function listAfter(kv: Deno.Kv, from: EventPosition, limit?: number) {
  return kv.list<DriveEvent>(
    { prefix: eventLogKey(), start: eventLogKey(from.vs, from.n + 1) },
    { limit },
  );
}

/**
 * What one caller sees of events, remembering per request which other users' resources they
 * can see (the same resource is asked about once).
 */
class CallerView {
  private readonly visible = new Map<number, Promise<boolean>>();
  constructor(private readonly kv: Deno.Kv, private readonly caller: Caller) {}

  /** The event as the caller's change, or null when it is not theirs to see. */
  async changeOf(event: DriveEvent, position: EventPosition): Promise<Change | null> {
    const kind = await this.kindFor(event);
    if (!kind) return null;
    const { tenantId: _tenant, kind: _kind, ...rest } = event;
    return { ...rest, kind, cursor: encodeCursor(position) };
  }

  private async kindFor(e: DriveEvent): Promise<ChangeKind | null> {
    if (AUDIT_KINDS.has(e.kind)) return null;
    const me = this.caller.userSeq;
    const r = e.resource;
    if (!r) return null;
    if (e.kind === "pin_added" || e.kind === "pin_removed") {
      return e.detail?.userSeq === me ? e.kind as ChangeKind : null;
    }
    if (r.ownerSeq === me || e.before?.ownerSeq === me) return e.kind as ChangeKind;
    if (e.share) {
      if (e.share.gained?.includes(me)) return "access_gained";
      if (e.share.lost?.includes(me)) return "access_lost";
      // A recipient who keeps access sees the share change (share.changed: whose permissions).
      if (e.share.kept?.includes(me)) return e.kind as ChangeKind;
      return null;
    }
    // Another user's resource: shown while the caller can see it, or (gone to the trash, purged
    // or moved away) could see where it was.
    if (await this.canSee(r.rs)) return e.kind as ChangeKind;
    const from = e.before?.parentRs ?? r.parentRs;
    if (from !== null && e.kind !== "created" && e.kind !== "copied" && await this.canSee(from)) {
      return e.kind as ChangeKind;
    }
    return null;
  }

  private canSee(resourceSeq: number): Promise<boolean> {
    let known = this.visible.get(resourceSeq);
    if (!known) {
      known = loadPath(this.kv, resourceSeq).then((p) => accessIfVisible(this.kv, this.caller, p))
        .then((a) => a !== null);
      this.visible.set(resourceSeq, known);
    }
    return known;
  }
}
