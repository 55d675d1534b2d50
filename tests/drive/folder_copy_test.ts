/**
 * POST /folders/{rs}/copy over HTTP: a nested tree arrives with the same checksums, also into a
 * folder another user shared with upload permission (charged to them); refused into itself, over
 * quota (nothing written), over the item limit; and only for callers who may view and download.
 */
import assert from "node:assert/strict";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { until } from "../helpers/wait.ts";
import { getUsage } from "../../kv/tree/usage.ts";

/** path -> sha256 (files) or "dir" of everything under folder `pfs` (null: the root). */
async function treeOf(user: ApiUser, pfs: number | null, ss?: number, below = "") {
  const out: Record<string, string> = {};
  const q = new URLSearchParams();
  if (pfs !== null) q.set("pfs", String(pfs));
  if (ss !== undefined) q.set("ss", String(ss));
  const res = await user.call("GET", `/resources?${q}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  for (const item of res.body.data.items) {
    const path = below + item.name;
    out[path] = item.type === "FILE" ? item.sha256 : "dir";
    if (item.type === "FOLDER") {
      Object.assign(out, await treeOf(user, item.resourceSeq, ss, path + "/"));
    }
  }
  return out;
}

/** Top/{a.txt, Sub/{b.txt, Deep/c.bin}}; returns the seqs. */
async function sampleTree(user: ApiUser) {
  const top = await user.newFolder("Top");
  await user.newFile("a.txt", "alpha", top);
  const sub = await user.newFolder("Sub", top);
  await user.newFile("b.txt", "bravo", sub);
  const deep = await user.newFolder("Deep", sub);
  await user.newFile("c.bin", new Uint8Array(1000).fill(7), deep);
  return { top, sub, deep, bytes: 5 + 5 + 1000 };
}

const copy = (user: ApiUser, rs: number, body: Record<string, unknown>) =>
  user.call("POST", `/folders/${rs}/copy`, body);

Deno.test("folder copy: a nested tree with the same checksums, numbered name, charged", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { top, bytes } = await sampleTree(alice);
    const dest = await alice.newFolder("Dest");
    const cursor = (await alice.call("GET", "/changes/cursor")).body.data.cursor;
    const res = await copy(alice, top, { pfs: dest });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data.resourceName, "Top");
    const original = await treeOf(alice, top);
    assert.equal(Object.keys(original).length, 5);
    assert.deepEqual(await treeOf(alice, res.body.data.resourceSeq), original);
    assert.equal(await getUsage(server.kv, alice.userSeq), 2 * bytes);
    const again = await copy(alice, top, { pfs: dest });
    assert.equal(again.body.data.resourceName, "Top (1)");
    // Every created item is in the search index and in the change feed as a copy.
    const found = await alice.call("GET", `/search?q=${encodeURIComponent("b.txt")}`);
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(
      found.body.data.items.filter((i: { resource: { name: string } }) =>
        i.resource.name === "b.txt"
      ).length,
      3,
    );
    // The feed shows events once sequenced (kv/events/runtime.ts), so it is polled.
    await until("12 copied events in the feed", async () => {
      const feed = await alice.call("GET", `/changes?cursor=${cursor}`);
      const kinds = feed.body.data.items.map((c: { kind: string }) => c.kind);
      return kinds.filter((k: string) => k === "copied").length === 12;
    });
  });
});

Deno.test("folder copy into a folder another user shared with upload permission", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const { top, bytes } = await sampleTree(alice);
    const team = await bob.newFolder("Team");
    await bob.shareWith(team, alice, "cu");
    const res = await copy(alice, top, { pfs: team, ts: bob.userSeq });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(await treeOf(bob, res.body.data.resourceSeq), await treeOf(alice, top));
    assert.equal(await getUsage(server.kv, bob.userSeq), bytes);
    assert.equal(await getUsage(server.kv, alice.userSeq), bytes);
  });
});

Deno.test("folder copy is refused into itself, over quota and over the item limit", async () => {
  await withServer(async (server: TestServer) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 1500 });
    const { top, sub, deep, bytes } = await sampleTree(alice);
    for (const into of [top, sub, deep]) {
      const res = await copy(alice, top, { pfs: into });
      assert.equal(res.body.errorCode, "RESOURCE_007", JSON.stringify(res.body));
    }
    const before = await treeOf(alice, null);
    const full = await copy(alice, top, {});
    assert.equal(full.status, 403);
    assert.equal(full.body.errorCode, "RESOURCE_015");
    assert.deepEqual(await treeOf(alice, null), before);
    assert.equal(await getUsage(server.kv, alice.userSeq), bytes);
  });
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { top } = await sampleTree(alice);
    const before = await treeOf(alice, null);
    const res = await copy(alice, top, {});
    assert.equal(res.status, 400);
    assert.equal(res.body.errorCode, "RESOURCE_021");
    assert.match(JSON.stringify(res.body), /DRIVE_FOLDER_COPY_MAX_ITEMS/);
    assert.deepEqual(await treeOf(alice, null), before);
  }, { env: { DRIVE_FOLDER_COPY_MAX_ITEMS: "4" } });
});

Deno.test("folder copy needs view and download on the source; other tenants get nothing", async () => {
  await withServer(async (server) => {
    const [alice, bob, dan] = await newTeam(server, "alice", "bob", "dan");
    const { top } = await sampleTree(alice);
    await alice.shareWith(top, bob);
    const other = await alice.newFolder("Other");
    await alice.newFile("d.txt", "delta", other);
    await alice.shareWith(other, dan, "cd");
    const viewOnly = await copy(bob, top, { ss: alice.userSeq });
    assert.equal(viewOnly.status, 403, JSON.stringify(viewOnly.body));
    assert.deepEqual(await treeOf(bob, null), {});
    const withDownload = await copy(dan, other, { ss: alice.userSeq });
    assert.equal(withDownload.status, 201, JSON.stringify(withDownload.body));
    assert.deepEqual(
      await treeOf(dan, withDownload.body.data.resourceSeq),
      await treeOf(alice, other),
    );
    const carol = await newApiUser(server, "carol");
    // Another tenant's caller gets what kv/sharing/authorize.ts answers every surface (as a file
    // copy does): PERMISSION_002, naming nothing of the folder.
    for (const body of [{ ss: alice.userSeq }, {}]) {
      const elsewhere = await copy(carol, top, body);
      assert.equal(elsewhere.body.errorCode, "PERMISSION_002", JSON.stringify(elsewhere.body));
      assert.doesNotMatch(JSON.stringify(elsewhere.body), /Top/);
    }
    assert.deepEqual(await treeOf(carol, null), {});
  });
});
