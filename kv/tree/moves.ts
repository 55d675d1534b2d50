/**
 * Changing where a resource is: rename in place, move within a drive, move a file to another
 * user's drive, and move to the trash. Each commit is checked against the resource, its lock,
 * for a folder the locks of the documents inside it, and the WebDAV locks protecting the
 * membership of the folders it leaves and joins (the commit discipline is in placement.ts).
 * Restoring from the trash and purging it are in trash.ts.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import type { Deps } from "../deps.ts";
import { type ErrorCode, fail } from "../errors.ts";
import { requireUser } from "../identity/users.ts";
import { shareByResKey } from "../keys.ts";
import { assertNotLockedByOther, type LockOwner } from "./locks.ts";
import { readMembershipLockGuard } from "./dav_locks.ts";
import {
  folderLockGuard,
  type OnNameConflict,
  pickName,
  readLiveEntries,
  requireFolderEntry,
} from "./placement.ts";
import {
  getResourceEntry,
  loadPath,
  MAX_DEPTH,
  type Resource,
  writeResource,
} from "./resources.ts";
import { iterateChildren } from "./listing.ts";
import { listVersions } from "./content_versions.ts";
import { validateName } from "./names.ts";
import { chargeUsage, readUsageEntry } from "./usage.ts";
import { readTreeShape } from "./tree_shape.ts";
import { moveDeadPropMark } from "./dead_props.ts";

/** Renames in place. NONE rejects a taken name (RESOURCE_003); AUTO picks "name (n)". */
export function renameResource(
  d: Deps,
  input: {
    rs: number;
    name: string;
    onConflict: OnNameConflict;
    actorSeq: number;
    field?: string;
    lockOwner?: LockOwner;
  },
): Promise<Resource> {
  const name = validateName(input.name, input.field ?? "rn");
  return commitWithRetry(async () => {
    const { cur, lock } = await readLiveEntries(d, input.rs, [
      "RESOURCE_002",
      `No file or folder with seq ${input.rs}`,
    ]);
    assertNotLockedByOther(lock.value, input.lockOwner ?? null);
    if (cur.value.name === name) return cur.value;
    const guard = await folderLockGuard(d, cur.value, input.lockOwner ?? null);
    guard.push(...await memberGuard(d, cur.value, cur.value.parentRs, input.lockOwner));
    const next: Resource = {
      ...cur.value,
      name: await pickName(
        d.kv,
        cur.value.ownerSeq,
        cur.value.parentRs,
        name,
        input.onConflict,
        input.rs,
      ),
      updatedAt: Date.now(),
      updatedBy: input.actorSeq,
    };
    const op = d.kv.atomic().check(cur, lock, ...guard);
    writeResource(op, cur.value, next, input.actorSeq);
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/** What a move names: the resource, its new folder (null: the drive root), who moves it. */
export interface MoveInput {
  rs: number;
  destParentRs: number | null;
  actorSeq: number;
  onConflict?: OnNameConflict;
  /** Who is moving, for the lock check (WebDAV: the locks whose tokens were submitted). */
  lockOwner?: LockOwner;
}

/**
 * Moves a file or folder to another folder of the same drive. The destination's ancestor chain
 * is checked (versionstamps) in the same commit, so two concurrent moves can never form a cycle.
 * A locked document is refused like a rename: a provider host addresses it by path.
 */
export function moveResource(d: Deps, input: MoveInput): Promise<Resource> {
  const onConflict = input.onConflict ?? "fail";
  return commitWithRetry(async () => {
    const { cur, lock } = await readLiveEntries(d, input.rs, [
      "RESOURCE_002",
      `No file or folder with seq ${input.rs}`,
    ]);
    assertNotLockedByOther(lock.value, input.lockOwner ?? null);
    // Read before the destination's chain: a folder moved or trashed since rewrites it, so the
    // commit below fails and the walk is redone (no cycle, no landing in the trash).
    const shape = await readTreeShape(d.kv, cur.value.ownerSeq);
    const op = d.kv.atomic().check(cur, lock, shape);
    let depth = 0;
    if (input.destParentRs !== null) {
      const dest = await requireFolderEntry(d.kv, cur.value.ownerSeq, input.destParentRs);
      op.check(dest!);
      // Walk up from the destination: the moved folder must not be on that path.
      let next: number | null = input.destParentRs;
      while (next !== null) {
        if (next === input.rs) {
          fail("RESOURCE_007", "A folder cannot be moved into itself or its own subfolder", "pfs");
        }
        const entry = await getResourceEntry(d.kv, next);
        if (!entry.value) break;
        if (entry.value.trashedAt !== null) {
          fail("RESOURCE_008", `Folder ${input.destParentRs} is in the trash`, "pfs");
        }
        next = entry.value.parentRs;
        if (++depth > MAX_DEPTH) {
          fail("RESOURCE_014", `Folders may nest at most ${MAX_DEPTH} deep`, "pfs");
        }
      }
    }
    if (cur.value.parentRs === input.destParentRs) return cur.value;
    // A folder lands at depth + 1 and takes its subfolders along: all must stay within MAX_DEPTH.
    if (cur.value.type === "FOLDER" && !await fitsBelow(d.kv, cur.value, depth)) {
      fail(
        "RESOURCE_014",
        `Folders may nest at most ${MAX_DEPTH} deep, and this folder's subfolders would not`,
        "pfs",
      );
    }
    op.check(...await folderLockGuard(d, cur.value, input.lockOwner ?? null));
    // It leaves one folder and joins another: both folders' membership locks apply.
    const [leaves, joins] = await Promise.all([
      memberGuard(d, cur.value, cur.value.parentRs, input.lockOwner),
      memberGuard(d, cur.value, input.destParentRs, input.lockOwner),
    ]);
    op.check(...leaves, ...joins);
    const next: Resource = {
      ...cur.value,
      parentRs: input.destParentRs,
      name: await pickName(
        d.kv,
        cur.value.ownerSeq,
        input.destParentRs,
        cur.value.name,
        onConflict,
        input.rs,
      ),
      updatedAt: Date.now(),
      updatedBy: input.actorSeq,
    };
    writeResource(op, cur.value, next, input.actorSeq);
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/**
 * Whether `folder`, moved into a folder `destDepth` deep (0: the drive root), keeps itself and
 * every folder below it within MAX_DEPTH. Its subtree is as tall as its current depth allows, so
 * only a move deeper than where it is needs a look, and that look reads at most the levels that
 * would overflow: one scan per folder of the subtree above them.
 */
async function fitsBelow(kv: Deno.Kv, folder: Resource, destDepth: number): Promise<boolean> {
  const room = MAX_DEPTH - destDepth - 1; // levels of subfolders the folder may have there
  if (room < 0) return false;
  const currentDepth = (await loadPath(kv, folder.rs))?.path.length ?? 1;
  if (destDepth + 1 <= currentDepth) return true;
  let level = [folder];
  for (let below = 1; level.length > 0; below++) {
    const next: Resource[] = [];
    for (const parent of level) {
      for await (const child of iterateChildren(kv, parent.ownerSeq, parent.rs)) {
        if (child.type !== "FOLDER") continue;
        if (below > room) return false;
        next.push(child);
      }
    }
    level = next;
  }
  return true;
}

/**
 * Moves a file into a folder of another user's drive (e.g. a recipient taking a file out of a
 * shared folder). One commit changes the owner and moves the bytes of every stored version from
 * the old owner's usage to the new owner's, refusing with RESOURCE_015 when they do not fit.
 * A folder cannot change drives (RESOURCE_017); a same-drive target is a plain moveResource.
 */
export async function moveFileToDrive(
  d: Deps,
  input: MoveInput & { destOwnerSeq: number },
): Promise<Resource> {
  const onConflict = input.onConflict ?? "fail";
  const first = (await getResourceEntry(d.kv, input.rs)).value;
  if (first && first.ownerSeq === input.destOwnerSeq) return moveResource(d, input);
  const destOwner = await requireUser(d.kv, input.destOwnerSeq);
  const moved = await commitWithRetry(async () => {
    const { cur, lock } = await readLiveEntries(d, input.rs, [
      "RESOURCE_002",
      `No file with seq ${input.rs}`,
    ]);
    if (cur.value.type !== "FILE") {
      fail("RESOURCE_017", "Only files can move to another user's drive; copy a folder instead");
    }
    // An open editor session writes back to this file; it must not change hands under it.
    assertNotLockedByOther(lock.value, input.lockOwner ?? null);
    const [shape, dest, versions, srcUsage, destUsage, ownShare] = await Promise.all([
      readTreeShape(d.kv, destOwner.userSeq),
      requireFolderEntry(d.kv, destOwner.userSeq, input.destParentRs),
      listVersions(d.kv, input.rs),
      readUsageEntry(d.kv, cur.value.ownerSeq),
      readUsageEntry(d.kv, destOwner.userSeq),
      d.kv.get<number>(shareByResKey(input.rs)),
    ]);
    // A share belongs to its owner's drive; the new owner would inherit someone else's grants.
    if (ownShare.value !== null) {
      fail("RESOURCE_017", "The file has its own share; remove it before moving to another drive");
    }
    const lockOwner = input.lockOwner ?? null;
    const [leaves, joins] = await Promise.all([
      readMembershipLockGuard(d.kv, cur.value.ownerSeq, cur.value.parentRs, lockOwner),
      readMembershipLockGuard(d.kv, destOwner.userSeq, input.destParentRs, lockOwner),
    ]);
    const bytes = versions.reduce((sum, v) => sum + v.size, 0);
    const next: Resource = {
      ...cur.value,
      ownerSeq: destOwner.userSeq,
      tenantId: destOwner.tenantId,
      parentRs: input.destParentRs,
      name: await pickName(
        d.kv,
        destOwner.userSeq,
        input.destParentRs,
        cur.value.name,
        onConflict,
      ),
      updatedAt: Date.now(),
      updatedBy: input.actorSeq,
    };
    // The destination drive's shape: a folder above the destination trashed meanwhile retries.
    const op = d.kv.atomic().check(cur, lock, ownShare, shape, ...leaves, ...joins);
    if (dest) op.check(dest);
    chargeUsage(op, destUsage, destOwner.userSeq, bytes, destOwner.quotaBytes, "RESOURCE_015");
    chargeUsage(op, srcUsage, cur.value.ownerSeq, -bytes, Infinity, "RESOURCE_015");
    writeResource(op, cur.value, next, input.actorSeq);
    return (await commit(op)) === true ? next : CONFLICT;
  });
  // Its WebDAV dead properties stay keyed by rs; their listing mark is per owner. After the
  // commit, since that commit already holds ten checks (denokv's limit, kv/db.ts).
  if (first) await moveDeadPropMark(d.kv, input.rs, first.ownerSeq, moved.ownerSeq);
  return moved;
}

/**
 * Moves a file or folder to the trash. A folder's contents go with it (they are under a trashed
 * ancestor). A document locked by someone else is refused.
 */
export function trashResource(
  d: Deps,
  input: { rs: number; actorSeq: number; notFound?: ErrorCode; lockOwner?: LockOwner },
): Promise<Resource> {
  return commitWithRetry(async () => {
    const { cur, lock } = await readLiveEntries(d, input.rs, [
      input.notFound ?? "RESOURCE_002",
      `No file or folder with seq ${input.rs}, or it is already in the trash`,
    ]);
    assertNotLockedByOther(lock.value, input.lockOwner ?? null);
    const guard = await folderLockGuard(d, cur.value, input.lockOwner ?? null);
    guard.push(...await memberGuard(d, cur.value, cur.value.parentRs, input.lockOwner));
    const now = Date.now();
    const next: Resource = {
      ...cur.value,
      trashedAt: now,
      updatedAt: now,
      updatedBy: input.actorSeq,
    };
    const op = d.kv.atomic().check(cur, lock, ...guard);
    writeResource(op, cur.value, next, input.actorSeq);
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/**
 * The WebDAV membership locks of folder `parentRs` of `r`'s drive, which a rename, move or trash
 * of `r` changes (kv/tree/dav_locks.ts readMembershipLockGuard): the checks for its commit.
 */
function memberGuard(
  d: Deps,
  r: Resource,
  parentRs: number | null,
  owner: LockOwner | undefined,
): Promise<Deno.AtomicCheck[]> {
  return readMembershipLockGuard(d.kv, r.ownerSeq, parentRs, owner ?? null);
}
