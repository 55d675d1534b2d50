/**
 * Deleting a user, or a tenant with all of its users, for good (docs/operations.md "Lifecycle").
 *
 * A user's deletion is recorded first (kv/lifecycle/jobs.ts) and the user disabled, so their keys,
 * adapters and links stop at once. Then, each step idempotent: the shares they made (links and
 * recipients lose access), their adapters, API keys, pins and shared-with-me entries; then their
 * resources a page at a time, each page one commit that deletes records, index keys, versions and
 * locks and lowers the usage by exactly the bytes it freed, with the blobs deleted after it; last,
 * one commit removes the usage record, the user's records and the job. A crash anywhere leaves the
 * job recorded and a consistent, smaller drive: the same call (or the retention job) finishes it.
 */
import { dropDeadProps } from "../tree/dead_props.ts";
import { commit, commitWithRetry, CONFLICT, MAX_COMMIT_CHECKS } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { deleteApiKeysOf } from "../identity/api_keys.ts";
import { deletePasswordOf } from "../identity/passwords.ts";
import { revokeSessionsOf } from "../identity/sessions.ts";
import {
  dropTenantRecord,
  getTenantEntry,
  requireTenant,
  setTenantDisabled,
} from "../identity/tenants.ts";
import { dropOidcSettings } from "../identity/oidc.ts";
import {
  dropUserRecords,
  getUserEntry,
  iterateUsers,
  requireUser,
  setUserDisabled,
  type User,
} from "../identity/users.ts";
import { shareByOwnerKey } from "../keys.ts";
import { dropPinsOf } from "../sharing/pins.ts";
import { forgetRecipient } from "../sharing/shared_list.ts";
import { removeShare } from "../sharing/share_writes.ts";
import { shareOfResource } from "../sharing/shares.ts";
import { dropLockStamp } from "../tree/locks.ts";
import { dropTreeShape } from "../tree/tree_shape.ts";
import { listVersions } from "../tree/content_versions.ts";
import type { Resource } from "../tree/resources.ts";
import { searchKeyCount } from "../tree/search_index.ts";
import { deleteBlobs, dropPurgeMarker, dropResource, shedVersions } from "../tree/trash.ts";
import { chargeUsage, dropUsage, readUsageEntry } from "../tree/usage.ts";
import { deleteAdapter, listAdapters } from "../adapters/adapters.ts";
import { dropJob, getJob, recordJob } from "./jobs.ts";
import { firstOwned } from "./owned.ts";

/** Per commit: under KV's 1000 mutations and denokv's checks (usage takes one of each). */
const MAX_MUTATIONS = 900;
const MAX_CHECKS = MAX_COMMIT_CHECKS - 2;
/** Record, up to three index keys, lock and its owner entry, purge marker, event, its tick. */
const PER_RESOURCE_MUTATIONS = 9;

interface UserDeletion {
  userSeq: number;
  accountId: string;
  /** Resources (files and folders, trash included) deleted. */
  resources: number;
  /** Bytes of stored versions freed (the user's usage before). */
  freedBytes: number;
  sharesRemoved: number;
  keysDeleted: number;
  adaptersDeleted: number;
}

/**
 * Deletes user `userSeq` and everything they own. `confirm` must repeat their accountId
 * (case-insensitive), ADMIN_002 otherwise: an id typed wrong deletes nothing.
 */
export async function deleteUser(
  d: Deps,
  userSeq: number,
  confirm: string,
): Promise<UserDeletion> {
  const user = await requireUser(d.kv, userSeq);
  if (confirm.toLowerCase() !== user.accountId.toLowerCase()) {
    fail("ADMIN_002", `confirm must be "${user.accountId}" to delete user ${userSeq}`, "confirm");
  }
  if ((await getJob(d.kv, "transfer", userSeq)).value) {
    fail("USER_005", `User ${userSeq}'s drive is being transferred: finish that first`);
  }
  await recordJob(d.kv, { kind: "user_delete", id: userSeq, startedAt: Date.now() });
  return await finishUserDeletion(d, user);
}

