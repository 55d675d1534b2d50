/**
 * Share writes: create, change, set recipients, remove. Each validates (flags, tenant policy,
 * recipients, the one-type-per-hierarchy rule), then commits the share, its link keys, the
 * recipients' shared-with-me index entries (kv/sharing/shared_list.ts) and their notifications
 * (kv/sharing/notifications.ts) in one atomic write.
 */
import {
  accessIfVisible,
  authorizeShareChange,
  authorizeShareRead,
  type Caller,
} from "./authorize.ts";
import { commit, commitWithRetry, CONFLICT, nextSeq } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { enqueueNotification } from "./notifications.ts";
import { eventActor } from "../events/actor.ts";
import {
  appendEvent,
  type DriveEvent,
  type EventKind,
  eventResource,
  type EventShare,
} from "../events/log.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { getResource, getResourceEntry, loadPath, type Resource } from "../tree/resources.ts";
import { randomToken, sha256Hex } from "../../lib/secrets.ts";
import {
  clearLinkVisitors,
  deleteSharedEntries,
  readSharedEntries,
  writeSharedEntry,
} from "./shared_list.ts";
import {
  exceeds,
  FLAG_NAMES,
  getShare,
  hierarchyTypes,
  intersectFlags,
  LINK_TYPES,
  MAX_TARGETS,
  permissionsOfFlags,
  policyCap,
  policyOf,
  type Share,
  type ShareFlags,
  type ShareTarget,
  type ShareType,
} from "./shares.ts";
import type { SharePolicy } from "../identity/tenants.ts";
import { getUser, type User } from "../identity/users.ts";
import {
  shareByOwnerKey,
  shareByResKey,
  shareKey,
  shareLinkKey,
  shareLinkListKey,
  shareTypeGenKey,
} from "../keys.ts";

// ---------------------------------------------------------------- validation

export interface FlagsInput {
  cv?: boolean;
  ce?: boolean;
  cd?: boolean;
  cu?: boolean;
  cs?: boolean;
}

export interface TargetInput extends FlagsInput {
  us: number;
  se?: boolean;
}

/** PERMISSION_003 when a permission is on while cv is explicitly off. */
function checkViewPrerequisite(f: FlagsInput, field: string) {
  if (f.cv === false && (f.ce || f.cd || f.cu || f.cs)) {
    fail("PERMISSION_003", `${field}cv must be true while another permission is on`, `${field}cv`);
  }
}

/** Share-level flags of a request: link types need every flag sent and cv true. */
export function shareFlagsOf(type: ShareType, f: FlagsInput, cap: ShareFlags): ShareFlags {
  checkViewPrerequisite(f, "");
  if (LINK_TYPES.has(type)) {
    const missing = FLAG_NAMES.filter((k) => typeof f[k] !== "boolean");
    if (missing.length > 0) {
      fail("SHARE_008", `${type} needs ${missing.join(", ")} sent explicitly`, missing[0]);
    }
    if (!f.cv) fail("SHARE_008", `${type} needs cv true`, "cv");
    return { cv: true, ce: f.ce!, cd: f.cd!, cu: f.cu!, cs: f.cs! };
  }
  if (f.cv === false) fail("PERMISSION_003", "cv must be true for a share", "cv");
  // SPECIFIC_USERS: an unsent flag defaults to what the policy allows (recipients set theirs).
  const out = { ...cap, cv: true };
  for (const k of FLAG_NAMES) if (typeof f[k] === "boolean") out[k] = f[k]!;
  return out;
}

function assertWithinPolicy(flags: ShareFlags, cap: ShareFlags, type: ShareType, field: string) {
  const over = exceeds(flags, cap);
  if (over.length > 0) {
    fail(
      "SHARE_003",
      `The tenant's policy does not allow ${permissionsOfFlags(over)} ` +
        `for ${type}`,
      `${field}${over[0]}`,
    );
  }
}

function assertTypeAllowed(policy: SharePolicy, type: ShareType) {
  if (!policy[type].allowed) {
    fail("SHARE_002", `The tenant's share policy does not allow ${type}`, "st");
  }
}

async function assertHierarchyAllows(
  kv: Deno.Kv,
  path: Resource[],
  type: ShareType,
  exclude: number | null,
) {
  const others = await hierarchyTypes(kv, path, exclude);
  const conflicting = [...others].filter((t) => t !== type);
  if (conflicting.length > 0) {
    fail(
      "SHARE_004",
      `Resources in this hierarchy are shared as ${conflicting.join(", ")}; ` +
        `every resource in one hierarchy uses one share type`,
      "st",
    );
  }
}

interface ResolvedTarget {
  input: TargetInput;
  user: User;
  flags: ShareFlags;
}

