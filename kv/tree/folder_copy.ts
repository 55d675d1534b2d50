/**
 * Copying a folder with everything under it into a folder of the same or another drive (the drive
 * API's `POST /folders/{rs}/copy` and WebDAV's COPY of a collection), in the name of the caller.
 *
 * Order of work, and why:
 * 1. Plan: read the source subtree (folders before their contents), refusing a copy into itself
 *    (RESOURCE_007), more items than `folderCopyMaxItems` (RESOURCE_021), a tree that would nest
 *    past MAX_DEPTH (RESOURCE_014) or more bytes than the destination owner has free
 *    (RESOURCE_015). Nothing is written before all of these pass.
 * 2. One commit creates the top folder under a working name, "name (copying …)", and charges the
 *    destination owner's usage for every byte of the plan, so the copy cannot run out of quota
 *    halfway and concurrent uploads cannot take the room it needs.
 * 3. The items below are committed in batches that fit denokv's MAX_COMMIT_CHECKS: each new item
 *    checks its name slot, and each batch checks the top folder's entry (a top folder trashed,
 *    moved or renamed meanwhile stops the copy). A file's copy gets its own blob through
 *    `blobs.copy` (a hard link or a server-side copy; no bytes pass through here), as copyFile.
 *    Every item is written through writeResource with the "copy" hint, so the change feed, the
 *    search index and the activity log see each one as copied.
 * 4. The usage is settled (sources that changed or went away while copying), and the top folder
 *    is renamed to its final name: only a complete copy ever carries that name.
 *
 * A crash midway leaves a folder still called "name (copying …)": visibly unfinished, never
 * mistaken for a complete copy, and removable like any folder. Its reserved bytes stay charged
 * until the usage recount (kv/ops/usage_recount.ts) sets usage to what is stored.
 */
import { BlobNotFoundError } from "../../blobs/store.ts";
import { commit, commitWithRetry, CONFLICT, MAX_COMMIT_CHECKS } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { requireUser, type User } from "../identity/users.ts";
import { writeVersion } from "./content_versions.ts";
import { readMembershipLockGuard } from "./dav_locks.ts";
import { iterateChildren } from "./listing.ts";
import type { LockOwner } from "./locks.ts";
import { renameResource } from "./moves.ts";
import { validateName } from "./names.ts";
import { newResource, type OnNameConflict, pickName, requireFolderEntry } from "./placement.ts";
import {
  getResourceEntry,
  loadPath,
  MAX_DEPTH,
  type Resource,
  writeResource,
} from "./resources.ts";
import { chargeUsage, readUsageEntry } from "./usage.ts";

/** Items per batch commit: one name-slot check each, plus the top folder's entry. */
export const COPY_BATCH = MAX_COMMIT_CHECKS - 1;

export interface FolderCopyInput {
  rs: number;
  destOwnerSeq: number;
  destParentRs: number | null;
  actorSeq: number;
  /** The copy's name (WebDAV's COPY names it); default the source's. */
  name?: string;
  /** A taken final name: "rename" picks "name (n)" (the API), "fail" is RESOURCE_003 (WebDAV). */
  onConflict?: OnNameConflict;
  /** Who is writing, for the destination folder's WebDAV locks. */
  lockOwner?: LockOwner;
  /** Runs after each item is copied (WebDAV copies its dead properties). */
  onCopied?: (src: Resource, made: Resource) => Promise<void>;
}

/** One source item of the plan, with where its copy goes (the copy of its parent). */
interface PlanItem {
  src: Resource;
  /** The source parent's rs, whose copy is this item's destination parent. */
  srcParent: number;
}

