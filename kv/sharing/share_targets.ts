/**
 * The recipients of a SPECIFIC_USERS share: who may be one (real users, not the owner, at most
 * MAX_TARGETS, each within the policy and the share), the list as stored (who added and changed
 * each), and what a change of the list adds to the share's commit: the recipients'
 * shared-with-me entries (kv/sharing/shared_list.ts) and their notifications.
 */
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { getUser, type User } from "../identity/users.ts";
import type { Resource } from "../tree/resources.ts";
import { enqueueNotification } from "./notifications.ts";
import { assertWithinPolicy, checkViewPrerequisite, type FlagsInput } from "./share_policy.ts";
import { deleteSharedEntries, readSharedEntries, writeSharedEntry } from "./shared_list.ts";
import {
  FLAG_NAMES,
  intersectFlags,
  MAX_TARGETS,
  type Share,
  type ShareFlags,
  type ShareTarget,
  type ShareType,
} from "./shares.ts";

export interface TargetInput extends FlagsInput {
  us: number;
  se?: boolean;
}

interface ResolvedTarget {
  input: TargetInput;
  user: User;
  flags: ShareFlags;
}

/** Validates recipients: SPECIFIC_USERS only, at most MAX_TARGETS, real users, not the owner. */
export async function resolveTargets(
  kv: Deno.Kv,
  type: ShareType,
  ts: TargetInput[],
  ownerSeq: number,
  cap: ShareFlags,
  ceiling: ShareFlags,
): Promise<ResolvedTarget[]> {
  if (ts.length === 0) return [];
  if (type !== "SPECIFIC_USERS") {
    fail("SHARE_009", "Recipients (ts) can be set only while the type is SPECIFIC_USERS", "ts");
  }
  if (ts.length > MAX_TARGETS) {
    fail("SHARE_009", `A share has at most ${MAX_TARGETS} recipients`, "ts");
  }
  const seen = new Set<number>();
  const out: ResolvedTarget[] = [];
  for (const [i, t] of ts.entries()) {
    const field = `ts.${i}.`;
    if (seen.has(t.us)) fail("SHARE_009", `Recipient ${t.us} is listed twice`, `${field}us`);
    seen.add(t.us);
    if (t.us === ownerSeq) fail("SHARE_009", "The owner cannot be a recipient", `${field}us`);
    checkViewPrerequisite(t, field);
    if (!t.cv) fail("PERMISSION_003", `${field}cv must be true for a recipient`, `${field}cv`);
    const flags: ShareFlags = { cv: true, ce: !!t.ce, cd: !!t.cd, cu: !!t.cu, cs: !!t.cs };
    assertWithinPolicy(flags, cap, type, field);
    const user = await getUser(kv, t.us) ??
      fail("USER_001", `No user with seq ${t.us}`, `${field}us`);
    // A recipient never gets more than the share (or a re-sharing recipient) holds.
    out.push({ input: t, user, flags: intersectFlags(flags, ceiling) });
  }
  return out;
}

/**
 * Adds to `op` the recipient changes from `before` to `after` targets: index entries and
 * notifications. Returns the users whose entries must be read first (removed ones).
 */
export async function applyTargetChanges(
  d: Deps,
  op: Deno.AtomicOperation,
  input: {
    share: Share;
    resource: Resource;
    before: ShareTarget[];
    after: ShareTarget[];
    notify: Map<number, User>;
    actor: User | null;
  },
) {
  const afterSeqs = new Set(input.after.map((t) => t.userSeq));
  const beforeSeqs = new Set(input.before.map((t) => t.userSeq));
  const removed = input.before.filter((t) => !afterSeqs.has(t.userSeq)).map((t) => t.userSeq);
  deleteSharedEntries(op, await readSharedEntries(d.kv, removed, input.share.rs));
  for (const t of input.after) {
    if (beforeSeqs.has(t.userSeq)) continue;
    writeSharedEntry(op, {
      userSeq: t.userSeq,
      resource: input.resource,
      shareSeq: input.share.shareSeq,
      via: "target",
      sharedAt: t.addedAt,
    });
  }
  for (const [userSeq, user] of input.notify) {
    if (!afterSeqs.has(userSeq)) continue;
    const who = input.actor?.name ?? "Someone";
    enqueueNotification(op, {
      to: user.email,
      subject: `${who} shared "${input.resource.name}" with you`,
      text: `${who} shared the ${input.resource.type === "FOLDER" ? "folder" : "file"} ` +
        `"${input.resource.name}" with you. It is in your shared-with-me list ` +
        `(${d.config.publicUrl}).`,
    });
  }
}

/** Builds the recipient list: kept recipients keep addedAt/addedBy, changes are stamped. */
export function mergeTargets(
  before: ShareTarget[],
  resolved: ResolvedTarget[],
  actorSeq: number,
  now: number,
): ShareTarget[] {
  const old = new Map(before.map((t) => [t.userSeq, t]));
  return resolved.map((r) => {
    const prev = old.get(r.user.userSeq);
    const same = prev && FLAG_NAMES.every((k) => prev.flags[k] === r.flags[k]);
    return {
      userSeq: r.user.userSeq,
      tenantId: r.user.tenantId,
      flags: r.flags,
      addedAt: prev?.addedAt ?? now,
      addedBy: prev?.addedBy ?? actorSeq,
      changedAt: same ? prev!.changedAt : now,
      changedBy: same ? prev!.changedBy : actorSeq,
    };
  });
}

/** The recipients to notify: those sent with `se`. */
export function notifyMap(resolved: ResolvedTarget[]): Map<number, User> {
  return new Map(resolved.filter((r) => r.input.se).map((r) => [r.user.userSeq, r.user]));
}
