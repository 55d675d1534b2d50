/**
 * Recent: the files the caller can see that changed most recently, newest first (the web app's
 * Recent view). Read from the event log backwards, not from an index of its own: every content
 * change, upload, copy, rename, move and restore is already an event written in the change's
 * own commit, so Recent costs no extra write on the hot upload path and cannot drift from the
 * drive. The price is a bound: the log is shared by every user, so one request reads at most
 * MAX_SCAN of its newest entries, and a file whose last change is older than that (on a busy
 * service) or older than the event retention is not listed. For "what did I touch lately" that
 * is the right trade; the full drive stays sortable by modified time in its listing.
 */
import type { Caller } from "../identity/users.ts";
import { eventLogKey } from "../keys.ts";
import { type Access, accessIfVisible } from "../sharing/authorize.ts";
import { loadPath } from "../tree/resources.ts";
import type { DriveEvent, EventKind } from "../events/log.ts";

/** Log entries one request reads at most, newest first. */
export const MAX_SCAN = 5000;

/** The events that make a file "recent": its content or its place changed. */
const RECENT_KINDS: ReadonlySet<EventKind> = new Set([
  "created",
  "copied",
  "content_changed",
  "renamed",
  "moved",
  "restored",
]);

export interface RecentItem {
  access: Access;
  /** When the event that made it recent happened (ms since the epoch). */
  changedAt: number;
}

/**
 * Up to `limit` files `caller` can view now, by their newest change in the last MAX_SCAN log
 * entries, newest first; each file once. Trashed and purged files are skipped (loadPath).
 */
export async function listRecent(
  kv: Deno.Kv,
  caller: Caller,
  limit: number,
): Promise<RecentItem[]> {
  const seen = new Set<number>();
  const items: RecentItem[] = [];
  const iter = kv.list<DriveEvent>({ prefix: eventLogKey() }, {
    reverse: true,
    limit: MAX_SCAN,
    batchSize: 500,
  });
  for await (const { value: e } of iter) {
    const r = e.resource;
    if (!r || r.type !== "FILE" || !RECENT_KINDS.has(e.kind) || seen.has(r.rs)) continue;
    seen.add(r.rs);
    const access = await accessIfVisible(kv, caller, await loadPath(kv, r.rs));
    if (!access) continue;
    items.push({ access, changedAt: e.at });
    if (items.length >= limit) break;
  }
  return items;
}