/** Copies folder `input.rs` and everything under it; returns the new top folder. */
export async function copyFolder(d: Deps, input: FolderCopyInput): Promise<Resource> {
  const srcEntry = await getResourceEntry(d.kv, input.rs);
  const src = srcEntry.value;
  if (!src || src.trashedAt !== null) fail("RESOURCE_002", `No folder with seq ${input.rs}`);
  if (src.type !== "FOLDER") fail("RESOURCE_005", `Resource ${input.rs} is a file, not a folder`);
  const finalName = validateName(input.name ?? src.name, "name");
  const owner = await requireUser(d.kv, input.destOwnerSeq);
  await requireFolderEntry(d.kv, owner.userSeq, input.destParentRs);
  const destDepth = await depthOfDestination(d.kv, input);
  const plan = await planCopy(d, src, destDepth);
  const top = await createTop(d, input, owner, src, plan.bytes);
  const copies = new Map<number, number>([[src.rs, top.rs]]);
  await input.onCopied?.(src, top);
  let written = 0;
  try {
    for (let i = 0; i < plan.items.length; i += COPY_BATCH) {
      const batch = plan.items.slice(i, i + COPY_BATCH);
      const made = await copyBatch(d, input, owner, top, batch, copies);
      written += made.reduce((n, m) => n + m.copy.size, 0);
      for (const m of made) await input.onCopied?.(m.src, m.copy);
    }
  } catch (err) {
    // A copy that fails midway (not a crash) gives back the bytes it reserved and did not store;
    // its folder keeps the working name, so it is seen as unfinished.
    await settleUsage(d, owner, written - plan.bytes).catch((e) =>
      console.error(`could not release the reserved bytes of copy ${top.rs}:`, e)
    );
    throw err;
  }
  if (written !== plan.bytes) await settleUsage(d, owner, written - plan.bytes);
  return await renameResource(d, {
    rs: top.rs,
    name: finalName,
    onConflict: input.onConflict ?? "rename",
    actorSeq: input.actorSeq,
    field: "name",
    lockOwner: input.lockOwner,
  });
}

/** How deep the destination folder is (0: a drive root); RESOURCE_007 for a copy into itself. */
async function depthOfDestination(kv: Deno.Kv, input: FolderCopyInput): Promise<number> {
  if (input.destParentRs === null) return 0;
  const path = (await loadPath(kv, input.destParentRs))?.path ?? [];
  if (path.some((r) => r.rs === input.rs)) {
    fail("RESOURCE_007", "A folder cannot be copied into itself or its own subfolder", "pfs");
  }
  return path.length;
}

/**
 * Every item under `folder`, each folder before its contents, and their bytes; refuses a plan
 * over the item limit (stopping the walk there) or one nesting past MAX_DEPTH at `destDepth`.
 */
async function planCopy(d: Deps, folder: Resource, destDepth: number) {
  if (destDepth + 1 > MAX_DEPTH) {
    fail("RESOURCE_014", `Folders may nest at most ${MAX_DEPTH} deep`, "pfs");
  }
  const max = d.config.folderCopyMaxItems;
  const items: PlanItem[] = [];
  let bytes = 0;
  // Breadth first: `level` holds the folders whose children are read next, `depth` deep.
  let level = [folder];
  for (let depth = destDepth + 1; level.length > 0; depth++) {
    const next: Resource[] = [];
    for (const parent of level) {
      for await (const child of iterateChildren(d.kv, parent.ownerSeq, parent.rs)) {
        if (items.length >= max) {
          fail(
            "RESOURCE_021",
            `The folder holds more than ${max} items, the most one copy takes ` +
              "(DRIVE_FOLDER_COPY_MAX_ITEMS); copy its subfolders one by one",
          );
        }
        items.push({ src: child, srcParent: parent.rs });
        if (child.type === "FOLDER") next.push(child);
        else bytes += child.size;
      }
    }
    if (next.length > 0 && depth + 1 > MAX_DEPTH) {
      fail("RESOURCE_014", `Folders may nest at most ${MAX_DEPTH} deep; the copy would not`, "pfs");
    }
    level = next;
  }
  return { items, bytes };
}

/** A working name no user picks, unique per copy, within the name length limit. */
function workingName(name: string): string {
  const tag = ` (copying ${crypto.randomUUID().slice(0, 8)})`;
  return [...name].slice(0, 200).join("") + tag;
}

/** Step 2: the top folder under its working name, and the whole plan's bytes charged. */
async function createTop(
  d: Deps,
  input: FolderCopyInput,
  owner: User,
  src: Resource,
  bytes: number,
): Promise<Resource> {
  const name = workingName(src.name);
  const rs = await d.ids.next("resource");
  return await commitWithRetry(async () => {
    const [parent, usage, guard] = await Promise.all([
      requireFolderEntry(d.kv, owner.userSeq, input.destParentRs),
      readUsageEntry(d.kv, owner.userSeq),
      readMembershipLockGuard(d.kv, owner.userSeq, input.destParentRs, input.lockOwner ?? null),
    ]);
    const folder = newResource({
      rs,
      ownerSeq: owner.userSeq,
      tenantId: owner.tenantId,
      parentRs: input.destParentRs,
      name: await pickName(d.kv, owner.userSeq, input.destParentRs, name, "rename"),
      actorSeq: input.actorSeq,
      content: null,
    });
    const op = d.kv.atomic().check(...guard);
    if (parent) op.check(parent);
    chargeUsage(op, usage, owner.userSeq, bytes, owner.quotaBytes, "RESOURCE_015");
    writeResource(op, null, folder, input.actorSeq, "copy");
    return (await commit(op)) === true ? folder : CONFLICT;
  });
}

