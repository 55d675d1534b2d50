/**
 * Share writes: create, change, set recipients, remove. Each checks the request first (flags and
 * tenant policy, kv/sharing/share_policy.ts; recipients, kv/sharing/share_targets.ts; the
 * one-type-per-hierarchy rule), then commits the share, its link keys, the recipients'
 * shared-with-me index entries (kv/sharing/shared_list.ts), their notifications
 * (kv/sharing/notifications.ts) and the events (kv/sharing/share_events.ts) in one atomic write.
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
import { hashPassword } from "../../lib/passwords.ts";
import { getResource, getResourceEntry, loadPath } from "../tree/resources.ts";
import { randomToken, sha256Hex } from "../../lib/secrets.ts";
import { clearLinkVisitors, deleteSharedEntries, readSharedEntries } from "./shared_list.ts";
import {
  getShare,
  intersectFlags,
  LINK_TYPES,
  policyCap,
  policyOf,
  type Share,
  type ShareTarget,
  type ShareType,
} from "./shares.ts";
import { getUser } from "../identity/users.ts";
import { readTreeShape } from "../tree/tree_shape.ts";
import {
  shareByOwnerKey,
  shareByResKey,
  shareKey,
  shareLinkKey,
  shareLinkListKey,
  shareTypeGenKey,
} from "../keys.ts";
import {
  assertFileRequestFits,
  assertHierarchyAllows,
  assertPasswordFits,
  type FlagsInput,
  parseExpiry,
  requestedFlags,
} from "./share_policy.ts";
import {
  applyTargetChanges,
  mergeTargets,
  notifyMap,
  resolveTargets,
  type TargetInput,
} from "./share_targets.ts";
import { appendShareEvents } from "./share_events.ts";

export interface ShareInput extends FlagsInput {
  st: ShareType;
  ts?: TargetInput[];
  /** Link types only; null removes it (change only). */
  password?: string | null;
  /** ISO date or date-time; null removes it (change only). */
  expireDate?: string | null;
  /** An upload-only file request (share_policy.ts, assertFileRequestFits); omitted = unchanged. */
  fileRequest?: boolean;
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

/** Creates the share of a resource the caller owns (POST /shares). */
export async function createShare(
  d: Deps,
  caller: Caller,
  resourceSeq: number,
  input: ShareInput,
): Promise<Share> {
  const loaded = await loadPath(d.kv, resourceSeq);
  if (!loaded || loaded.trashed) {
    fail("RESOURCE_002", `No file or folder with seq ${resourceSeq}`, "rs");
  }
  const resource = loaded.path[0];
  if (resource.ownerSeq !== caller.userSeq) {
    // Only those who can see the resource learn that the owner alone may share it.
    if (!(await accessIfVisible(d.kv, caller, loaded))) {
      fail("PERMISSION_002", `No access to resource ${resourceSeq}`, "rs");
    }
    fail("SHARE_010", "Only the owner of a resource may create its share", "rs");
  }
  const policy = await policyOf(d.kv, resource.tenantId);
  const { cap, flags } = requestedFlags(policy, input);
  const resolved = await resolveTargets(
    d.kv,
    input.st,
    input.ts ?? [],
    resource.ownerSeq,
    cap,
    flags,
  );
  assertPasswordFits(input.st, input.password);
  assertFileRequestFits(input.st, flags, resource, input.fileRequest ?? false);
  const expiresAt = parseExpiry(input.expireDate) ?? null;
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const shareSeq = await nextSeq(d.kv, "share");
  const actor = await getUser(d.kv, caller.userSeq);
  return commitWithRetry(async () => {
    const [gen, own, res, shape] = await Promise.all([
      d.kv.get<number>(shareTypeGenKey(resource.ownerSeq)),
      d.kv.get<number>(shareByResKey(resourceSeq)),
      getResourceEntry(d.kv, resourceSeq),
      readTreeShape(d.kv, resource.ownerSeq),
    ]);
    // Checked after reading `gen`: a share committed since then makes this commit re-check.
    await assertHierarchyAllows(d.kv, loaded.path, input.st, null);
    if (own.value !== null) {
      fail("SHARE_005", `Resource ${resourceSeq} is already shared (share ${own.value})`, "rs");
    }
    if (!res.value || res.value.trashedAt !== null) {
      fail("RESOURCE_002", `No resource ${resourceSeq}`, "rs");
    }
    const now = Date.now();
    const share: Share = {
      shareSeq,
      rs: resourceSeq,
      ownerSeq: resource.ownerSeq,
      tenantId: resource.tenantId,
      type: input.st,
      flags,
      targets: mergeTargets([], resolved, caller.userSeq, now),
      linkToken: LINK_TYPES.has(input.st) ? randomToken(32) : null,
      passwordHash,
      passwordSetAt: passwordHash ? now : null,
      expiresAt,
      ...(input.fileRequest ? { fileRequest: true } : {}),
      createdAt: now,
      createdBy: caller.userSeq,
      updatedAt: now,
      updatedBy: caller.userSeq,
    };
    const op = d.kv.atomic().check(own, res);
    bumpTypeGen(op, resource.ownerSeq, gen);
    // An ancestor shared meanwhile bumped `gen`; a folder above moved meanwhile (under a share,
    // say) rewrote the tree shape: either fails this commit. Fixed checks however deep the
    // resource sits (denokv takes 10 per commit; kv/tree/tree_shape.ts).
    op.check(shape);
    op.set(shareKey(shareSeq), share).set(shareByResKey(resourceSeq), shareSeq)
      .set(shareByOwnerKey(share.ownerSeq, shareSeq), { rs: resourceSeq, type: share.type });
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
  const { cap, flags } = requestedFlags(view.policy, input);
  const isLink = LINK_TYPES.has(input.st);
  const resolved = input.ts === undefined
    ? null
    : await resolveTargets(d.kv, input.st, input.ts, view.share.ownerSeq, cap, flags);
  assertPasswordFits(input.st, input.password);
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
    const fileRequest = input.fileRequest ?? (input.st === prev.type && prev.fileRequest === true);
    assertFileRequestFits(input.st, flags, view.resource, fileRequest);
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
      fileRequest,
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
