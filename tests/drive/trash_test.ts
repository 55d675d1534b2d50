import assert from "node:assert/strict";
import { blobExists } from "../../blobs/store.ts";
import { getResource } from "../../kv/tree/resources.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import { getUsage } from "../../kv/tree/usage.ts";
import { forEachBlobStore, withServer } from "../helpers/server.ts";
import { ApiUser, newApiUser, readOnlyKeyOf, shareFlags } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { testBytes } from "../helpers/bytes.ts";
import { addVersions } from "../helpers/domain.ts";

async function trashSeqs(user: ApiUser): Promise<number[]> {
  const res = await user.call("GET", "/trash?ps=1000");
  assert.equal(res.status, 200);
  return res.body.data.items.map((i: { resourceSeq: number }) => i.resourceSeq);
}

Deno.test("trash lists top-level items with pages; restore goes back to the old folder", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const [docs, sub] = await alice.newFolderPath("Docs", "Sub");
    const inSub = await alice.newFile("deep.txt", "deep", sub);
    const loose = await alice.newFile("loose.txt", "l", docs);
    const rootFiles: number[] = [];
    for (let i = 0; i < 5; i++) rootFiles.push(await alice.newFile(`r${i}.txt`, "r"));

    assert.equal((await alice.call("PATCH", `/files/${loose}/delete`)).status, 200);
    assert.equal((await alice.call("PATCH", `/folders/${sub}/delete`)).status, 200);
    for (const rs of rootFiles) await alice.call("PATCH", `/files/${rs}/delete`);
    // The folder stands for its contents: deep.txt is not listed by itself.
    assert.deepEqual(await trashSeqs(alice), [sub, loose, ...rootFiles].sort((a, b) => a - b));

    const seen: number[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const res = await alice.call("GET", `/trash?ps=2${cursor ? `&cursor=${cursor}` : ""}`);
      assert.equal(res.status, 200);
      assert.ok(res.body.data.items.length <= 2);
      for (const item of res.body.data.items) {
        assert.ok(Date.parse(item.trashedAt) > 0);
        seen.push(item.resourceSeq);
      }
      cursor = res.body.data.nextCursor;
      if (!cursor) break;
    }
    assert.deepEqual(seen, await trashSeqs(alice));
    const badCursor = await alice.call("GET", "/trash?cursor=nonsense");
    assert.equal(badCursor.body.errorCode, "RESOURCE_018");
    const listingCursor = (await alice.call("GET", "/resources?ps=1")).body.data.nextCursor;
    assert.ok(listingCursor);
    const foreignCursor = await alice.call("GET", `/trash?cursor=${listingCursor}`);
    assert.equal(foreignCursor.body.errorCode, "RESOURCE_018");

    const restored = await alice.call("POST", `/trash/${sub}/restore`);
    assert.equal(restored.status, 200);
    assert.equal(restored.body.data.parentSeq, docs);
    assert.equal(restored.body.data.name, "Sub");
    const meta = await alice.call("GET", `/resources/${inSub}`);
    assert.equal(meta.status, 200, "contents come back with their folder");
    assert.deepEqual(meta.body.data.path.map((p: { name: string }) => p.name), ["Docs", "Sub"]);
    assert.ok(!(await trashSeqs(alice)).includes(sub));

    const again = await alice.call("POST", `/trash/${sub}/restore`);
    assert.equal(again.status, 409);
    assert.equal(again.body.errorCode, "RESOURCE_019");
    const unknown = await alice.call("POST", `/trash/999999/restore`);
    assert.equal(unknown.body.errorCode, "RESOURCE_019");
    const bob = await newApiUser(server, "bob", { tenantId: alice.tenantId });
    const foreign = await bob.call("POST", `/trash/${loose}/restore`);
    assert.equal(foreign.body.errorCode, "RESOURCE_019");
    assert.deepEqual(await trashSeqs(bob), []);
  });
});