/** The deletion's steps after it was recorded; also how a recorded deletion is resumed. */
export async function finishUserDeletion(d: Deps, user: User): Promise<UserDeletion> {
  const userSeq = user.userSeq;
  await setUserDisabled(d.kv, userSeq, true);
  const out: UserDeletion = {
    userSeq,
    accountId: user.accountId,
    resources: 0,
    freedBytes: 0,
    sharesRemoved: 0,
    keysDeleted: 0,
    adaptersDeleted: 0,
  };
  // Shares first: from here on nobody else can write into the drive being deleted.
  for await (const e of d.kv.list({ prefix: shareByOwnerKey(userSeq) })) {
    await removeShare(d, e.key[2] as number, null).then(
      () => out.sharesRemoved++,
      (err) => ignoreGone(err, "SHARE_006"),
    );
  }
  for (const adapter of await listAdapters(d.kv)) {
    if (adapter.userSeq !== userSeq) continue;
    await deleteAdapter(d.kv, adapter.name).then(
      () => out.adaptersDeleted++,
      (err) => ignoreGone(err, "ADAPTER_001"),
    );
  }
  out.keysDeleted = await deleteApiKeysOf(d.kv, userSeq);
  // Sign-in credentials go too (sessions already fail once the user record is gone).
  await deletePasswordOf(d.kv, userSeq);
  await revokeSessionsOf(d.kv, userSeq);
  await dropPinsOf(d.kv, userSeq);
  await forgetRecipient(d.kv, userSeq);
  for (;;) {
    const page = await firstOwned(d.kv, userSeq, MAX_CHECKS);
    if (page.length === 0) break;
    const done = await deletePage(d, userSeq, page);
    out.resources += done.deleted.length;
    out.freedBytes += done.freedBytes;
    // A share someone else made on one of them (kept by nothing now).
    for (const resourceSeq of done.deleted) {
      const share = await shareOfResource(d.kv, resourceSeq);
      if (share) {
        await removeShare(d, share.shareSeq, null).catch((e) => ignoreGone(e, "SHARE_006"));
      }
    }
  }
  await commitWithRetry(async () => {
    const [entry, usage] = await Promise.all([
      getUserEntry(d.kv, userSeq),
      readUsageEntry(d.kv, userSeq),
    ]);
    const op = d.kv.atomic();
    if (entry.value) dropUserRecords(op, entry as Deno.KvEntry<User>);
    dropUsage(op, usage, userSeq);
    dropLockStamp(op, userSeq);
    dropTreeShape(op, userSeq);
    dropJob(op, "user_delete", userSeq);
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
  return out;
}

function ignoreGone(err: unknown, code: string): void {
  if ((err as { code?: string })?.code !== code) throw err;
}

/**
 * Deletes a prefix of `page` that fits one commit, each resource checked against the entry read,
 * and lowers the usage by what it freed; then deletes the freed blobs. A file with more versions
 * than one commit takes sheds them over several commits first.
 */
async function deletePage(
  d: Deps,
  ownerSeq: number,
  page: Deno.KvEntry<Resource>[],
): Promise<{ deleted: number[]; freedBytes: number }> {
  let blobIds: string[] = [];
  const outcome = await commitWithRetry(async () => {
    const usage = await readUsageEntry(d.kv, ownerSeq);
    const op = d.kv.atomic();
    let mutations = 2;
    let freed = 0;
    const deleted: number[] = [];
    blobIds = [];
    for (const entry of page) {
      const r = entry.value;
      const versions = await listVersions(d.kv, r.rs);
      const cost = versions.length + PER_RESOURCE_MUTATIONS + searchKeyCount(r);
      if (deleted.length > 0 && mutations + cost > MAX_MUTATIONS) break;
      if (cost > MAX_MUTATIONS) {
        freed += await shedVersions(d.kv, op, r.rs, versions.slice(0, MAX_CHECKS - 1), blobIds);
        break;
      }
      mutations += cost;
      op.check(entry);
      freed += dropResource(op, r, versions, null, blobIds);
      dropPurgeMarker(op, r.rs);
      deleted.push(r.rs);
    }
    chargeUsage(op, usage, ownerSeq, -freed, Number.MAX_SAFE_INTEGER, "RESOURCE_015");
    return (await commit(op)) === true ? { deleted, freedBytes: freed } : CONFLICT;
  });
  await deleteBlobs(d, blobIds, "user deletion");
  await dropDeadProps(d.kv, ownerSeq, outcome.deleted);
  return outcome;
}

interface TenantDeletion {
  tenantId: number;
  name: string;
  users: UserDeletion[];
}

/**
 * Deletes tenant `id` with every user in it. `confirm` must repeat the tenant's name (exactly),
 * ADMIN_002 otherwise. The tenant is disabled first, so all its users stop at once.
 */
export async function deleteTenant(d: Deps, id: number, confirm: string): Promise<TenantDeletion> {
  const tenant = await requireTenant(d.kv, id);
  if (confirm !== tenant.name) {
    fail("ADMIN_002", `confirm must be "${tenant.name}" to delete tenant ${id}`, "confirm");
  }
  await recordJob(d.kv, { kind: "tenant_delete", id, startedAt: Date.now() });
  return await finishTenantDeletion(d, id);
}

/** The tenant deletion's steps after it was recorded; also how a recorded one is resumed. */
export async function finishTenantDeletion(d: Deps, id: number): Promise<TenantDeletion> {
  const tenant = await setTenantDisabled(d.kv, id, true);
  const users: UserDeletion[] = [];
  for (;;) {
    const batch: User[] = [];
    for await (const u of iterateUsers(d.kv, id)) {
      batch.push(u);
      if (batch.length === 50) break;
    }
    if (batch.length === 0) break;
    for (const u of batch) {
      await recordJob(d.kv, { kind: "user_delete", id: u.userSeq, startedAt: Date.now() });
      users.push(await finishUserDeletion(d, u));
    }
  }
  await commitWithRetry(async () => {
    const entry = await getTenantEntry(d.kv, id);
    const op = d.kv.atomic();
    dropTenantRecord(op, entry, id);
    dropOidcSettings(op, id);
    dropJob(op, "tenant_delete", id);
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
  return { tenantId: id, name: tenant.name, users };
}
