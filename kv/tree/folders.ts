/**
 * Creating a folder: one commit writes the folder and its index entries, checked against the
 * parent and the free name slot (the commit discipline is in placement.ts). The id comes from
 * the process's block of ids (`d.ids`), so no create waits on a shared counter.
 *
 * Reads on the common path: at most the owner's lock stamp. An edge that authorized the parent
 * hands over what it read (the parent's entry: its record's, or its name-index entry, which every
 * commit changing the record rewrites with it; its depth; the owner's lock stamp when it read it);
 * the commit checks that entry, the stamp and that the name slot is free. Only when that commit
 * fails (the name is taken, the parent changed, a lock was taken) does the next attempt read the
 * owner, the parent, the name slot and the stamp in one `getMany`, to answer RESOURCE_003 /
 * RESOURCE_008 / RESOURCE_010, pick "name (n)", or commit on what is there now. The stamp says
 * whether a WebDAV lock may protect the parent's membership (kv/tree/dav_locks.ts).
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import type { User } from "../identity/users.ts";
import { lockStampKey, resourceKey, userKey } from "../keys.ts";
import { readMembershipLockGuard } from "./dav_locks.ts";
import type { LockOwner } from "./locks.ts";
import { newResource, type OnNameConflict, pickName } from "./placement.ts";
import {
  freeName,
  type IndexValue,
  loadPath,
  MAX_DEPTH,
  nameIndexKey,
  type Resource,
  rsOfIndexValue,
  writeResource,
} from "./resources.ts";
import { validateName } from "./names.ts";

export async function createFolder(
  d: Deps,
  input: {
    ownerSeq: number;
    parentRs: number | null;
    name: string;
    actorSeq: number;
    onConflict?: OnNameConflict;
    /** Who is writing, for the parent's WebDAV locks (WebDAV: the tokens submitted). */
    lockOwner?: LockOwner;
    /** How many folders deep the parent is (1 = in the drive root), when the caller knows. */
    parentDepth?: number;
    /**
     * What the caller just read, for the first attempt to commit on without reading: the parent
     * entry (with `parentRs`), or the owner (a create in the owner's drive root).
     */
    known?: ({ parent: Deno.KvEntry<Resource> } | { owner: Pick<User, "userSeq" | "tenantId"> }) & {
      /** The owner's lock stamp entry (kv/tree/dav_locks.ts), when the caller read it. */
      lockStamp?: Deno.KvEntryMaybe<number>;
    };
  },
): Promise<Resource> {
  const name = validateName(input.name, "fn");
  const onConflict = input.onConflict ?? "fail";
  if (input.parentRs !== null) {
    const depth = input.parentDepth ?? (await loadPath(d.kv, input.parentRs))?.path.length ?? 0;
    if (depth >= MAX_DEPTH) {
      fail("RESOURCE_014", `Folders may nest at most ${MAX_DEPTH} deep`, "pfs");
    }
  }
  const resourceSeq = await d.ids.next("resource");
  let known = knownSlot(input);
  return commitWithRetry(async () => {
    const read = known ?? await readCreateSlot(d.kv, input.ownerSeq, input.parentRs, name);
    known = null;
    let chosen = name;
    if (read.holder !== null) {
      // Taken: fail, or the first free "name (n)" (a few more reads, off the common path).
      chosen = onConflict === "rename"
        ? await freeName(d.kv, input.ownerSeq, input.parentRs, name)
        : await pickName(d.kv, input.ownerSeq, input.parentRs, name, "fail");
    }
    const folder = newResource({
      rs: resourceSeq,
      ownerSeq: read.owner.userSeq,
      tenantId: read.owner.tenantId,
      parentRs: input.parentRs,
      name: chosen,
      actorSeq: input.actorSeq,
      content: null,
    });
    // A WebDAV lock on the parent protects its membership (checked in the commit: the stamp).
    const guard = await readMembershipLockGuard(
      d.kv,
      read.owner.userSeq,
      input.parentRs,
      input.lockOwner ?? null,
      read.lockStamp,
    );
    const op = d.kv.atomic().check(...guard);
    if (read.parent) op.check(read.parent);
    writeResource(op, null, folder, input.actorSeq);
    return (await commit(op)) === true ? folder : CONFLICT;
  });
}

/**
 * The first attempt's view from what the caller read, when it fits this create: the name slot is
 * taken to be free, since the commit checks it (a taken slot fails the commit, and the next
 * attempt reads it). Null: read it all.
 */
function knownSlot(input: Parameters<typeof createFolder>[1]): CreateSlot | null {
  const known = input.known;
  if (!known) return null;
  if ("parent" in known) {
    const p = known.parent.value;
    const fits = p.rs === input.parentRs && p.ownerSeq === input.ownerSeq &&
      p.type === "FOLDER" && p.trashedAt === null;
    return fits
      ? {
        owner: { userSeq: p.ownerSeq, tenantId: p.tenantId },
        parent: known.parent,
        holder: null,
        lockStamp: known.lockStamp,
      }
      : null;
  }
  return input.parentRs === null && known.owner.userSeq === input.ownerSeq
    ? { owner: known.owner, parent: null, holder: null, lockStamp: known.lockStamp }
    : null;
}

interface CreateSlot {
  owner: Pick<User, "userSeq" | "tenantId">;
  parent: Deno.KvEntry<Resource> | null;
  holder: number | null;
  /** The owner's lock stamp entry; undefined: not read yet. */
  lockStamp?: Deno.KvEntryMaybe<number>;
}

/**
 * The owner, the parent folder's entry (null for the drive root; the commit checks it) and who
 * holds the name slot, in one getMany. USER_001, RESOURCE_008 and RESOURCE_005 as
 * requireUser and requireFolderEntry answer them.
 */
async function readCreateSlot(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
): Promise<CreateSlot> {
  const keys: Deno.KvKey[] = [
    userKey(ownerSeq),
    nameIndexKey(ownerSeq, parentRs, name),
    lockStampKey(ownerSeq),
  ];
  if (parentRs !== null) keys.push(resourceKey(parentRs));
  const entries = await kv.getMany<unknown[]>(keys);
  const owner = (entries[0].value as User | null) ??
    fail("USER_001", `No user with seq ${ownerSeq}`, "userSeq");
  const slot = entries[1] as Deno.KvEntryMaybe<IndexValue>;
  const lockStamp = entries[2] as Deno.KvEntryMaybe<number>;
  const parentEntry = entries[3] as Deno.KvEntryMaybe<Resource> | undefined;
  let parent: Deno.KvEntry<Resource> | null = null;
  if (parentRs !== null) {
    const p = parentEntry?.value;
    if (!p || p.trashedAt !== null || p.ownerSeq !== ownerSeq) {
      fail("RESOURCE_008", `No folder with seq ${parentRs} in this drive`, "pfs");
    }
    if (p.type !== "FOLDER") {
      fail("RESOURCE_005", `Resource ${parentRs} is a file, not a folder`, "pfs");
    }
    parent = parentEntry as Deno.KvEntry<Resource>;
  }
  const holder = slot.value === null ? null : rsOfIndexValue(slot.value);
  return { owner, parent, holder, lockStamp };
}
