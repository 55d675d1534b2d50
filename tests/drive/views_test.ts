/**
 * The web app's views over HTTP: stars on any resource the caller can view and GET /starred
 * (kv/sharing/stars.ts), GET /recent from the event log (kv/views/recent.ts), DELETE /trash
 * (empty the trash) and the usage on GET /api/account/v1/me.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { type Browser, sessionOf } from "../helpers/browser_session.ts";
import { untilValue } from "../helpers/wait.ts";

const names = (items: { name: string }[]) => items.map((i) => i.name);

async function starred(user: ApiUser, query = "") {
  const res = await user.call("GET", `/starred${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

Deno.test("stars: own and shared files and folders, listed, paged; dead stars skipped and dropped", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const folder = await alice.newFolder("Projects");
    const file = await alice.newFile("plan.txt", "plan", folder);
    const later = await alice.newFile("later.txt", "later");
    const shared = await bob.newFile("bob.txt", "from bob");
    const share = await bob.shareWith(shared, alice);
    const unshared = await bob.newFile("private.txt", "no");

    for (const [rs, ss] of [[folder], [file], [later], [shared, bob.userSeq]]) {
      const res = await alice.call("POST", `/shared/${rs}/star${ss ? `?ss=${ss}` : ""}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.isStarred, true);
    }
    // Another user's resource that is not shared: refused, as any access is.
    assert.equal((await alice.call("POST", `/shared/${unshared}/star`)).status, 403);

    const all = await starred(alice);
    assert.deepEqual(names(all.items), ["Projects", "plan.txt", "later.txt", "bob.txt"]);
    assert.equal(all.nextCursor, null);
    const bobs = all.items[3];
    assert.equal(bobs.ownerSeq, bob.userSeq);
    assert.equal(bobs.isOwner, false);
    assert.equal(bobs.permissions.canView, true);
    assert.equal(all.items[1].size, 4);
    assert.equal(all.items[0].type, "FOLDER");
    assert.ok(Date.parse(all.items[0].starredAt) > 0);
    // The shared-with-me list still reports the star.
    const list = await alice.call("GET", "/shared?ps=10");
    assert.equal(list.body.data.items[0].isStarred, true);

    // Pages of two.
    const first = await starred(alice, "?ps=2");
    assert.deepEqual(names(first.items), ["Projects", "plan.txt"]);
    const second = await starred(alice, `?ps=2&cursor=${first.nextCursor}`);
    assert.deepEqual(names(second.items), ["later.txt", "bob.txt"]);
    // Someone else's cursor is refused.
    const theirs = await bob.call("GET", `/starred?cursor=${first.nextCursor}`);
    assert.equal(theirs.body.errorCode, "RESOURCE_018");

    // Trashed: skipped (restored, it comes back); unshared: dropped; unstarred: gone.
    assert.equal((await alice.call("PATCH", `/folders/${folder}/delete`)).status, 200);
    assert.equal((await bob.call("DELETE", `/shares/${share.shareSeq}`)).status, 200);
    assert.equal((await alice.call("DELETE", `/shared/${later}/star`)).status, 200);
    assert.deepEqual(names((await starred(alice)).items), []);
    assert.equal((await alice.call("POST", `/trash/${folder}/restore`)).status, 200);
    assert.deepEqual(names((await starred(alice)).items), ["Projects", "plan.txt"]);
    // Shared again: the dropped star does not come back by itself.
    await bob.shareWith(shared, alice);
    assert.deepEqual(names((await starred(alice)).items), ["Projects", "plan.txt"]);
    // Bob's own stars are his.
    assert.deepEqual((await starred(bob)).items, []);
  });
});

Deno.test("recent: newest change first, own and shared files, each once, nothing trashed or unseen", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const carol = await newApiUser(server, "carol");
    const a = await alice.newFile("a.txt", "a");
    const folder = await alice.newFolder("Docs");
    const b = await alice.newFile("b.txt", "b", folder);
    const team = await bob.newFolder("Team");
    await bob.shareWith(team, alice);
    await bob.newFile("bob.txt", "from bob", team);
    await carol.newFile("carol.txt", "not for alice");
    const gone = await alice.newFile("gone.txt", "trashed");
    assert.equal((await alice.call("PATCH", `/files/${gone}/delete`)).status, 200);
    // A new version of a: it is the newest again.
    assert.equal((await alice.upload("a.txt", "a2", { st: "version", rs: a })).status, 201);

    // The log is written by the sequencer just after each commit: wait for the last change.
    const items = await untilValue("Recent shows the new version of a.txt", async () => {
      const res = await alice.call("GET", "/recent");
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const got = res.body.data.items;
      return got[0]?.name === "a.txt" && got[0]?.size === 2 ? got : null;
    });
    assert.deepEqual(names(items), ["a.txt", "bob.txt", "b.txt"]);
    assert.equal(items[0].resourceSeq, a);
    assert.equal(items[0].size, 2);
    assert.equal(items[1].ownerSeq, bob.userSeq);
    assert.equal(items[1].isOwner, false);
    assert.equal(items[2].parentSeq, folder);
    assert.ok(Date.parse(items[0].changedAt) >= Date.parse(items[1].changedAt));
    assert.deepEqual(names((await alice.call("GET", "/recent?ps=1")).body.data.items), ["a.txt"]);
    assert.equal((await alice.call("GET", "/recent?ps=0")).body.errorCode, "REQUEST_001");
    assert.equal((await alice.call("GET", "/recent?ps=201")).body.errorCode, "REQUEST_001");
    assert.deepEqual(names((await carol.call("GET", "/recent")).body.data.items), ["carol.txt"]);
    assert.equal(items[2].resourceSeq, b);
  });
});

Deno.test("DELETE /trash empties the trash: every item, its contents, shares and quota", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const folder = await alice.newFolder("Old");
    await alice.newFile("x.txt", "12345", folder);
    await alice.newFolder("inner", folder);
    const loose = await alice.newFile("loose.txt", "123");
    const kept = await alice.newFile("kept.txt", "1");
    await alice.shareWith(folder, bob);
    assert.equal((await alice.call("PATCH", `/folders/${folder}/delete`)).status, 200);
    assert.equal((await alice.call("PATCH", `/files/${loose}/delete`)).status, 200);
    // Bob's trash is his own.
    const bobs = await bob.newFile("bob.txt", "b");
    assert.equal((await bob.call("PATCH", `/files/${bobs}/delete`)).status, 200);

    const res = await alice.call("DELETE", "/trash");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data, { purgedItems: 2, deletedResources: 4, freedBytes: 8 });
    assert.deepEqual((await alice.call("GET", "/trash")).body.data.items, []);
    assert.equal((await alice.call("GET", `/resources/${kept}`)).status, 200);
    assert.equal((await bob.call("GET", "/shared?ps=10")).body.data.items.length, 0);
    assert.equal((await bob.call("GET", "/trash")).body.data.items.length, 1);
    // Empty already: nothing to do.
    assert.deepEqual((await alice.call("DELETE", "/trash")).body.data, {
      purgedItems: 0,
      deletedResources: 0,
      freedBytes: 0,
    });
    // A read-only key may not.
    const readOnly = await server.admin.createKey(alice.userSeq, ["api:read"]);
    const refused = await fetch(`${server.url}/api/external/v1/trash`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${readOnly}` },
    });
    assert.equal(refused.status, 403);
    assert.equal((await refused.json()).errorCode, "AUTH_003");
  });
});

Deno.test("GET /me tells the storage used and the quota", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 1000 });
    const session = await sessionOf(server, alice);
    const before = await (session as unknown as { browser: Browser }).browser.account("GET", "/me");
    assert.deepEqual(before.body.usage, { usedBytes: 0, quotaBytes: 1000 });
    await alice.newFile("a.txt", "0123456789");
    const after = await (session as unknown as { browser: Browser }).browser.account("GET", "/me");
    assert.deepEqual(after.body.usage, { usedBytes: 10, quotaBytes: 1000 });
    assert.equal(after.body.user.userSeq, alice.userSeq);
  });
});
