import assert from "node:assert/strict";
import { moveResource, putContent, storeGeneratedFile } from "../../kv/tree/drive.ts";
import { getResource, listResourcesOwnedBy, listVersions } from "../../kv/tree/resources.ts";
import { purgeTrashed } from "../../kv/tree/trash.ts";
import { getUsage } from "../../kv/tree/usage.ts";
import { fileOver, folderOver, newApiUser, withServer } from "../helpers/app.ts";

Deno.test("a file or folder moved out of a trashed folder while its purge runs is not deleted", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await folderOver(alice, "Top");
    // Listed first, so the purge deletes it last (children go bottom-up, in reverse).
    const kept = await fileOver(alice, "a.txt", "keep me", top);
    const keptFolder = await folderOver(alice, "b", top);
    const keptChild = await fileOver(alice, "child.txt", "me too", keptFolder);
    // Many versions: the purge sheds them over many commits before it reaches a.txt.
    const slow = await fileOver(alice, "zz.txt", "v1", top);
    for (let v = 2; v <= 1000; v++) {
      await putContent(server.deps, {
        rs: slow,
        body: ReadableStream.from([new TextEncoder().encode(`v${v}`)]),
        mode: "version",
        reason: "version",
        actorSeq: alice.userSeq,
        lockOwner: null,
        quotaCode: "RESOURCE_015",
      });
    }
    assert.equal((await alice.call("PATCH", `/folders/${top}/delete`)).status, 200);
    const purge = purgeTrashed(server.deps, { ownerSeq: alice.userSeq, rs: top });
    // Once the purge has started deleting zz.txt's versions it has listed a.txt; a move that
    // was authorized before the trash (the race) commits now.
    for (let i = 0; i < 100_000 && (await listVersions(server.kv, slow)).length === 1000; i++) {
      await new Promise((r) => setTimeout(r, 0));
    }
    await moveResource(server.deps, { rs: kept, destParentRs: null, actorSeq: alice.userSeq });
    await moveResource(server.deps, {
      rs: keptFolder,
      destParentRs: null,
      actorSeq: alice.userSeq,
    });
    await purge;
    const file = await getResource(server.kv, kept);
    assert.ok(file, "the moved file was deleted by the purge");
    assert.equal(file.parentRs, null);
    assert.equal(file.trashedAt, null);
    const child = await getResource(server.kv, keptChild);
    assert.equal(child?.parentRs, keptFolder, "a file in a moved folder was deleted by the purge");
    const versions = [
      ...await listVersions(server.kv, kept),
      ...await listVersions(server.kv, keptChild),
    ];
    assert.equal(versions.length, 2);
    assert.equal(await getUsage(server.kv, alice.userSeq), versions[0].size + versions[1].size);
    const body = await alice.fetch(`/files/${kept}/download`);
    assert.equal(await body.text(), "keep me");
  });
});

Deno.test("a file stored into a trashed folder while its purge runs is purged too, not orphaned", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await folderOver(alice, "Top");
    const sub = await folderOver(alice, "b", top);
    const slow = await fileOver(alice, "zz.txt", "v1", top);
    for (let v = 2; v <= 1000; v++) {
      await putContent(server.deps, {
        rs: slow,
        body: ReadableStream.from([new TextEncoder().encode(`v${v}`)]),
        mode: "version",
        reason: "version",
        actorSeq: alice.userSeq,
        lockOwner: null,
        quotaCode: "RESOURCE_015",
      });
    }
    assert.equal((await alice.call("PATCH", `/folders/${top}/delete`)).status, 200);
    const purge = purgeTrashed(server.deps, { ownerSeq: alice.userSeq, rs: top });
    for (let i = 0; i < 100_000 && (await listVersions(server.kv, slow)).length === 1000; i++) {
      await new Promise((r) => setTimeout(r, 0));
    }
    // An upload authorized before the trash commits now, into the already listed subfolder.
    const late = await storeGeneratedFile(server.deps, {
      ownerSeq: alice.userSeq,
      parentRs: sub,
      name: "late.txt",
      bytes: new TextEncoder().encode("late"),
      actorSeq: alice.userSeq,
      onConflict: "fail",
      reason: "upload",
      quotaCode: "RESOURCE_015",
    });
    await purge;
    const left = await listResourcesOwnedBy(server.kv, alice.userSeq);
    assert.deepEqual(left.map((r) => r.rs), [], "the purge left resources behind");
    assert.deepEqual(await listVersions(server.kv, late.rs), []);
    assert.equal(await getUsage(server.kv, alice.userSeq), 0);
  });
});
