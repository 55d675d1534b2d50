/**
 * Appending to the event log (docs/changes.md). Every state change adds its event to its own
 * atomic operation with `appendEvent`, so the event commits exactly when the change does: no
 * change without its event, no event without its change.
 *
 * Deno KV cannot put a commit's versionstamp into a key, so the change writes the event under
 * `[event_pending, commitId, n]` (n: its place within the commit) plus a blind set of
 * `[event_tick]` that wakes the sequencer. The pending entry's versionstamp is the commit's,
 * which is the commit order across every process on the KV; kv/events/sequencer.ts moves pending
 * entries into the log `[event, versionstamp, n]` in that order.
 *
 * This module imports only the key table, so the tree and sharing modules can call it without a
 * cycle; the resource shape below is structural for the same reason.
 */
import { currentRequestScope } from "../../lib/request_scope.ts";
import { driveLogger } from "../../lib/logger.ts";
import { commit, commitWithRetry } from "../db.ts";
import { eventPendingKey, eventTickKey } from "../keys.ts";
import { type EventActor, eventActor } from "./actor.ts";

const log = driveLogger("events");

/** A dropped audit entry is told at warning once per this period (per KV), with the count. */
const DROPPED_AUDIT_WARN_MS = 10 * 60_000;

/** Every kind of event, in docs/changes.md's order. */
export const EVENT_KINDS = [
  // Resources (writeResource in kv/tree/resources.ts)
  "created",
  "copied",
  "content_changed",
  "renamed",
  "moved",
  "trashed",
  "restored",
  "purged",
  // Locks (kv/tree/locks.ts)
  "locked",
  "unlocked",
  // Shares and links (kv/sharing/share_writes.ts)
  "share_created",
  "share_changed",
  "share_removed",
  "recipients_changed",
  "link_created",
  "link_removed",
  // Link visitors (kv/sharing/shared_list.ts): a signed-in user opened a link and the resource
  // joined their shared-with-me list; the link went and those list entries with it.
  "link_joined",
  "link_visitors_removed",
  // Pins (kv/sharing/pins.ts)
  "pin_added",
  "pin_removed",
  // Audit reads and admin actions: in the activity log, never in the change feed
  "downloaded",
  "link_opened",
  "admin_action",
  // Sign-in and credentials (api/http/account_events.ts): `detail.action` names it
  "account",
] as const;
export type EventKind = typeof EVENT_KINDS[number];

/** Kinds that record a read or an admin action rather than a change of the drive. */
export const AUDIT_KINDS: ReadonlySet<EventKind> = new Set([
  "downloaded",
  "link_opened",
  "admin_action",
  "account",
]);

/** What an event says about the resource it concerns (after the change; before it for purged). */
interface EventResource {
  rs: number;
  type: "FILE" | "FOLDER";
  name: string;
  parentRs: number | null;
  ownerSeq: number;
  /** Content version and size, for files. */
  version?: number;
  size?: number;
}

/** Where a renamed or moved resource was before. */
interface EventBefore {
  name: string;
  parentRs: number | null;
  ownerSeq: number;
}

/** A share event: the share and whose access it changed. */
export interface EventShare {
  shareSeq: number;
  type: string;
  /** Users who can now reach the resource through this share (SPECIFIC_USERS recipients). */
  gained?: number[];
  /** Users who no longer can. */
  lost?: number[];
  /**
   * Recipients who could reach it before and still can (share_changed, recipients_changed):
   * the change feed shows them the event.
   */
  kept?: number[];
  /** Those of `kept` whose permissions (or the share's expiry) changed. */
  changed?: number[];
}

export interface DriveEvent {
  kind: EventKind;
  /** ms since the epoch, when the change was built (the log order is the commit order). */
  at: number;
  /** The tenant whose data changed (the resource owner's), or null (admin actions on none). */
  tenantId: number | null;
  actor: EventActor;
  resource?: EventResource;
  before?: EventBefore;
  share?: EventShare;
  /** Small facts of audit entries and locks: download kind, admin action, lock holder. */
  detail?: Record<string, string | number | boolean | null>;
}

/** The structural subset of kv/tree/resources.ts's Resource that events read. */
interface ResourceState {
  rs: number;
  ownerSeq: number;
  tenantId: number;
  parentRs: number | null;
  name: string;
  type: "FILE" | "FOLDER";
  size: number;
  version: number;
  trashedAt: number | null;
}

/** Per atomic operation: its commit id and how many events it holds (WeakMap: nothing leaks). */
const commitIds = new WeakMap<Deno.AtomicOperation, { id: string; n: number }>();

/** Adds `event` to `op`: the pending entry, and (once per operation) the sequencer's tick. */
export function appendEvent(op: Deno.AtomicOperation, event: DriveEvent): void {
  let slot = commitIds.get(op);
  if (!slot) {
    slot = { id: crypto.randomUUID(), n: 0 };
    commitIds.set(op, slot);
    op.set(eventTickKey(), slot.id);
  }
  op.set(eventPendingKey(slot.id, slot.n++), event);
}

/** Per KV handle: audit entries dropped since the last warning about them (WeakMap: no leak). */
const droppedAudits = new WeakMap<Deno.Kv, { since: number; warnedAt: number }>();

/**
 * Records an audit entry (a read or an admin action) in a commit of its own, best effort: the
 * read or change it reports has happened, and a full disk or an overloaded KV must not turn a
 * download into an error. A dropped entry is counted (drive_audit_writes_dropped_total) and
 * logged at warning, once per DROPPED_AUDIT_WARN_MS, so a full disk does not flood the log.
 */
