/**
 * The activity log for administrators (docs/changes.md "Activity"): the event log newest first,
 * changes and audit entries (downloads, link opens, admin actions) alike, filtered by tenant,
 * user, resource, kind and time, paged by cursor. A page reads at most MAX_SCAN log entries, so
 * a narrow filter over a long log answers a short (even empty) page with a cursor to go on.
 */
import { eventLogKey } from "../keys.ts";
import type { DriveEvent, EventKind } from "./log.ts";
import { decodeCursor, encodeCursor, positionOfKey } from "./positions.ts";

const MAX_SCAN = 5000;

interface ActivityFilter {
  tenantId?: number;
  /** The actor's user seq, or the owner of the resource concerned. */
  userSeq?: number;
  rs?: number;
  kinds?: readonly EventKind[];
  /** Admin actions by name (detail.action: key_issued, quota_changed, ...). */
  actions?: readonly string[];
  /** ms since the epoch, inclusive. */
  from?: number;
  /** ms since the epoch, exclusive. */
  to?: number;
}

interface ActivityEntry extends DriveEvent {
  /** The entry's log position (also where the next page, older entries, starts). */
  id: string;
}

interface ActivityPage {
  items: ActivityEntry[];
  /** Send as cursor for older entries; null when the log has none left. */
  nextCursor: string | null;
}

function matches(e: DriveEvent, f: ActivityFilter): boolean {
  if (f.tenantId !== undefined && e.tenantId !== f.tenantId) return false;
  if (
    f.userSeq !== undefined && e.actor.userSeq !== f.userSeq &&
    e.resource?.ownerSeq !== f.userSeq
  ) return false;
  if (f.rs !== undefined && e.resource?.rs !== f.rs) return false;
  if (f.kinds && !f.kinds.includes(e.kind)) return false;
  if (f.actions) {
    const action = e.kind === "admin_action" ? e.detail?.action : undefined;
    if (typeof action !== "string" || !f.actions.includes(action)) return false;
  }
  if (f.from !== undefined && e.at < f.from) return false;
  if (f.to !== undefined && e.at >= f.to) return false;
  return true;
}

/** One page, newest first, of the entries before `cursor` (the newest when absent). */
export async function listActivity(
  kv: Deno.Kv,
  filter: ActivityFilter,
  opts: { pageSize: number; cursor?: string },
): Promise<ActivityPage> {
  const before = opts.cursor ? decodeCursor(opts.cursor) : null;
  const selector = before
    ? { prefix: eventLogKey(), end: eventLogKey(before.vs, before.n) }
    : { prefix: eventLogKey() };
  const items: ActivityEntry[] = [];
  let last: string | null = null;
  let scanned = 0;
  for await (const e of kv.list<DriveEvent>(selector, { reverse: true, limit: MAX_SCAN + 1 })) {
    if (items.length >= opts.pageSize || scanned >= MAX_SCAN) {
      return { items, nextCursor: last };
    }
    // The log is in commit order, which follows time closely: older than `from` ends it.
    if (filter.from !== undefined && e.value.at < filter.from - CLOCK_SLACK_MS) break;
    scanned++;
    last = encodeCursor(positionOfKey(e.key));
    if (matches(e.value, filter)) items.push({ ...e.value, id: last });
  }
  return { items, nextCursor: null };
}

/** Processes' clocks differ a little; an entry's time may be that much out of commit order. */
const CLOCK_SLACK_MS = 60_000;