Deno.test("restore: to the root when the old folder is gone or trashed; taken names get (n)", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const box = await alice.newFolder("Box");
    const file = await alice.newFile("note.txt", "first", box);
    const inner = await alice.newFile("inner.txt", "i", box);
    await alice.call("PATCH", `/files/${file}/delete`);
    await alice.call("PATCH", `/files/${inner}/delete`);
    // A new note.txt takes the old name while the first one is in the trash.
    await alice.newFile("note.txt", "second", box);
    const back = await alice.call("POST", `/trash/${file}/restore`);
    assert.equal(back.status, 200);
    assert.equal(back.body.data.parentSeq, box);
    assert.equal(back.body.data.name, "note (1).txt");

    await alice.call("PATCH", `/folders/${box}/delete`);
    const toRoot = await alice.call("POST", `/trash/${inner}/restore`);
    assert.equal(toRoot.status, 200);
    assert.equal(toRoot.body.data.parentSeq, null, "its folder is in the trash");

    const gone = await alice.newFolder("Gone");
    const orphan = await alice.newFile("orphan.txt", "o", gone);
    await alice.call("PATCH", `/files/${orphan}/delete`);
    await alice.call("PATCH", `/folders/${gone}/delete`);
    assert.equal((await alice.call("DELETE", `/trash/${gone}`)).status, 200);
    await alice.newFile("orphan.txt", "a newer one at the root");
    const orphanBack = await alice.call("POST", `/trash/${orphan}/restore`);
    assert.equal(orphanBack.status, 200);
    assert.equal(orphanBack.body.data.parentSeq, null, "its folder was deleted for good");
    assert.equal(orphanBack.body.data.name, "orphan (1).txt");

    // Something inside a trashed folder is restored with that folder, not by itself.
    const shelf = await alice.newFolder("Shelf");
    const book = await alice.newFile("book.txt", "b", shelf);
    await alice.call("PATCH", `/folders/${shelf}/delete`);
    const nested = await alice.call("POST", `/trash/${book}/restore`);
    assert.equal(nested.body.errorCode, "RESOURCE_019");
  });
});

forEachBlobStore(
  "purge deletes the subtree, every version and blob, and frees the quota",
  async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 1_000_000 });
    const top = await alice.newFolder("Top");
    const sub = await alice.newFolder("Sub", top);
    const big = await alice.newFile("big.bin", testBytes(300_000), top);
    const v2 = await alice.upload("ignored", testBytes(250_000, 3), { st: "version", rs: big });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    const small = await alice.newFile("small.txt", "small", sub);
    const keep = await alice.newFile("keep.txt", "kept");
    const before = await getUsage(server.kv, alice.userSeq);
    assert.equal(before, 300_000 + 250_000 + 5 + 4);
    const blobIds = [
      ...(await listVersions(server.kv, big)).map((v) => v.blobId),
      ...(await listVersions(server.kv, small)).map((v) => v.blobId),
    ];
    assert.equal(blobIds.length, 3);

    const notTrashed = await alice.call("DELETE", `/trash/${top}`);
    assert.equal(notTrashed.status, 409);
    assert.equal(notTrashed.body.errorCode, "RESOURCE_019");
    await alice.call("PATCH", `/folders/${top}/delete`);
    assert.equal(await getUsage(server.kv, alice.userSeq), before, "trash counts until purged");
    // Quota is still taken: this upload does not fit until the purge.
    const tooBig = await alice.upload("more.bin", testBytes(500_000));
    assert.equal(tooBig.body.errorCode, "RESOURCE_015");

    const purged = await alice.call("DELETE", `/trash/${top}`);
    assert.equal(purged.status, 200, JSON.stringify(purged.body));
    assert.deepEqual(purged.body.data, {
      resourceSeq: top,
      deletedResources: 4,
      freedBytes: 550_005,
    });
    assert.equal(await getUsage(server.kv, alice.userSeq), 4);
    for (const rs of [top, sub, big, small]) assert.equal(await getResource(server.kv, rs), null);
    for (const rs of [big, small]) assert.deepEqual(await listVersions(server.kv, rs), []);
    for (const id of blobIds) assert.equal(await blobExists(server.blobs, id), false, id);
    assert.deepEqual(await trashSeqs(alice), []);
    assert.equal((await alice.call("GET", `/resources/${keep}`)).status, 200);
    assert.equal((await alice.upload("more.bin", testBytes(500_000))).status, 201);

    const twice = await alice.call("DELETE", `/trash/${top}`);
    assert.equal(twice.body.errorCode, "RESOURCE_019");
    const bob = await newApiUser(server, "bob");
    await alice.call("PATCH", `/files/${keep}/delete`);
    const foreign = await bob.call("DELETE", `/trash/${keep}`);
    assert.equal(foreign.body.errorCode, "RESOURCE_019");
    assert.ok(await getResource(server.kv, keep));
  },
);