/** The source file's current blob copied (re-read when its content was replaced meanwhile). */
async function copyBlob(d: Deps, file: Resource): Promise<Resource | null> {
  let cur: Resource | null = file;
  for (let attempt = 0;; attempt++) {
    try {
      return { ...cur, blobId: await d.blobs.copy(cur.blobId!) };
    } catch (err) {
      const now: Resource | null = (await getResourceEntry(d.kv, file.rs)).value;
      if (!(err instanceof BlobNotFoundError) || now?.blobId === cur.blobId) throw err;
      // Trashed or deleted since the plan: it is left out of the copy.
      if (!now || now.trashedAt !== null) return null;
      if (attempt >= 3) fail("RESOURCE_012", `File ${file.rs} keeps changing; retry the copy`);
      cur = now;
    }
  }
}

/**
 * Step 3: one batch of items, committed together with a check of the top folder. Returns the
 * items it stored. Blobs copied for a batch that then fails are deleted again.
 */
async function copyBatch(
  d: Deps,
  input: FolderCopyInput,
  owner: User,
  top: Resource,
  batch: PlanItem[],
  copies: Map<number, number>,
): Promise<{ src: Resource; copy: Resource }[]> {
  const sources = await Promise.all(
    batch.map((it) => it.src.type === "FILE" ? copyBlob(d, it.src) : Promise.resolve(it.src)),
  );
  const rss = await Promise.all(batch.map(() => d.ids.next("resource")));
  // A folder's children may come in the same batch: its copy's rs is known before the commit.
  for (const [i, it] of batch.entries()) {
    if (it.src.type === "FOLDER") copies.set(it.src.rs, rss[i]);
  }
  const made: { src: Resource; copy: Resource }[] = [];
  let retry = false;
  try {
    await commitWithRetry(async () => {
      made.length = 0;
      const topEntry = await getResourceEntry(d.kv, top.rs);
      const t = topEntry.value;
      if (!t || t.trashedAt !== null || t.parentRs !== input.destParentRs) {
        fail("RESOURCE_012", "The copy's folder was moved or trashed while copying");
      }
      const op = d.kv.atomic().check(topEntry);
      for (const [i, it] of batch.entries()) {
        const s = sources[i];
        if (!s) continue;
        const parentRs = copies.get(it.srcParent)!;
        const content = s.type === "FILE"
          ? { blobId: s.blobId!, size: s.size, sha256: s.sha256! }
          : null;
        const copy = newResource({
          rs: rss[i],
          ownerSeq: owner.userSeq,
          tenantId: owner.tenantId,
          parentRs,
          // Inside the new folders every name is free, unless someone wrote there meanwhile: a
          // failed commit looks the names up again ("name (n)" when taken).
          name: retry ? await pickName(d.kv, owner.userSeq, parentRs, s.name, "rename") : s.name,
          actorSeq: input.actorSeq,
          content,
        });
        writeResource(op, null, copy, input.actorSeq, "copy");
        if (content) {
          writeVersion(op, copy.rs, {
            version: copy.version,
            ...content,
            createdAt: copy.createdAt,
            createdBy: input.actorSeq,
            reason: "copy",
          });
        }
        made.push({ src: it.src, copy });
      }
      if ((await commit(op)) === true) return true;
      retry = true;
      return CONFLICT;
    });
  } catch (err) {
    await Promise.all(
      sources.map((s, i) =>
        s && batch[i].src.type === "FILE"
          ? d.blobs.delete(s.blobId!).catch(() => {})
          : Promise.resolve()
      ),
    );
    throw err;
  }
  return made;
}

/** Step 4: usage set to what was stored (sources changed or trashed while copying). */
function settleUsage(d: Deps, owner: User, delta: number): Promise<void> {
  return commitWithRetry(async () => {
    const usage = await readUsageEntry(d.kv, owner.userSeq);
    const op = d.kv.atomic();
    // No quota check here: the copy is complete, and a source that grew meanwhile should not
    // leave it unfinished (the next upload meets the quota).
    chargeUsage(op, usage, owner.userSeq, delta, Infinity, "RESOURCE_015");
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
}
