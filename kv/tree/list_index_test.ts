/**
 * The denormalized listing index (res_name, res_by_size, res_by_update, res_trash) holds exactly
 * the records it lists: after creates, renames, moves (within a drive and to another), content
 * changes, trash, restore and purge, every entry's value equals the resource record, and no entry
 * is missing or left over. Also: entries of earlier versions (a bare rs) still list.
 */
import assert from "node:assert/strict";
import { bySizeKey, byUpdateKey, resourceNameKey, trashIndexKey } from "../keys.ts";
import { domainTest, newFile, newFolder, newUser, trash } from "../testing.ts";
import { putContent } from "./content.ts";
import { createFolder } from "./folders.ts";
import { moveFileToDrive, moveResource, renameResource } from "./moves.ts";
import { findChildByName, listResourcesOwnedBy, type Resource } from "./resources.ts";
import { iterateChildren, listChildren } from "./listing.ts";
import { nameKeyOf } from "./names.ts";
import { purgeTrashed, restoreTrashed } from "./trash.ts";

/** Every index entry of `ownerSeq`'s drive, as key JSON → stored value. */
async function indexEntries(kv: Deno.Kv, ownerSeq: number): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  const families = [
    resourceNameKey(ownerSeq, 0).slice(0, 2),
    bySizeKey(ownerSeq, 0).slice(0, 2),
    byUpdateKey(ownerSeq, 0).slice(0, 2),
    trashIndexKey(ownerSeq),
  ];
  for (const prefix of families) {
    for await (const e of kv.list({ prefix })) out.set(JSON.stringify(e.key), e.value);
  }
  return out;
}

/** The entries the records say the index must hold. */
function expectedEntries(records: Resource[]): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const r of records) {
    if (r.trashedAt !== null) {
      out.set(JSON.stringify(trashIndexKey(r.ownerSeq, r.rs)), r);
      continue;
    }
    const p = r.parentRs ?? 0;
    out.set(JSON.stringify(resourceNameKey(r.ownerSeq, p, nameKeyOf(r.name))), r);
    out.set(JSON.stringify(bySizeKey(r.ownerSeq, p, r.size, r.rs)), r);
    out.set(JSON.stringify(byUpdateKey(r.ownerSeq, p, r.updatedAt, r.rs)), r);
  }
  return out;
}

async function assertIndexMatches(kv: Deno.Kv, ownerSeq: number, step: string) {
  const records = await listResourcesOwnedBy(kv, ownerSeq);
  const actual = await indexEntries(kv, ownerSeq);
  const expected = expectedEntries(records);
  assert.deepEqual([...actual.keys()].sort(), [...expected.keys()].sort(), `${step}: index keys`);
  for (const [k, v] of expected) assert.deepEqual(actual.get(k), v, `${step}: value of ${k}`);
}

const bytes = (s: string) => new TextEncoder().encode(s);
const body = (s: string) => new Blob([s]).stream();