Deno.test("purge of a large trashed tree and of a file with many versions spans many commits", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await alice.newFolder("Top");
    const seqs = [top];
    for (let f = 0; f < 3; f++) {
      const folder = await alice.newFolder(`f${f}`, top);
      seqs.push(folder);
      for (let i = 0; i < 50; i++) {
        seqs.push(await alice.newFile(`${i}.txt`, `${f}:${i}`, folder));
      }
    }
    // 950 versions: more than one commit can delete along with the file.
    const many = await alice.newFile("many.txt", "v1", top);
    seqs.push(many);
    await addVersions(server, alice.userSeq, many, 950);
    assert.equal((await listVersions(server.kv, many)).length, 950);
    assert.ok((await getUsage(server.kv, alice.userSeq)) > 0);
    await alice.call("PATCH", `/folders/${top}/delete`);
    const purged = await alice.call("DELETE", `/trash/${top}`);
    assert.equal(purged.status, 200, JSON.stringify(purged.body));
    assert.equal(purged.body.data.deletedResources, seqs.length);
    assert.equal(await getUsage(server.kv, alice.userSeq), 0);
    for (const rs of seqs) assert.equal(await getResource(server.kv, rs), null);
    assert.deepEqual(await listVersions(server.kv, many), []);
  });
});

Deno.test("read-only key: trash may be listed; restore and purge are refused", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const ro = await readOnlyKeyOf(server, alice);
    const rs = await alice.newFile("t.txt", "t");
    await alice.call("PATCH", `/files/${rs}/delete`);
    assert.deepEqual(await trashSeqs(ro), [rs]);
    for (
      const r of [
        await ro.call("POST", `/trash/${rs}/restore`),
        await ro.call("DELETE", `/trash/${rs}`),
      ]
    ) {
      assert.equal(r.status, 403);
      assert.equal(r.body.errorCode, "AUTH_003");
    }
    assert.deepEqual(await trashSeqs(alice), [rs]);
    const badSeq = await alice.call("DELETE", "/trash/-1");
    assert.equal(badSeq.body.errorCode, "REQUEST_001");
  });
});

Deno.test("restore and purge racing: exactly one wins and usage matches what is left", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    for (let round = 0; round < 15; round++) {
      const folder = await alice.newFolder(`R${round}`);
      const files = [];
      for (let i = 0; i < 3; i++) files.push(await alice.newFile(`${i}.txt`, "12345", folder));
      const usageBefore = await getUsage(server.kv, alice.userSeq);
      await alice.call("PATCH", `/folders/${folder}/delete`);
      const [restore, purge] = await Promise.all([
        alice.call("POST", `/trash/${folder}/restore`),
        alice.call("DELETE", `/trash/${folder}`),
      ]);
      assert.deepEqual(
        [restore.status, purge.status].filter((s) => s === 200).length,
        1,
        JSON.stringify([restore.body, purge.body]),
      );
      const loser = restore.status === 200 ? purge : restore;
      assert.equal(loser.body.errorCode, "RESOURCE_019");
      const left = await Promise.all([folder, ...files].map((rs) => getResource(server.kv, rs)));
      if (restore.status === 200) {
        assert.ok(left.every((r) => r !== null && r.trashedAt === null));
        assert.equal(await getUsage(server.kv, alice.userSeq), usageBefore);
      } else {
        assert.ok(left.every((r) => r === null));
        assert.equal(await getUsage(server.kv, alice.userSeq), usageBefore - 15);
      }
    }
  });
});

