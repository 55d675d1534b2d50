/**
 * Creating a folder: one commit writes the folder and its name index, checked against the parent
 * (the commit discipline is in placement.ts).
 */
import { commit, commitWithRetry, CONFLICT, nextSeq } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { requireUser } from "../identity/users.ts";
import { newResource, type OnNameConflict, pickName, requireFolderEntry } from "./placement.ts";
import { loadPath, MAX_DEPTH, type Resource, validateName, writeResource } from "./resources.ts";

export async function createFolder(
  d: Deps,
  input: {
    ownerSeq: number;
    parentRs: number | null;
    name: string;
    actorSeq: number;
    onConflict?: OnNameConflict;
  },
): Promise<Resource> {
  const name = validateName(input.name, "fn");
  const owner = await requireUser(d.kv, input.ownerSeq);
  const onConflict = input.onConflict ?? "fail";
  if (input.parentRs !== null) {
    const path = await loadPath(d.kv, input.parentRs);
    if (path && path.path.length >= MAX_DEPTH) {
      fail("RESOURCE_014", `Folders may nest at most ${MAX_DEPTH} deep`, "pfs");
    }
  }
  const rs = await nextSeq(d.kv, "resource");
  return commitWithRetry(async () => {
    const parent = await requireFolderEntry(d.kv, owner.userSeq, input.parentRs);
    const folder = newResource({
      rs,
      ownerSeq: owner.userSeq,
      tenantId: owner.tenantId,
      parentRs: input.parentRs,
      name: await pickName(d.kv, owner.userSeq, input.parentRs, name, onConflict),
      actorSeq: input.actorSeq,
      content: null,
    });
    const op = d.kv.atomic();
    if (parent) op.check(parent);
    writeResource(op, null, folder);
    return (await commit(op)) === true ? folder : CONFLICT;
  });
}
