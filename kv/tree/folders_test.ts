/**
 * Folder creates on what authorization read (`known`): the first attempt commits without reading
 * the parent again, checked by the versionstamp authorization saw, so a parent trashed, renamed
 * or taken away meanwhile, or a name taken meanwhile, still answers as a fresh read would.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import type { User } from "../identity/users.ts";
import { authorizeFolderTarget } from "../sharing/authorize.ts";
import { assertFails, domainTest, newFolder, newUser } from "../testing.ts";
import { createFolder } from "./folders.ts";
import { renameResource, trashResource } from "./moves.ts";
import { findChildByName, getResource } from "./resources.ts";

/** Authorizes `pfs` for the owner, then lets `meanwhile` run before the create commits. */
async function createAfter(
  d: Deps,
  owner: User,
  pfs: number | null,
  name: string,
  meanwhile: () => Promise<unknown> = async () => {},
) {
  const target = await authorizeFolderTarget(d.kv, owner, { pfs }, "upload");
  await meanwhile();
  return createFolder(d, {
    ownerSeq: target.ownerSeq,
    parentRs: target.parentRs,
    name,
    actorSeq: owner.userSeq,
    parentDepth: target.depth,
    known: target.folderEntry ? { parent: target.folderEntry } : { owner },
  });
}

domainTest("authorizeFolderTarget hands over the folder entry it read", async (d) => {
  const owner = await newUser(d, "ann");
  const parent = await newFolder(d, owner, "docs");
  const target = await authorizeFolderTarget(d.kv, owner, { pfs: parent.rs }, "upload");
  const stored = await d.kv.get(["res", parent.rs]);
  assert.ok(target.folderEntry);
  assert.equal(target.folderEntry.versionstamp, stored.versionstamp);
  assert.deepEqual(target.folderEntry.value, stored.value);
  assert.equal((await authorizeFolderTarget(d.kv, owner, {}, "upload")).folderEntry, null);
});

domainTest("a create on a known parent and in the root lands as a read one would", async (d) => {
  const owner = await newUser(d, "ann");
  const parent = await newFolder(d, owner, "docs");
  const inner = await createAfter(d, owner, parent.rs, "inner");
  const top = await createAfter(d, owner, null, "top");
  assert.equal((await findChildByName(d.kv, owner.userSeq, parent.rs, "INNER"))?.rs, inner.rs);
  assert.equal((await findChildByName(d.kv, owner.userSeq, null, "top"))?.rs, top.rs);
  assert.equal(inner.tenantId, owner.tenantId);
  assert.equal(top.tenantId, owner.tenantId);
});

domainTest("a name taken after authorization still answers RESOURCE_003", async (d) => {
  const owner = await newUser(d, "ann");
  const parent = await newFolder(d, owner, "docs");
  await newFolder(d, owner, "taken", parent.rs);
  // Taken before: the first attempt's commit fails on the slot, the retry reads and answers.
  await assertFails(createAfter(d, owner, parent.rs, "Taken"), "RESOURCE_003");
  await assertFails(
    createAfter(d, owner, parent.rs, "late", () => newFolder(d, owner, "late", parent.rs)),
    "RESOURCE_003",
  );
});

domainTest("a parent trashed after authorization is not created into", async (d) => {
  const owner = await newUser(d, "ann");
  const parent = await newFolder(d, owner, "docs");
  await assertFails(
    createAfter(
      d,
      owner,
      parent.rs,
      "inner",
      () => trashResource(d, { rs: parent.rs, actorSeq: owner.userSeq }),
    ),
    "RESOURCE_008",
  );
  assert.equal(await findChildByName(d.kv, owner.userSeq, parent.rs, "inner"), null);
});

domainTest(
  "a parent renamed after authorization is checked again, then created into",
  async (d) => {
    const owner = await newUser(d, "ann");
    const parent = await newFolder(d, owner, "docs");
    const inner = await createAfter(
      d,
      owner,
      parent.rs,
      "inner",
      () =>
        renameResource(d, {
          rs: parent.rs,
          name: "papers",
          onConflict: "fail",
          actorSeq: owner.userSeq,
        }),
    );
    assert.equal((await getResource(d.kv, inner.rs))?.parentRs, parent.rs);
    assert.equal((await getResource(d.kv, parent.rs))?.name, "papers");
  },
);
