/**
 * The trash: listing, restore and permanent deletion (purge). Trashing itself is
 * trashResource in moves.ts; a trashed item keeps its parent pointer so restore can put it
 * back. Trash counts toward the owner's usage until purged.
 * A purge marker (trash_purge, kv/keys.ts) says a purge of rs has started; restore refuses from
 * then on.
 * A purge deletes the subtree bottom-up in commits within KV's limits (children before
 * their folder), so an interrupted purge leaves a smaller, still-consistent trashed tree that
 * a repeated purge finishes. Blobs are deleted after the commit that drops their versions.
 */
import { dropDeadProps } from "./dead_props.ts";
import { commit, commitWithRetry, CONFLICT, MAX_COMMIT_CHECKS } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { purgeMarkerKey } from "../keys.ts";
import { dropLock } from "./locks.ts";
import { readMembershipLockGuard } from "./dav_locks.ts";
import {
  type ContentVersion,
  deleteVersion,
  getVersionEntry,
  listVersions,
} from "./content_versions.ts";
import {
  freeName,
  getResource,
  getResourceEntries,
  getResourceEntry,
  loadPath,
  MAX_DEPTH,
  type Resource,
  writeResource,
} from "./resources.ts";
import { iterateChildren, iterateSubtree, listIndexPage, trashIndexPrefix } from "./listing.ts";
import { searchKeyCount } from "./search_index.ts";
import { chargeUsage, readUsageEntry } from "./usage.ts";

/** Per purge commit: under KV's 1000 mutations and denokv's checks (usage takes one of each). */
const PURGE_MAX_MUTATIONS = 900;
const PURGE_MAX_CHECKS = MAX_COMMIT_CHECKS - 2;
/** Listings of a purged tree; another one is needed only when something raced into it. */
const PURGE_MAX_PASSES = 5;
/**
 * At most: resource record, up to three index keys, the lock and its owner-index entry (dropLock
 * deletes both), purge marker, an event (kv/events/log.ts). Search tokens are counted apart.
 */
const PER_RESOURCE_MUTATIONS = 8;

/** Adds to `op` removing the purge marker of `resourceSeq` (a resource deleted by other means). */
export function dropPurgeMarker(op: Deno.AtomicOperation, resourceSeq: number) {
  op.delete(purgeMarkerKey(resourceSeq));
}

/**
 * Adds to `op` deleting `r` with its `versions` (listed in the same attempt) and lock; adds the
 * versions' blobs, to delete after the commit, to `blobIds`. Returns the bytes freed.
 */
export function dropResource(
  op: Deno.AtomicOperation,
  r: Resource,
  versions: ContentVersion[],
  actorSeq: number | null,
  blobIds: string[],
): number {
  let freed = 0;
  for (const v of versions) {
    deleteVersion(op, r.rs, v.version);
    freed += v.size;
    blobIds.push(v.blobId);
  }
  writeResource(op, r, null, actorSeq);
  dropLock(op, r.ownerSeq, r.rs);
  return freed;
}

/**
 * Adds to `op` deleting `versions` of `resourceSeq`, each checked (how a file with more versions than one
 * commit takes sheds them over several); adds their blobs to `blobIds`. Returns the bytes freed.
 */
export async function shedVersions(
  kv: Deno.Kv,
  op: Deno.AtomicOperation,
  resourceSeq: number,
  versions: ContentVersion[],
  blobIds: string[],
): Promise<number> {
  let freed = 0;
  for (const v of versions) {
    const entry = await getVersionEntry(kv, resourceSeq, v.version);
    deleteVersion(op, resourceSeq, v.version, entry.versionstamp);
    freed += v.size;
    blobIds.push(v.blobId);
  }
  return freed;
}

/** Deletes blobs whose versions a commit dropped; a failure is only logged (the blob sweep, blob_sweep.ts, removes what is left). */
export async function deleteBlobs(d: Deps, blobIds: string[], what: string): Promise<void> {
  for (const blobId of blobIds) {
    await d.blobs.delete(blobId).catch((err) =>
      console.error(`${what}: could not delete blob ${blobId}:`, err)
    );
  }
}

/** One page of the owner's top-level trashed items, in resourceSeq order. */
export function listTrash(
  kv: Deno.Kv,
  ownerSeq: number,
  opts: { limit: number; cursor?: string },
): Promise<{ items: Resource[]; cursor: string | null }> {
  return listIndexPage(kv, trashIndexPrefix(ownerSeq), { ...opts, order: "asc" });
}