domainTest("the listing index equals the records after every kind of tree write", async (d) => {
  const alice = await newUser(d, "alice");
  const bob = await newUser(d, "bob");
  const docs = await newFolder(d, alice, "Docs");
  const archive = await newFolder(d, alice, "Archive");
  const inner = await newFolder(d, alice, "Inner", docs.rs);
  const a = await newFile(d, alice, "a.txt", "one", docs.rs);
  const b = await newFile(d, alice, "b.txt", "two", inner.rs);
  await assertIndexMatches(d.kv, alice.userSeq, "created");

  await renameResource(d, { rs: a.rs, name: "A renamed.txt", onConflict: "fail", actorSeq: 1 });
  await renameResource(d, { rs: inner.rs, name: "INNER", onConflict: "fail", actorSeq: 1 });
  await assertIndexMatches(d.kv, alice.userSeq, "renamed");

  await moveResource(d, { rs: inner.rs, destParentRs: archive.rs, actorSeq: 1 });
  await moveResource(d, { rs: a.rs, destParentRs: null, actorSeq: 1 });
  await assertIndexMatches(d.kv, alice.userSeq, "moved");

  for (const mode of ["version", "overwrite"] as const) {
    await putContent(d, {
      rs: b.rs,
      body: body(`new content ${mode}, longer than before`),
      mode,
      reason: "upload",
      actorSeq: 1,
      lockOwner: null,
      quotaCode: "RESOURCE_015",
    });
    await assertIndexMatches(d.kv, alice.userSeq, `content (${mode})`);
  }
  const listed = (await findChildByName(d.kv, alice.userSeq, inner.rs, "b.txt"))!;
  assert.equal(listed.version, 3, "the name entry shows the new version");
  assert.equal(listed.size, bytes("new content overwrite, longer than before").length);

  await trash(d, alice, archive);
  await trash(d, alice, a);
  await assertIndexMatches(d.kv, alice.userSeq, "trashed");
  await restoreTrashed(d, { ownerSeq: alice.userSeq, rs: a.rs, actorSeq: 1 });
  await assertIndexMatches(d.kv, alice.userSeq, "restored");
  await purgeTrashed(d, { ownerSeq: alice.userSeq, rs: archive.rs });
  await assertIndexMatches(d.kv, alice.userSeq, "purged");

  await moveFileToDrive(d, {
    rs: a.rs,
    destOwnerSeq: bob.userSeq,
    destParentRs: null,
    actorSeq: 1,
  });
  await assertIndexMatches(d.kv, alice.userSeq, "moved out (source drive)");
  await assertIndexMatches(d.kv, bob.userSeq, "moved in (destination drive)");
});

domainTest("a listing page is the records, in index order, for every sort", async (d) => {
  const alice = await newUser(d, "alice");
  const names = ["b.txt", "a.txt", "C.txt"];
  for (const [i, n] of names.entries()) await newFile(d, alice, n, "x".repeat(i + 1));
  await createFolder(d, { ownerSeq: alice.userSeq, parentRs: null, name: "dir", actorSeq: 1 });
  const records = await listResourcesOwnedBy(d.kv, alice.userSeq);
  const byName = (await listChildren(d.kv, alice.userSeq, null, {
    sort: "name",
    order: "asc",
    limit: 10,
  })).items;
  assert.deepEqual(byName.map((r) => r.name), ["a.txt", "b.txt", "C.txt", "dir"]);
  for (const r of byName) assert.deepEqual(r, records.find((x) => x.rs === r.rs));
  const bySize = (await listChildren(d.kv, alice.userSeq, null, {
    sort: "size",
    order: "desc",
    limit: 10,
  })).items;
  assert.deepEqual(bySize.map((r) => r.size), [3, 2, 1, 0]);
});

domainTest("index entries of earlier versions (a bare rs) still list and resolve", async (d) => {
  const alice = await newUser(d, "alice");
  const old = await newFile(d, alice, "old.txt", "old");
  await newFile(d, alice, "new.txt", "new");
  // What an earlier version stored under the name slot: the rs alone.
  await d.kv.set(resourceNameKey(alice.userSeq, 0, nameKeyOf("old.txt")), old.rs);
  const page = await listChildren(d.kv, alice.userSeq, null, {
    sort: "name",
    order: "asc",
    limit: 10,
  });
  assert.deepEqual(page.items.map((r) => r.name), ["new.txt", "old.txt"]);
  assert.deepEqual(page.items[1], old, "the bare rs is read through to the record");
  assert.deepEqual(await findChildByName(d.kv, alice.userSeq, null, "OLD.txt"), old);
  const all = await Array.fromAsync(iterateChildren(d.kv, alice.userSeq, null));
  assert.deepEqual(all.map((r) => r.name), ["new.txt", "old.txt"]);
  assert.deepEqual(all[1], old);
});
