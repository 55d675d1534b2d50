/**
 * Transferring a user's drive to another user of the same tenant (docs/operations.md
 * "Lifecycle"). Same tenant only: a tenant's share policy and ORG_LINK audience are the tenant's,
 * and moving data across organizations is an export, not a transfer.
 *
 * The receiving user gets a new folder in their root named after the old user (their accountId,
 * "alice (1)" when taken), and everything of the old user moves under it, trash included (a
 * trashed top-level item restores into that folder). Names cannot collide below it; the folder
 * itself takes a free name. Each page of resources moves in one commit that rewrites their
 * records, index and search keys and moves exactly their stored bytes from one usage to the
 * other (the receiving quota may be exceeded: an administrator decided). The shares the old
 * user made are removed first (their links stop; recipients lose access), and locks on moved
 * documents are released, since both name the old owner. The job is recorded
 * (kv/lifecycle/jobs.ts) before the first change and removed after the last, so a crash is
 * finished by repeating the call or by the retention job.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail, isDriveError } from "../errors.ts";
import { requireUser, type User } from "../identity/users.ts";
import { shareByOwnerKey } from "../keys.ts";
import { removeShare } from "../sharing/share_writes.ts";
import { createFolder } from "../tree/folders.ts";
import { dropLock } from "../tree/locks.ts";
import { getResource, nameHolder, type Resource, writeResource } from "../tree/resources.ts";
import { listVersions } from "../tree/content_versions.ts";
import { nameKeyOf, numberedName } from "../tree/names.ts";
import { chargeUsage, readUsageEntry } from "../tree/usage.ts";
import { getJob, type LifecycleJob, recordJob, updateJob } from "./jobs.ts";
import { dropJob } from "./jobs.ts";
import { firstOwned } from "./owned.ts";

/** Resources per commit: each rewrites up to ~36 keys (index, 24 search tokens, lock, event). */
const PAGE = 20;

interface DriveTransfer {
  fromUserSeq: number;
  toUserSeq: number;
  /** The folder in the receiving user's root that holds the transferred drive. */
  folderRs: number;
  folderName: string;
  /** Resources moved (files and folders, trash included). */
  resources: number;
  /** Bytes of stored versions moved from one usage to the other. */
  movedBytes: number;
  sharesRemoved: number;
}

/** Moves the drive of `fromUserSeq` into a new folder of `toUserSeq`. */
export async function transferDrive(
  d: Deps,
  input: { fromUserSeq: number; toUserSeq: number },
): Promise<DriveTransfer> {
  const from = await requireUser(d.kv, input.fromUserSeq, "userSeq");
  const to = await requireUser(d.kv, input.toUserSeq, "toUserSeq");
  if (from.userSeq === to.userSeq || from.tenantId !== to.tenantId) {
    fail(
      "USER_004",
      from.userSeq === to.userSeq
        ? "toUserSeq must be another user"
        : `User ${to.userSeq} is in tenant ${to.tenantId}, not ${from.tenantId}`,
      "toUserSeq",
    );
  }
  for (const seq of [from.userSeq, to.userSeq]) {
    if ((await getJob(d.kv, "user_delete", seq)).value) {
      fail("USER_005", `User ${seq} is being deleted`);
    }
  }
  const job = await recordJob(d.kv, {
    kind: "transfer",
    id: from.userSeq,
    startedAt: Date.now(),
    toUserSeq: to.userSeq,
    folderRs: null,
  });
  if (job.toUserSeq !== to.userSeq) {
    fail("USER_005", `User ${from.userSeq}'s drive is being transferred to ${job.toUserSeq}`);
  }
  return await finishTransfer(d, job);
}

