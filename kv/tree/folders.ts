/**
 * Creating a folder: one commit writes the folder and its index entries, checked against the
 * parent and the free name slot (the commit discipline is in placement.ts). The id comes from
 * the process's block of ids (`d.ids`), so no create waits on a shared counter.
 *
 * Reads on the common path: one `getMany` of the owner, the parent folder and the name slot, then
 * the commit. The depth check needs the parent's depth; an edge that authorized the parent already
 * walked its path and passes `parentDepth`, otherwise the path is read here.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import type { User } from "../identity/users.ts";
import { resourceKey, userKey } from "../keys.ts";
import { newResource, type OnNameConflict, pickName } from "./placement.ts";
import {
  freeName,
  type IndexValue,
  loadPath,
  MAX_DEPTH,
  nameIndexKey,
  type Resource,
  rsOfIndexValue,
  validateName,
  writeResource,
} from "./resources.ts";

export async function createFolder(
  d: Deps,
  input: {
    ownerSeq: number;
    parentRs: number | null;
    name: string;
    actorSeq: number;
    onConflict?: OnNameConflict;
    /** How many folders deep the parent is (1 = in the drive root), when the caller knows. */
    parentDepth?: number;
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
  const rs = await d.ids.next("resource");
  return commitWithRetry(async () => {
    const read = await readCreateSlot(d.kv, input.ownerSeq, input.parentRs, name);
    let chosen = name;
    if (read.holder !== null) {
      // Taken: fail, or the first free "name (n)" (a few more reads, off the common path).
      chosen = onConflict === "rename"
        ? await freeName(d.kv, input.ownerSeq, input.parentRs, name)
        : await pickName(d.kv, input.ownerSeq, input.parentRs, name, "fail");
    }
    const folder = newResource({
      rs,
      ownerSeq: read.owner.userSeq,
      tenantId: read.owner.tenantId,
      parentRs: input.parentRs,
      name: chosen,
      actorSeq: input.actorSeq,
      content: null,
    });
    const op = d.kv.atomic();
    if (read.parent) op.check(read.parent);
    writeResource(op, null, folder, input.actorSeq);
    return (await commit(op)) === true ? folder : CONFLICT;
  });
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
) {
  const keys: Deno.KvKey[] = [userKey(ownerSeq), nameIndexKey(ownerSeq, parentRs, name)];
  if (parentRs !== null) keys.push(resourceKey(parentRs));
  const entries = await kv.getMany<unknown[]>(keys);
  const owner = (entries[0].value as User | null) ??
    fail("USER_001", `No user with seq ${ownerSeq}`, "userSeq");
  const slot = entries[1] as Deno.KvEntryMaybe<IndexValue>;
  const parentEntry = entries[2] as Deno.KvEntryMaybe<Resource> | undefined;
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
  return { owner, parent, holder: slot.value === null ? null : rsOfIndexValue(slot.value) };
}
