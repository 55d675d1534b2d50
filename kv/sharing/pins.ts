/**
 * Pinned folders: at most MAX_PINS per user, the caller's own folders or folders shared with
 * the caller.
 *   ["pins", userSeq]        -> Pin[]   (in pin order; one value, so the limit is one check)
 *   ["pin", pinnedFolderSeq] -> userSeq
 * Every add reads the list and commits against its versionstamp, so concurrent adds can never
 * pass the limit. A pin is dropped (lazily, when the list is read or added to) as soon as its
 * folder or an ancestor is in the trash, or the user can no longer view it.
 */
import { accessIfVisible, authorizePin, type Caller } from "./authorize.ts";
import { commit, commitWithRetry, CONFLICT, nextSeq } from "../db.ts";
import { fail } from "../errors.ts";
import { getResource, loadPath, type Resource } from "../tree/resources.ts";
import { eventActor } from "../events/actor.ts";
import { appendEvent, eventResource } from "../events/log.ts";
import { pinKey, pinsKey } from "../keys.ts";

const MAX_PINS = 3;

export interface Pin {
  pinnedFolderSeq: number;
  userSeq: number;
  rs: number;
  ownerSeq: number;
  resourceName: string;
  pinnedAt: number;
}

/** The pin with its folder's current name, or null when the pin is dead. */
async function livePin(kv: Deno.Kv, caller: Caller, pin: Pin): Promise<Pin | null> {
  const access = await accessIfVisible(kv, caller, await loadPath(kv, pin.rs));
  return access ? { ...pin, resourceName: access.resource.name } : null;
}

async function splitLive(kv: Deno.Kv, caller: Caller, pins: Pin[]) {
  const checked = await Promise.all(pins.map((p) => livePin(kv, caller, p)));
  return {
    live: checked.filter((p): p is Pin => p !== null),
    dead: pins.filter((_, i) => checked[i] === null),
  };
}

/** The caller's live pins in pin order; dead ones are removed on the way. */
export async function listPins(kv: Deno.Kv, caller: Caller): Promise<Pin[]> {
  const cur = await kv.get<Pin[]>(pinsKey(caller.userSeq));
  const { live, dead } = await splitLive(kv, caller, cur.value ?? []);
  if (dead.length > 0) {
    const op = kv.atomic().check(cur).set(pinsKey(caller.userSeq), keepOnly(cur.value!, live));
    for (const p of dead) op.delete(pinKey(p.pinnedFolderSeq));
    // A concurrent change wins; the dead pins go next time.
    await op.commit();
  }
  return live;
}

function keepOnly(all: Pin[], live: Pin[]): Pin[] {
  const keep = new Set(live.map((p) => p.pinnedFolderSeq));
  return all.filter((p) => keep.has(p.pinnedFolderSeq));
}

/** Pins folder `resourceSeq` when authorizePin allows it (own folder, or shared with `ss` = its owner). */
export async function addPin(
  kv: Deno.Kv,
  caller: Caller,
  resourceSeq: number,
  sharingUserSeq: number | null | undefined,
): Promise<Pin> {
  const folder = await authorizePin(kv, caller, resourceSeq, sharingUserSeq);
  const seq = await nextSeq(kv, "pin");
  return commitWithRetry(async () => {
    const cur = await kv.get<Pin[]>(pinsKey(caller.userSeq));
    const { live, dead } = await splitLive(kv, caller, cur.value ?? []);
    if (live.some((p) => p.rs === resourceSeq)) {
      fail("PINNED_FOLDER_002", `Folder ${resourceSeq} is already pinned`, "rs");
    }
    if (live.length >= MAX_PINS) {
      fail("PINNED_FOLDER_003", `At most ${MAX_PINS} folders can be pinned`, "rs");
    }
    const pin: Pin = {
      pinnedFolderSeq: seq,
      userSeq: caller.userSeq,
      rs: resourceSeq,
      ownerSeq: folder.ownerSeq,
      resourceName: folder.name,
      pinnedAt: Date.now(),
    };
    const op = kv.atomic().check(cur)
      .set(pinsKey(caller.userSeq), [...keepOnly(cur.value ?? [], live), pin])
      .set(pinKey(seq), caller.userSeq);
    for (const p of dead) op.delete(pinKey(p.pinnedFolderSeq));
    appendPinEvent(op, "pin_added", pin, folder);
    return (await commit(op)) === true ? pin : CONFLICT;
  });
}

/** Removes one of the caller's pins; someone else's or a gone pin is PINNED_FOLDER_001. */
export function removePin(kv: Deno.Kv, caller: Caller, pinnedFolderSeq: number): Promise<void> {
  return commitWithRetry(async () => {
    const [owner, cur] = await Promise.all([
      kv.get<number>(pinKey(pinnedFolderSeq)),
      kv.get<Pin[]>(pinsKey(caller.userSeq)),
    ]);
    const pins = cur.value ?? [];
    if (
      owner.value !== caller.userSeq || !pins.some((p) => p.pinnedFolderSeq === pinnedFolderSeq)
    ) {
      fail("PINNED_FOLDER_001", `No pin ${pinnedFolderSeq} of the caller`, "pinnedFolderSeq");
    }
    const op = kv.atomic().check(owner, cur)
      .set(pinsKey(caller.userSeq), pins.filter((p) => p.pinnedFolderSeq !== pinnedFolderSeq))
      .delete(pinKey(pinnedFolderSeq));
    const pin = pins.find((p) => p.pinnedFolderSeq === pinnedFolderSeq)!;
    appendPinEvent(op, "pin_removed", pin, await getResource(kv, pin.rs));
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
}

/**
 * Removes every pin of a deleted user (the list and each pin's key) in one commit: a user has at
 * most MAX_PINS. Idempotent.
 */
export async function dropPinsOf(kv: Deno.Kv, userSeq: number): Promise<void> {
  const cur = await kv.get<Pin[]>(pinsKey(userSeq));
  if (cur.value === null) return;
  const op = kv.atomic().delete(pinsKey(userSeq));
  for (const p of cur.value) op.delete(pinKey(p.pinnedFolderSeq));
  await op.commit();
}

/** Adds a pin event to `op`; only the pinning user's feed shows it (kv/views/feed.ts). */
function appendPinEvent(
  op: Deno.AtomicOperation,
  kind: "pin_added" | "pin_removed",
  pin: Pin,
  folder: Resource | null,
) {
  appendEvent(op, {
    kind,
    at: Date.now(),
    tenantId: folder?.tenantId ?? null,
    actor: eventActor(pin.userSeq),
    resource: folder ? eventResource(folder) : {
      rs: pin.rs,
      type: "FOLDER",
      name: pin.resourceName,
      parentRs: null,
      ownerSeq: pin.ownerSeq,
    },
    detail: { userSeq: pin.userSeq, pinnedFolderSeq: pin.pinnedFolderSeq },
  });
}