/** The transfer's steps after it was recorded; also how a recorded transfer is resumed. */
export async function finishTransfer(d: Deps, job: LifecycleJob): Promise<DriveTransfer> {
  const from = await requireUser(d.kv, job.id, "userSeq");
  const to = await requireUser(d.kv, job.toUserSeq!, "toUserSeq");
  const folder = await transferFolder(d, job, from, to);
  const out: DriveTransfer = {
    fromUserSeq: from.userSeq,
    toUserSeq: to.userSeq,
    folderRs: folder.rs,
    folderName: folder.name,
    resources: 0,
    movedBytes: 0,
    sharesRemoved: 0,
  };
  for await (const e of d.kv.list({ prefix: shareByOwnerKey(from.userSeq) })) {
    await removeShare(d, e.key[2] as number, null).then(
      () => out.sharesRemoved++,
      (err) => {
        if (!isDriveError(err, "SHARE_006")) throw err;
      },
    );
  }
  for (;;) {
    const page = await firstOwned(d.kv, from.userSeq, PAGE);
    if (page.length === 0) break;
    const moved = await movePage(d, from, to, folder.rs, page);
    out.resources += moved.count;
    out.movedBytes += moved.bytes;
  }
  await commitWithRetry(async () => {
    const cur = await getJob(d.kv, "transfer", from.userSeq);
    const op = d.kv.atomic().check(cur);
    dropJob(op, "transfer", from.userSeq);
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
  return out;
}

/** The job's folder, made on the first run (named after the old user) and noted in the job. */
async function transferFolder(d: Deps, job: LifecycleJob, from: User, to: User) {
  const existing = job.folderRs ? await getResource(d.kv, job.folderRs) : null;
  if (existing && existing.ownerSeq === to.userSeq) return existing;
  const create = (name: string) =>
    createFolder(d, {
      ownerSeq: to.userSeq,
      parentRs: null,
      name,
      actorSeq: to.userSeq,
      onConflict: "rename",
    });
  // An accountId that is not a valid file name (a slash, say) falls back to the user's seq.
  const folder = await create(from.accountId).catch((err) => {
    if (isDriveError(err, "RESOURCE_003")) throw err;
    if (isDriveError(err)) return create(`user ${from.userSeq}`);
    throw err;
  });
  await updateJob(d.kv, { ...job, folderRs: folder.rs });
  return folder;
}

/** Moves a page of resources to `to` in one commit, with their usage. */
async function movePage(
  d: Deps,
  from: User,
  to: User,
  folderRs: number,
  page: Deno.KvEntry<Resource>[],
): Promise<{ count: number; bytes: number }> {
  return await commitWithRetry(async () => {
    const [fromUsage, toUsage] = await Promise.all([
      readUsageEntry(d.kv, from.userSeq),
      readUsageEntry(d.kv, to.userSeq),
    ]);
    const op = d.kv.atomic();
    let bytes = 0;
    const taken = new Set<string>();
    for (const entry of page) {
      const r = entry.value;
      for (const v of r.type === "FILE" ? await listVersions(d.kv, r.rs) : []) bytes += v.size;
      // Items of the old root go into the folder; only live ones hold a name slot there.
      const toRoot = r.parentRs === null;
      const name = toRoot && r.trashedAt === null
        ? await freeSlot(d.kv, to.userSeq, folderRs, r, taken)
        : r.name;
      const after: Resource = {
        ...r,
        ownerSeq: to.userSeq,
        tenantId: to.tenantId,
        parentRs: toRoot ? folderRs : r.parentRs,
        name,
      };
      op.check(entry);
      writeResource(op, r, after, null);
      dropLock(op, from.userSeq, r.rs);
    }
    chargeUsage(op, fromUsage, from.userSeq, -bytes, Number.MAX_SAFE_INTEGER, "RESOURCE_015");
    chargeUsage(op, toUsage, to.userSeq, bytes, Number.MAX_SAFE_INTEGER, "RESOURCE_015");
    return (await commit(op)) === true ? { count: page.length, bytes } : CONFLICT;
  });
}

/** `r.name`, or the first "name (n)" free in the folder and not taken earlier in this page. */
async function freeSlot(
  kv: Deno.Kv,
  ownerSeq: number,
  folderRs: number,
  r: Resource,
  taken: Set<string>,
): Promise<string> {
  for (let n = 0; n < 10_000; n++) {
    const candidate = n === 0 ? r.name : numberedName(r.name, n);
    if (taken.has(nameKeyOf(candidate))) continue;
    const holder = await nameHolder(kv, ownerSeq, folderRs, candidate);
    if (holder === null || holder === r.rs) {
      taken.add(nameKeyOf(candidate));
      return candidate;
    }
  }
  return fail("RESOURCE_003", `Too many files named like "${r.name}"`);
}