Deno.test("purging a shared folder removes its share: recipients lose it and the link stops resolving", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const folder = await alice.newFolder("Shared");
    const specific = await alice.newShare({
      rs: folder,
      st: "SPECIFIC_USERS",
      ...shareFlags("cd"),
      ts: [{ us: bob.userSeq, ...shareFlags("cd") }],
    });
    const linked = await alice.newFolder("Linked");
    const link = await alice.newShare({
      rs: linked,
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
    });
    const token = new URL(link.linkUrl).pathname.split("/").pop();
    assert.equal((await bob.call("GET", "/shared?ps=10")).body.data.items.length, 1);

    for (const rs of [folder, linked]) {
      assert.equal((await alice.call("PATCH", `/folders/${rs}/delete`)).status, 200);
      assert.equal((await alice.call("DELETE", `/trash/${rs}`)).status, 200);
    }
    assert.equal((await bob.call("GET", "/shared?ps=10")).body.data.items.length, 0);
    const share = await alice.call("GET", `/shares/${specific.shareSeq}`);
    assert.equal(share.status, 404);
    const lookup = await bob.call("GET", `/shares/link/${token}`);
    assert.equal(lookup.body.errorCode, "SHARE_007");
    // The administrator's list of active links no longer shows the purged folder's link.
    const links = await server.admin.call("GET", "/share-links");
    assert.deepEqual(links.body.items, []);
  });
});

Deno.test("restore: a folder whose old parent was moved to the nesting limit comes back at the root; a file still goes back", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    // The deepest chain a new folder may be made in: the next level is refused.
    let deepest = await alice.newFolder("L1");
    let aboveDeepest = deepest;
    for (let level = 2;; level++) {
      const res = await alice.call("POST", "/folders", { fn: `L${level}`, pfs: deepest });
      if (res.status !== 201) {
        assert.equal(res.body.errorCode, "RESOURCE_014", JSON.stringify(res.body));
        break;
      }
      aboveDeepest = deepest;
      deepest = res.body.data.resourceSeq;
    }
    const parent = await alice.newFolder("Parent");
    const sub = await alice.newFolder("Sub", parent);
    const file = await alice.newFile("f.txt", "f", parent);
    assert.equal((await alice.call("PATCH", `/folders/${sub}/delete`)).status, 200);
    assert.equal((await alice.call("PATCH", `/files/${file}/delete`)).status, 200);
    // Parent now sits at the nesting limit, where a folder can no longer be made inside it (its
    // subfolder is in the trash, so the move takes no subfolder along).
    const tooDeep = await alice.call("POST", `/folders/${parent}/move`, { pfs: deepest });
    assert.equal(tooDeep.body.errorCode, "RESOURCE_014", JSON.stringify(tooDeep.body));
    const moved = await alice.call("POST", `/folders/${parent}/move`, { pfs: aboveDeepest });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const refused = await alice.call("POST", "/folders", { fn: "New", pfs: parent });
    assert.equal(refused.body.errorCode, "RESOURCE_014");

    const folderBack = await alice.call("POST", `/trash/${sub}/restore`);
    assert.equal(folderBack.status, 200, JSON.stringify(folderBack.body));
    assert.equal(folderBack.body.data.parentSeq, null, "no room for a folder under Parent");
    const fileBack = await alice.call("POST", `/trash/${file}/restore`);
    assert.equal(fileBack.status, 200, JSON.stringify(fileBack.body));
    assert.equal(fileBack.body.data.parentSeq, parent, "a file needs no nesting room");
  });
});
