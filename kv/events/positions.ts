/**
 * Positions in the event log and the cursors that carry them (docs/changes.md). A log entry sits
 * at `[event, versionstamp, n]`: the versionstamp of the commit that made the change (its commit
 * order on the KV) and its place within that commit. A cursor is that pair as 24 hex digits,
 * so cursors compare as strings in log order.
 */
import { fail } from "../errors.ts";

export interface EventPosition {
  /** The change commit's versionstamp (20 hex digits). */
  vs: string;
  /** The event's place within its commit. */
  n: number;
}

/** Places within one commit are below this; a cursor with it stands after the whole commit. */
export const WHOLE_COMMIT = 0xffff;

/** The position before every event. */
export const LOG_START: EventPosition = { vs: "0".repeat(20), n: 0 };

export function encodeCursor(p: EventPosition): string {
  return p.vs + p.n.toString(16).padStart(4, "0");
}

/** A cursor from a request; REQUEST_001 naming `field` when it is not one. */
export function decodeCursor(cursor: string, field = "cursor"): EventPosition {
  if (!/^[0-9a-f]{24}$/.test(cursor)) {
    fail("REQUEST_001", "cursor must be a cursor this API returned (24 hex digits)", field);
  }
  return { vs: cursor.slice(0, 20), n: parseInt(cursor.slice(20), 16) };
}

/** Negative, zero or positive as `a` is before, at or after `b`. */
export function comparePositions(a: EventPosition, b: EventPosition): number {
  if (a.vs !== b.vs) return a.vs < b.vs ? -1 : 1;
  return a.n - b.n;
}

/** The position of a log entry from its key `[event, versionstamp, n]`. */
export function positionOfKey(key: Deno.KvKey): EventPosition {
  return { vs: key[1] as string, n: key[2] as number };
}