/** The item, when it is a top-level item of `ownerSeq`'s trash; RESOURCE_019 otherwise. */
function requireTrashed(r: Resource | null, resourceSeq: number, ownerSeq: number): Resource {
  if (!r || r.ownerSeq !== ownerSeq) {
    fail("RESOURCE_019", `Resource ${resourceSeq} is not in your trash`);
  }
  if (r.trashedAt === null) {
    fail(
      "RESOURCE_019",
      `Resource ${resourceSeq} is not itself in the trash (restore the trashed folder)`,
    );
  }
  return r;
}

/**
 * Puts a trashed item back: into its old folder when that still exists outside the trash,
 * else at the drive root; a taken name becomes "name (n)".
 */
export function restoreTrashed(
  d: Deps,
  input: { ownerSeq: number; rs: number; actorSeq: number },
): Promise<Resource> {
  return commitWithRetry(async () => {
    const [cur, marker] = await Promise.all([
      getResourceEntry(d.kv, input.rs),
      d.kv.get(purgeMarkerKey(input.rs)),
    ]);
    const item = requireTrashed(cur.value, input.rs, input.ownerSeq);
    if (marker.value !== null) fail("RESOURCE_019", `Resource ${input.rs} is being purged`);
    const op = d.kv.atomic().check(cur, marker);
    let parentRs: number | null = null;
    if (item.parentRs !== null) {
      const [parent, path] = await Promise.all([
        getResourceEntry(d.kv, item.parentRs),
        loadPath(d.kv, item.parentRs),
      ]);
      const p = parent.value;
      // A folder goes back only where a new folder could be made (the parent may have been
      // moved deeper meanwhile); otherwise to the root, as when the parent is gone.
      const roomForFolder = item.type !== "FOLDER" || (path?.path.length ?? 0) < MAX_DEPTH;
      if (
        p && path && !path.trashed && p.ownerSeq === item.ownerSeq && p.type === "FOLDER" &&
        roomForFolder
      ) {
        parentRs = p.rs;
        op.check(parent);
      }
    }
    // Back into a folder whose membership a WebDAV lock protects: refused, as any create there.
    op.check(...await readMembershipLockGuard(d.kv, item.ownerSeq, parentRs, null));
    const name = await freeName(d.kv, item.ownerSeq, parentRs, item.name, item.rs);
    const now = Date.now();
    const next: Resource = {
      ...item,
      parentRs,
      name,
      trashedAt: null,
      updatedAt: Math.max(now, item.updatedAt + 1),
      updatedBy: input.actorSeq,
    };
    writeResource(op, item, next, input.actorSeq);
    // A failed check is a lost race (name taken, parent changed): read again and retry.
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

export interface PurgeResult {
  /** Resources deleted (the item and everything below it). */
  resources: number;
  /** Bytes of stored versions removed from the owner's usage. */
  freedBytes: number;
  /** Every resource seq the purge went through (kv/sharing/purge.ts removes their shares). */
  purgedSeqs: number[];
}

/**
 * Permanently deletes a top-level trashed item with its subtree, versions and blobs. The drive
 * API calls it through kv/sharing/purge.ts, which also removes the shares of what was purged.
 */
export async function purgeTrashed(
  d: Deps,
  input: { ownerSeq: number; rs: number; actorSeq?: number },
): Promise<PurgeResult> {
  const top = await commitWithRetry(async () => {
    const [cur, marker] = await Promise.all([
      getResourceEntry(d.kv, input.rs),
      d.kv.get(purgeMarkerKey(input.rs)),
    ]);
    const item = requireTrashed(cur.value, input.rs, input.ownerSeq);
    if (marker.value !== null) return item;
    const op = d.kv.atomic().check(cur, marker).set(purgeMarkerKey(input.rs), true);
    return (await commit(op)) === true ? item : CONFLICT;
  });
  const result: PurgeResult = { resources: 0, freedBytes: 0, purgedSeqs: [] };
  // A folder that gained a child after the listing (an upload authorized before the trash) is
  // kept by its batch, and so are its ancestors; the next pass lists the tree again.
  for (let pass = 0; pass < PURGE_MAX_PASSES; pass++) {
    const cur = (await getResourceEntry(d.kv, top.rs)).value;
    if (!cur || cur.trashedAt === null || cur.ownerSeq !== input.ownerSeq) break;
    // Parents are listed before their contents; deleting in reverse removes children first.
    const order: number[] = [cur.rs];
    if (cur.type === "FOLDER") {
      for await (const { resource } of iterateSubtree(d.kv, cur)) order.push(resource.rs);
    }
    order.reverse();
    result.purgedSeqs.push(...order);
    const listed = new Set(order);
    for (let i = 0; i < order.length;) {
      const batch = order.slice(i, i + PURGE_MAX_CHECKS);
      const done = await purgeBatch(d, input, batch, top.rs, listed);
      i += done.count;
      result.resources += done.deleted;
      result.freedBytes += done.freedBytes;
    }
  }
  return result;
}

/** Whether the folder has a child in its listing that `deleting` does not hold. */
async function hasChildOutside(kv: Deno.Kv, folder: Resource, deleting: Set<number>) {
  for await (const child of iterateChildren(kv, folder.ownerSeq, folder.rs)) {
    if (!deleting.has(child.rs)) return true;
  }
  return false;
}

/**
 * Whether a listed resource is still in the purged tree. One that has left it since the listing
 * (a move authorized before the trash and committed after the listing) is no longer the
 * purge's: every folder from it up to the trashed top must still be a listed one.
 */
function purgedTreeTest(kv: Deno.Kv, ownerSeq: number, topRs: number, listed: Set<number>) {
  const parents = new Map<number, Promise<boolean>>();
  const inTree = (r: Resource | null): Promise<boolean> => {
    if (!r || r.ownerSeq !== ownerSeq || !listed.has(r.rs)) return Promise.resolve(false);
    if (r.rs === topRs) return Promise.resolve(r.trashedAt !== null);
    if (r.parentRs === null) return Promise.resolve(false);
    const parentRs = r.parentRs;
    if (!parents.has(parentRs)) {
      parents.set(parentRs, getResource(kv, parentRs).then(inTree));
    }
    return parents.get(parentRs)!;
  };
  return inTree;
}

/**
 * Deletes a prefix of `seqs` that fits one commit and returns how many seqs it consumed. Each
 * deleted resource's versionstamp is checked, so two purges racing never free bytes twice. A
 * file with more versions than one commit takes sheds them (each checked) over several commits
 * first.
 */
async function purgeBatch(
  d: Deps,
  { ownerSeq, actorSeq = ownerSeq }: { ownerSeq: number; actorSeq?: number },
  seqs: number[],
  topRs: number,
  listed: Set<number>,
): Promise<{ count: number; deleted: number; freedBytes: number }> {
  let blobIds: string[] = [];
  let dropped: number[] = [];
  const outcome = await commitWithRetry(async () => {
    const [entries, usage] = await Promise.all([
      getResourceEntries(d.kv, seqs),
      readUsageEntry(d.kv, ownerSeq),
    ]);
    const inTree = purgedTreeTest(d.kv, ownerSeq, topRs, listed);
    const op = d.kv.atomic();
    // Usage, and the event log's tick (kv/events/log.ts).
    let mutations = 2;
    let count = 0;
    let deleted = 0;
    let freed = 0;
    blobIds = [];
    const deleting = new Set<number>();
    dropped = [];
    for (const entry of entries) {
      let r = await inTree(entry.value) ? entry.value : null;
      if (r?.type === "FOLDER" && await hasChildOutside(d.kv, r, deleting)) r = null;
      const versions = r ? await listVersions(d.kv, r.rs) : [];
      const cost = versions.length + PER_RESOURCE_MUTATIONS + searchKeyCount(r);
      if (count > 0 && mutations + cost > PURGE_MAX_MUTATIONS) break;
      if (r && cost > PURGE_MAX_MUTATIONS) {
        freed += await shedVersions(d.kv, op, r.rs, versions.slice(0, PURGE_MAX_CHECKS), blobIds);
        break;
      }
      count++;
      mutations += cost;
      if (!r) continue;
      op.check(entry);
      freed += dropResource(op, r, versions, actorSeq, blobIds);
      deleting.add(r.rs);
      dropped.push(r.rs);
      if (r.rs === topRs) op.delete(purgeMarkerKey(r.rs));
      deleted++;
    }
    chargeUsage(op, usage, ownerSeq, -freed, Number.MAX_SAFE_INTEGER, "RESOURCE_015");
    return (await commit(op)) === true ? { count, deleted, freedBytes: freed } : CONFLICT;
  });
  await deleteBlobs(d, blobIds, "purge");
  // WebDAV dead properties of what the commit deleted (kept apart: the commit's budget is full).
  await dropDeadProps(d.kv, ownerSeq, dropped);
  return outcome;
}