async function recordAudit(
  kv: Deno.Kv,
  event: Omit<DriveEvent, "at" | "actor"> & { actorSeq?: number | null },
): Promise<void> {
  const { actorSeq, ...rest } = event;
  const entry: DriveEvent = { ...rest, at: Date.now(), actor: eventActor(actorSeq ?? null) };
  try {
    // A blind write cannot fail a check; commitWithRetry retries a busy SQLite file.
    await commitWithRetry(async () => {
      const op = kv.atomic();
      appendEvent(op, entry);
      return await commit(op);
    });
  } catch (err) {
    currentRequestScope()?.commitObserver?.auditDropped?.();
    const dropped = droppedAudits.get(kv) ?? { since: 0, warnedAt: 0 };
    dropped.since++;
    droppedAudits.set(kv, dropped);
    if (Date.now() - dropped.warnedAt < DROPPED_AUDIT_WARN_MS) return;
    log.warn("an audit entry could not be written and was dropped", {
      kind: entry.kind,
      dropped: dropped.since,
      error: String(err),
    });
    dropped.since = 0;
    dropped.warnedAt = Date.now();
  }
}

export function eventResource(r: ResourceState): EventResource {
  const out: EventResource = {
    rs: r.rs,
    type: r.type,
    name: r.name,
    parentRs: r.parentRs,
    ownerSeq: r.ownerSeq,
  };
  if (r.type === "FILE") {
    out.version = r.version;
    out.size = r.size;
  }
  return out;
}

/** A hint a caller gives when before/after alone cannot tell (a new file that is a copy). */
export type ResourceEventHint = "copy";

/**
 * The event of a resource going from `before` to `after` (either may be null), or null when
 * nothing an event reports changed (e.g. only a listing field).
 */
export function resourceEvent(
  before: ResourceState | null,
  after: ResourceState | null,
  actorSeq: number | null,
  hint?: ResourceEventHint,
): DriveEvent | null {
  const kind = resourceEventKind(before, after, hint);
  if (!kind) return null;
  const subject = (after ?? before)!;
  const event: DriveEvent = {
    kind,
    at: Date.now(),
    tenantId: subject.tenantId,
    actor: eventActor(actorSeq),
    resource: eventResource(subject),
  };
  if (before && after && (kind === "renamed" || kind === "moved")) {
    event.before = { name: before.name, parentRs: before.parentRs, ownerSeq: before.ownerSeq };
  }
  return event;
}

function resourceEventKind(
  before: ResourceState | null,
  after: ResourceState | null,
  hint?: ResourceEventHint,
): EventKind | null {
  if (!before && !after) return null;
  if (!before) return hint === "copy" ? "copied" : "created";
  if (!after) return "purged";
  if (before.trashedAt === null && after.trashedAt !== null) return "trashed";
  if (before.trashedAt !== null && after.trashedAt === null) return "restored";
  if (after.version !== before.version) return "content_changed";
  if (after.parentRs !== before.parentRs || after.ownerSeq !== before.ownerSeq) return "moved";
  if (after.name !== before.name) return "renamed";
  return null;
}

/**
 * A barrier commit: every change committed before it has a smaller versionstamp, every later
 * one a larger. The change feed's "current position" is this versionstamp.
 */
export async function barrierVersionstamp(kv: Deno.Kv): Promise<string> {
  // A blind set never fails a check.
  return (await kv.set(eventTickKey(), "cursor")).versionstamp;
}

/** How a download reached the bytes, for its audit entry. */
type DownloadVia = "direct" | "view" | "token" | "link" | "zip" | "version";

/** Records a download (or an inline view) of `resource` in the activity log. */
export function recordDownload(
  kv: Deno.Kv,
  resource: ResourceState,
  via: DownloadVia,
  actorSeq: number | null,
): Promise<void> {
  return recordAudit(kv, {
    kind: "downloaded",
    tenantId: resource.tenantId,
    actorSeq,
    resource: eventResource(resource),
    detail: { via },
  });
}

/** Records an admin action (`action`: e.g. key_issued, quota_changed) in the activity log. */
export function recordAdminAction(
  kv: Deno.Kv,
  action: string,
  facts: { tenantId?: number | null; detail?: DriveEvent["detail"] } = {},
): Promise<void> {
  return recordAudit(kv, {
    kind: "admin_action",
    tenantId: facts.tenantId ?? null,
    actorSeq: null,
    detail: { action, ...facts.detail },
  });
}

/**
 * Records a sign-in or credential event of user `userSeq` (api/http/account_events.ts names
 * the actions): never a password, token or session id, only what happened and to whom.
 */
export function recordAccountAction(
  kv: Deno.Kv,
  action: string,
  facts: { userSeq: number | null; tenantId: number | null; detail?: DriveEvent["detail"] },
): Promise<void> {
  return recordAudit(kv, {
    kind: "account",
    tenantId: facts.tenantId,
    actorSeq: facts.userSeq,
    detail: { action, ...facts.detail },
  });
}

/** Records a visit of a share link's page (whether the visitor got past a password yet). */
export function recordLinkOpen(
  kv: Deno.Kv,
  share: { shareSeq: number; type: string },
  resource: ResourceState,
  unlocked: boolean,
): Promise<void> {
  return recordAudit(kv, {
    kind: "link_opened",
    tenantId: resource.tenantId,
    actorSeq: null,
    resource: eventResource(resource),
    share: { shareSeq: share.shareSeq, type: share.type },
    detail: { unlocked },
  });
}