/** Validates recipients: SPECIFIC_USERS only, at most MAX_TARGETS, real users, not the owner. */
async function resolveTargets(
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

function parseExpiry(expireDate: string | null | undefined): number | null | undefined {
  if (expireDate === undefined || expireDate === null) return expireDate;
  const ms = Date.parse(
    /^\d{4}-\d{2}-\d{2}$/.test(expireDate) ? `${expireDate}T23:59:59.999Z` : expireDate,
  );
  if (!Number.isFinite(ms)) {
    fail("REQUEST_001", "expireDate must be an ISO date or date-time", "expireDate");
  }
  if (ms <= Date.now()) fail("REQUEST_001", "expireDate must be in the future", "expireDate");
  return ms;
}

// ---------------------------------------------------------------- writes

export interface ShareInput extends FlagsInput {
  st: ShareType;
  ts?: TargetInput[];
  /** Link types only; null removes it (change only). */
  password?: string | null;
  /** ISO date or date-time; null removes it (change only). */
  expireDate?: string | null;
}

/**
 * Adds to `op` the recipient changes from `before` to `after` targets: index entries and
 * notifications. Returns the users whose entries must be read first (removed ones).
 */
async function applyTargetChanges(
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
function mergeTargets(
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

function notifyMap(resolved: ResolvedTarget[]): Map<number, User> {
  return new Map(resolved.filter((r) => r.input.se).map((r) => [r.user.userSeq, r.user]));
}

/** Link keys of a share, added to or removed from `op`. */
function setLinkKeys(op: Deno.AtomicOperation, share: Share, present: boolean) {
  if (!share.linkToken) return;
  if (present) {
    op.set(shareLinkKey(sha256Hex(share.linkToken)), share.shareSeq).set(
      shareLinkListKey(share.shareSeq),
      share.rs,
    );
  } else {
    op.delete(shareLinkKey(sha256Hex(share.linkToken))).delete(shareLinkListKey(share.shareSeq));
  }
}

/**
 * Makes concurrent shares in one owner's tree re-check the one-type rule: every commit that
 * adds a type checks and bumps the owner's generation, so of two racing commits the later fails.
 */
function bumpTypeGen(op: Deno.AtomicOperation, ownerSeq: number, gen: Deno.KvEntryMaybe<number>) {
  op.check(gen).set(shareTypeGenKey(ownerSeq), (gen.value ?? 0) + 1);
}

/** The share_by_res entries of a resource's ancestors, for versionstamp checks. */
async function ancestorShareEntries(kv: Deno.Kv, path: Resource[]) {
  const out: Deno.KvEntryMaybe<number>[] = [];
  const keys = path.slice(1).map((r) => shareByResKey(r.rs));
  for (let i = 0; i < keys.length; i += 10) {
    out.push(...await kv.getMany<number[]>(keys.slice(i, i + 10)));
  }
  return out;
}

/** Creates the share of a resource the caller owns (POST /shares). */
export async function createShare(
  d: Deps,
  caller: Caller,
  rs: number,
  input: ShareInput,
): Promise<Share> {
  const loaded = await loadPath(d.kv, rs);
  if (!loaded || loaded.trashed) fail("RESOURCE_002", `No file or folder with seq ${rs}`, "rs");
  const resource = loaded.path[0];
  if (resource.ownerSeq !== caller.userSeq) {
    // Only those who can see the resource learn that the owner alone may share it.
    if (!(await accessIfVisible(d.kv, caller, loaded))) {
      fail("PERMISSION_002", `No access to resource ${rs}`, "rs");
    }
    fail("SHARE_010", "Only the owner of a resource may create its share", "rs");
  }
  const policy = await policyOf(d.kv, resource.tenantId);
  assertTypeAllowed(policy, input.st);
  const cap = policyCap(policy, input.st);
  const flags = shareFlagsOf(input.st, input, cap);
  assertWithinPolicy(flags, cap, input.st, "");
  const resolved = await resolveTargets(
    d.kv,
    input.st,
    input.ts ?? [],
    resource.ownerSeq,
    cap,
    flags,
  );
  if (input.password != null && !LINK_TYPES.has(input.st)) {
    fail("REQUEST_001", "password is only for ORG_LINK and PUBLIC_LINK shares", "password");
  }
  const expiresAt = parseExpiry(input.expireDate) ?? null;
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const shareSeq = await nextSeq(d.kv, "share");
  const actor = await getUser(d.kv, caller.userSeq);
  return commitWithRetry(async () => {
    const [gen, own, res, ancestors] = await Promise.all([
      d.kv.get<number>(shareTypeGenKey(resource.ownerSeq)),
      d.kv.get<number>(shareByResKey(rs)),
      getResourceEntry(d.kv, rs),
      ancestorShareEntries(d.kv, loaded.path),
    ]);
    // Checked after reading `gen`: a share committed since then makes this commit re-check.
    await assertHierarchyAllows(d.kv, loaded.path, input.st, null);
    if (own.value !== null) {
      fail("SHARE_005", `Resource ${rs} is already shared (share ${own.value})`, "rs");
    }
    if (!res.value || res.value.trashedAt !== null) fail("RESOURCE_002", `No resource ${rs}`, "rs");
    const now = Date.now();
    const share: Share = {
      shareSeq,
      rs,
      ownerSeq: resource.ownerSeq,
      tenantId: resource.tenantId,
      type: input.st,
      flags,
      targets: mergeTargets([], resolved, caller.userSeq, now),
      linkToken: LINK_TYPES.has(input.st) ? randomToken(32) : null,
      passwordHash,
      passwordSetAt: passwordHash ? now : null,
      expiresAt,
      createdAt: now,
      createdBy: caller.userSeq,
      updatedAt: now,
      updatedBy: caller.userSeq,
    };
    const op = d.kv.atomic().check(own, res);
    bumpTypeGen(op, resource.ownerSeq, gen);
    // An ancestor shared concurrently must make this commit fail.
    op.check(...ancestors);
    op.set(shareKey(shareSeq), share).set(shareByResKey(rs), shareSeq)
      .set(shareByOwnerKey(share.ownerSeq, shareSeq), { rs, type: share.type });
    setLinkKeys(op, share, true);
    await applyTargetChanges(d, op, {
      share,
      resource: res.value,
      before: [],
      after: share.targets,
      notify: notifyMap(resolved),
      actor,
    });
    appendShareEvents(op, null, share, res.value, caller.userSeq);
    return (await commit(op)) === true ? share : CONFLICT;
  });
}

/** Changes type, permissions, recipients, password or expiry (PATCH /shares/{seq}; owner only). */
export async function changeShare(
  d: Deps,
  caller: Caller,
  shareSeq: number,
  input: ShareInput,
): Promise<Share> {
  const view = await authorizeShareChange(
    d.kv,
    caller,
    shareSeq,
    "Only the owner may change a share",
  );
  const { policy } = view;
  assertTypeAllowed(policy, input.st);
  const cap = policyCap(policy, input.st);
  const flags = shareFlagsOf(input.st, input, cap);
  assertWithinPolicy(flags, cap, input.st, "");
  const isLink = LINK_TYPES.has(input.st);
  const resolved = input.ts === undefined
    ? null
    : await resolveTargets(d.kv, input.st, input.ts, view.share.ownerSeq, cap, flags);
  if (input.password != null && !isLink) {
    fail("REQUEST_001", "password is only for ORG_LINK and PUBLIC_LINK shares", "password");
  }
  const expiry = parseExpiry(input.expireDate);
  const newHash = input.password ? await hashPassword(input.password) : input.password;
  const actor = await getUser(d.kv, caller.userSeq);
  const result = await commitWithRetry(async () => {
    const [cur, gen] = await Promise.all([
      d.kv.get<Share>(shareKey(shareSeq)),
      d.kv.get<number>(shareTypeGenKey(view.share.ownerSeq)),
    ]);
    if (!cur.value) fail("SHARE_006", `No share with seq ${shareSeq}`, "shareSeq");
    const prev = cur.value;
    const typeChanges = input.st !== prev.type;
    if (typeChanges) await assertHierarchyAllows(d.kv, view.path, input.st, shareSeq);
    const now = Date.now();
    let targets: ShareTarget[];
    if (isLink) targets = [];
    else if (resolved) targets = mergeTargets(prev.targets, resolved, caller.userSeq, now);
    else targets = prev.type === "SPECIFIC_USERS" ? prev.targets : [];
    const passwordHash = !isLink ? null : newHash === undefined ? prev.passwordHash : newHash;
    const next: Share = {
      ...prev,
      type: input.st,
      flags,
      targets,
      linkToken: isLink ? prev.linkToken ?? randomToken(32) : null,
      passwordHash,
      passwordSetAt: passwordHash === prev.passwordHash
        ? prev.passwordSetAt
        : passwordHash === null
        ? null
        : now,
      expiresAt: expiry === undefined ? prev.expiresAt : expiry,
      updatedAt: now,
      updatedBy: caller.userSeq,
    };
    const resource = await getResource(d.kv, prev.rs) ?? view.resource;
    const op = d.kv.atomic().check(cur);
    if (typeChanges) bumpTypeGen(op, resource.ownerSeq, gen);
    op.set(shareKey(shareSeq), next)
      .set(shareByOwnerKey(next.ownerSeq, shareSeq), { rs: next.rs, type: next.type });
    if (prev.linkToken !== next.linkToken) {
      setLinkKeys(op, prev, false);
      setLinkKeys(op, next, true);
    }
    await applyTargetChanges(d, op, {
      share: next,
      resource,
      before: prev.targets,
      after: next.targets,
      notify: resolved ? notifyMap(resolved) : new Map(),
      actor,
    });
    appendShareEvents(op, prev, next, resource, caller.userSeq);
    return (await commit(op)) === true ? { prev, next } : CONFLICT;
  });
  if (result.prev.linkToken && !result.next.linkToken) {
    await clearLinkVisitors(d.kv, result.next);
  }
  return result.next;
}

/**
 * Replaces the recipient list (PUT /shares/{seq}/targets): the owner, or a recipient whose
 * grant includes re-share; a re-sharing recipient never hands out more than they hold.
 */
export async function setShareTargets(
  d: Deps,
  caller: Caller,
  shareSeq: number,
  input: { ts: TargetInput[]; ss: number | null | undefined },
): Promise<Share> {
  const view = await authorizeShareRead(d.kv, caller, shareSeq, input.ss);
  if (!view.isOwner && !view.grant.cs) {
    fail("SHARE_010", "Only the owner or a recipient granted re-share may set recipients", "ts");
  }
  if (view.share.type !== "SPECIFIC_USERS") {
    fail("SHARE_009", "Recipients (ts) can be set only while the type is SPECIFIC_USERS", "ts");
  }
  const cap = policyCap(view.policy, "SPECIFIC_USERS");
  const ceiling = view.isOwner ? view.share.flags : intersectFlags(view.share.flags, view.grant);
  const resolved = await resolveTargets(
    d.kv,
    "SPECIFIC_USERS",
    input.ts,
    view.share.ownerSeq,
    cap,
    ceiling,
  );
  const actor = await getUser(d.kv, caller.userSeq);
  return commitWithRetry(async () => {
    const cur = await d.kv.get<Share>(shareKey(shareSeq));
    if (!cur.value || cur.value.type !== "SPECIFIC_USERS") {
      fail("SHARE_006", `No SPECIFIC_USERS share with seq ${shareSeq}`, "shareSeq");
    }
    const now = Date.now();
    const next: Share = {
      ...cur.value,
      targets: mergeTargets(cur.value.targets, resolved, caller.userSeq, now),
      updatedAt: now,
      updatedBy: caller.userSeq,
    };
    const resource = await getResource(d.kv, next.rs) ?? view.resource;
    const op = d.kv.atomic().check(cur).set(shareKey(shareSeq), next);
    await applyTargetChanges(d, op, {
      share: next,
      resource,
      before: cur.value.targets,
      after: next.targets,
      notify: notifyMap(resolved),
      actor,
    });
    appendShareEvents(op, cur.value, next, resource, caller.userSeq, "recipients_changed");
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/** Removes a share: everyone loses access at once, its link stops resolving. */
export async function removeShare(
  d: Deps,
  shareSeq: number,
  actorSeq: number | null = null,
): Promise<Share> {
  const removed = await commitWithRetry(async () => {
    const cur = await d.kv.get<Share>(shareKey(shareSeq));
    if (!cur.value) fail("SHARE_006", `No share with seq ${shareSeq}`, "shareSeq");
    const share = cur.value;
    const op = d.kv.atomic().check(cur)
      .delete(shareKey(shareSeq))
      .delete(shareByResKey(share.rs))
      .delete(shareByOwnerKey(share.ownerSeq, shareSeq));
    setLinkKeys(op, share, false);
    deleteSharedEntries(
      op,
      await readSharedEntries(d.kv, share.targets.map((t) => t.userSeq), share.rs),
    );
    const resource = await getResource(d.kv, share.rs);
    if (resource) appendShareEvents(op, share, null, resource, actorSeq);
    return (await commit(op)) === true ? share : CONFLICT;
  });
  await clearLinkVisitors(d.kv, removed);
  return removed;
}

/** DELETE /shares/{seq}: owner only (also when the resource itself is gone for good). */
export async function deleteShare(d: Deps, caller: Caller, shareSeq: number): Promise<Share> {
  const share = await getShare(d.kv, shareSeq);
  // The owner needs no further check: they may remove it even when its resource is gone for good.
  if (share?.ownerSeq !== caller.userSeq) {
    await authorizeShareChange(d.kv, caller, shareSeq, "Only the owner may remove a share");
  }
  return removeShare(d, shareSeq, caller.userSeq);
}

/**
 * Adds to `op` the events of a share going from `prev` to `next` (either may be null): the share
 * event with whose access it changed (SPECIFIC_USERS recipients; docs/changes.md), and a link
 * event when a link appears or goes.
 */
function appendShareEvents(
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
