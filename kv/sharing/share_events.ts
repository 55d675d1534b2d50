/**
 * The events of a share write (docs/changes.md), added to the write's own commit: the share event
 * with whose access it changed, and a link event when a link appears or goes.
 */
import { eventActor } from "../events/actor.ts";
import {
  appendEvent,
  type DriveEvent,
  type EventKind,
  eventResource,
  type EventShare,
} from "../events/log.ts";
import type { Resource } from "../tree/resources.ts";
import { FLAG_NAMES, intersectFlags, type Share, type ShareFlags } from "./shares.ts";

/**
 * Adds to `op` the events of a share going from `prev` to `next` (either may be null): the share
 * event with whose access it changed (SPECIFIC_USERS recipients; docs/changes.md), and a link
 * event when a link appears or goes.
 */
export function appendShareEvents(
  op: Deno.AtomicOperation,
  prev: Share | null,
  next: Share | null,
  resource: Resource,
  actorSeq: number | null,
  kind?: "recipients_changed",
) {
  const before = new Set(prev?.targets.map((t) => t.userSeq) ?? []);
  const after = new Set(next?.targets.map((t) => t.userSeq) ?? []);
  const share = (next ?? prev)!;
  const event = (k: EventKind, extra: Partial<EventShare> = {}): DriveEvent => ({
    kind: k,
    at: Date.now(),
    tenantId: resource.tenantId,
    actor: eventActor(actorSeq),
    resource: eventResource(resource),
    share: { shareSeq: share.shareSeq, type: share.type, ...extra },
  });
  const changes: Partial<EventShare> = {
    gained: [...after].filter((u) => !before.has(u)),
    lost: [...before].filter((u) => !after.has(u)),
  };
  if (prev && next) {
    // Recipients who keep access see the change in their feed; `changed` names those whose
    // permissions (their own grant within the share's) or the share's expiry changed.
    const kept = [...after].filter((u) => before.has(u));
    changes.kept = kept;
    changes.changed = kept.filter((u) =>
      prev.expiresAt !== next.expiresAt ||
      !sameFlags(effectiveFlags(prev, u), effectiveFlags(next, u))
    );
  }
  appendEvent(
    op,
    event(kind ?? (!prev ? "share_created" : !next ? "share_removed" : "share_changed"), changes),
  );
  if (!prev?.linkToken && next?.linkToken) appendEvent(op, event("link_created"));
  if (prev?.linkToken && !next?.linkToken) appendEvent(op, event("link_removed"));
}

/** What a recipient may do through `share`: their grant within the share's own flags. */
function effectiveFlags(share: Share, userSeq: number): ShareFlags | null {
  const t = share.targets.find((x) => x.userSeq === userSeq);
  return t ? intersectFlags(t.flags, share.flags) : null;
}

function sameFlags(a: ShareFlags | null, b: ShareFlags | null): boolean {
  if (!a || !b) return a === b;
  return FLAG_NAMES.every((k) => a[k] === b[k]);
}
