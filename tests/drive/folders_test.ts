import assert from "node:assert/strict";
import { getResource, type Resource } from "../../kv/tree/resources.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { ApiUser, newApiUser, readOnlyKeyOf, shareFlags, uploadAs } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";

Deno.test("create folder at root and inside a folder; duplicate names and bad names are refused", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const root = await alice.call("POST", "/folders", { fn: "Reports" });
    assert.equal(root.status, 201);
    assert.equal(root.body.result, true);
    assert.equal(root.body.code, 201);
    assert.equal(root.body.data.resourceName, "Reports");
    const child = await alice.call("POST", "/folders", {
      fn: "2026",
      pfs: root.body.data.resourceSeq,
    });
    assert.equal(child.status, 201);

    const dup = await alice.call("POST", "/folders", { fn: "reports" });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.errorCode, "RESOURCE_003");
    assert.equal(dup.body.result, false);
    assert.equal(dup.body.data, null);

    for (const fn of ["", "a/b", "x".repeat(256), "..", "tab\there"]) {
      const bad = await alice.call("POST", "/folders", { fn });
      assert.equal(bad.status, 400, `name ${JSON.stringify(fn)}`);
      assert.equal(bad.body.errorCode, "RESOURCE_004");
    }
    const missing = await alice.call("POST", "/folders", {});
    assert.equal(missing.status, 400);
    assert.equal(missing.body.errorCode, "REQUEST_001");
    assert.match(missing.body.message, /fn/);
    const wrongType = await alice.call("POST", "/folders", { fn: "x", pfs: "abc" });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.message, /pfs/);
  });
});

Deno.test("missing, unknown and read-only keys", async () => {
  await withServer(async (server) => {
    const reader = await newApiUser(server, "reader", { scopes: ["api:read"] });
    const none = await fetch(`${server.url}/api/external/v1/folders`, { method: "POST" });
    assert.equal(none.status, 401);
    assert.equal((await none.json()).errorCode, "AUTH_001");
    const bad = await fetch(`${server.url}/api/external/v1/folders`, {
      method: "POST",
      headers: { authorization: "Bearer drv_nope" },
    });
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).errorCode, "AUTH_002");
    const ro = await reader.call("POST", "/folders", { fn: "x" });
    assert.equal(ro.status, 403);
    assert.equal(ro.body.errorCode, "AUTH_003");
  });
});

// ------------------------------------------------------------ rename, move, delete

/** GET /resources/{rs} as `user`: the envelope data, or the error envelope. */
async function meta(user: ApiUser, rs: number, ss?: number) {
  return await user.call("GET", `/resources/${rs}${ss ? `?ss=${ss}` : ""}`);
}

/** Follows parent pointers in KV; fails when the chain loops instead of reaching the root. */
async function assertReachesRoot(server: TestServer, rs: number) {
  const seen = new Set<number>();
  for (let next: number | null = rs; next !== null;) {
    assert.ok(!seen.has(next), `cycle through ${next}`);
    seen.add(next);
    const r: Resource | null = await getResource(server.kv, next);
    assert.ok(r, `resource ${next} exists`);
    next = r.parentRs;
  }
}

Deno.test("rename a folder: applied name, taken names, bad names and wrong targets", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const docs = await alice.newFolder("Docs");
    await alice.newFolder("Archive");
    const inner = await alice.newFolder("inner", docs);
    const file = await uploadAs(server, alice, "a.txt", "x");

    const renamed = await alice.call("PATCH", `/folders/${docs}/rename`, { rn: "문서 2026" });
    assert.equal(renamed.status, 200);
    assert.deepEqual(renamed.body.data, { resourceSeq: docs, name: "문서 2026" });
    assert.equal((await meta(alice, docs)).body.data.name, "문서 2026");
    assert.equal((await meta(alice, inner)).body.data.path[0].name, "문서 2026");

    const taken = await alice.call("PATCH", `/folders/${docs}/rename`, { rn: "ARCHIVE" });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.errorCode, "RESOURCE_003");
    // Only the case changes: the folder's own name slot, so it is allowed.
    const recase = await alice.call("PATCH", `/folders/${docs}/rename`, { rn: "문서 2026" });
    assert.equal(recase.status, 200);

    for (const rn of ["", "   ", "a/b", "x".repeat(256), "..", "bell\u0007"]) {
      const bad = await alice.call("PATCH", `/folders/${docs}/rename`, { rn });
      assert.equal(bad.status, 400, JSON.stringify(rn));
      assert.equal(bad.body.errorCode, "RESOURCE_004");
    }
    const longest = await alice.call("PATCH", `/folders/${inner}/rename`, { rn: "y".repeat(255) });
    assert.equal(longest.status, 200);

    const missing = await alice.call("PATCH", `/folders/${docs}/rename`, {});
    assert.equal(missing.body.errorCode, "REQUEST_001");
    assert.match(missing.body.message, /rn/);
    const wrongType = await alice.call("PATCH", `/folders/${docs}/rename`, { rn: 5 });
    assert.equal(wrongType.body.errorCode, "REQUEST_001");
    const wrongParent = await alice.call("PATCH", `/folders/${inner}/rename`, {
      rn: "z",
      pfs: inner,
    });
    assert.equal(wrongParent.body.errorCode, "REQUEST_001");
    assert.match(wrongParent.body.message, /pfs/);
    const rightParent = await alice.call("PATCH", `/folders/${inner}/rename`, {
      rn: "z",
      pfs: docs,
    });
    assert.equal(rightParent.status, 200);

    const ofFile = await alice.call("PATCH", `/folders/${file}/rename`, { rn: "b" });
    assert.equal(ofFile.status, 400);
    assert.equal(ofFile.body.errorCode, "RESOURCE_005");
    const unknown = await alice.call("PATCH", `/folders/999999/rename`, { rn: "b" });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.errorCode, "RESOURCE_002");
    const badSeq = await alice.call("PATCH", `/folders/abc/rename`, { rn: "b" });
    assert.equal(badSeq.body.errorCode, "REQUEST_001");

    const mallory = await newApiUser(server, "mallory");
    const foreign = await mallory.call("PATCH", `/folders/${docs}/rename`, { rn: "mine" });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.body.errorCode, "PERMISSION_002");
    assert.equal((await meta(alice, docs)).body.data.name, "문서 2026");
  });
});

Deno.test("move a folder with its contents; cycles, other drives and taken names are refused", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const a = await alice.newFolder("A");
    const b = await alice.newFolder("B");
    const aChild = await alice.newFolder("child", a);
    const aFile = await uploadAs(server, alice, "f.txt", "bytes");
    assert.equal((await alice.call("POST", `/files/${aFile}/move`, { pfs: aChild })).status, 200);

    const moved = await alice.call("POST", `/folders/${a}/move`, { pfs: b });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.data.parentSeq, b);
    const fileMeta = await meta(alice, aFile);
    assert.deepEqual(fileMeta.body.data.path.map((p: { name: string }) => p.name), [
      "B",
      "A",
      "child",
    ]);

    const intoSelf = await alice.call("POST", `/folders/${a}/move`, { pfs: a });
    assert.equal(intoSelf.status, 409);
    assert.equal(intoSelf.body.errorCode, "RESOURCE_007");
    const intoChild = await alice.call("POST", `/folders/${b}/move`, { pfs: aChild });
    assert.equal(intoChild.status, 409);
    assert.equal(intoChild.body.errorCode, "RESOURCE_007");

    await alice.newFolder("a"); // root now has "a"; moving "A" back collides (any case)
    const taken = await alice.call("POST", `/folders/${a}/move`, {});
    assert.equal(taken.status, 409);
    assert.equal(taken.body.errorCode, "RESOURCE_003");
    assert.equal((await meta(alice, a)).body.data.parentSeq, b);

    const toRoot = await alice.call("POST", `/folders/${aChild}/move`, { pfs: null });
    assert.equal(toRoot.status, 200);
    assert.equal(toRoot.body.data.parentSeq, null);
    const noBody = await alice.fetch(`/folders/${aChild}/move`, { method: "POST" });
    assert.equal(noBody.status, 200);

    const toFile = await alice.call("POST", `/folders/${b}/move`, { pfs: aFile });
    assert.equal(toFile.body.errorCode, "RESOURCE_005");
    const toNothing = await alice.call("POST", `/folders/${b}/move`, { pfs: 999999 });
    assert.equal(toNothing.status, 404);
    assert.equal(toNothing.body.errorCode, "RESOURCE_002");
    const fileAsFolder = await alice.call("POST", `/folders/${aFile}/move`, { pfs: b });
    assert.equal(fileAsFolder.body.errorCode, "RESOURCE_005");
    const wrongType = await alice.call("POST", `/folders/${b}/move`, { pfs: "x" });
    assert.equal(wrongType.body.errorCode, "REQUEST_001");

    const bob = await newApiUser(server, "bob", { tenantId: alice.tenantId });
    const bobs = await bob.newFolder("Bob's");
    const toBob = await alice.call("POST", `/folders/${b}/move`, { ts: bob.userSeq, pfs: bobs });
    assert.equal(toBob.status, 400);
    assert.equal(toBob.body.errorCode, "RESOURCE_017");
    const toBobsFolder = await alice.call("POST", `/folders/${b}/move`, { pfs: bobs });
    assert.equal(toBobsFolder.body.errorCode, "PERMISSION_002");
    assert.equal((await meta(alice, b)).body.data.parentSeq, null);
  });
});

Deno.test("concurrent opposite moves (A into B, B into A) never form a cycle", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    for (let round = 0; round < 30; round++) {
      const a = await alice.newFolder(`A${round}`);
      const b = await alice.newFolder(`B${round}`);
      const [ab, ba] = await Promise.all([
        alice.call("POST", `/folders/${a}/move`, { pfs: b }),
        alice.call("POST", `/folders/${b}/move`, { pfs: a }),
      ]);
      const statuses = [ab.status, ba.status].sort();
      assert.deepEqual(statuses, [200, 409], `round ${round}: ${JSON.stringify([ab, ba])}`);
      const refused = ab.status === 409 ? ab : ba;
      assert.equal(refused.body.errorCode, "RESOURCE_007");
      await assertReachesRoot(server, a);
      await assertReachesRoot(server, b);
    }
    // A three-folder ring attempted at once: at most two of the moves can succeed.
    for (let round = 0; round < 10; round++) {
      const [x, y, z] = [
        await alice.newFolder(`X${round}`),
        await alice.newFolder(`Y${round}`),
        await alice.newFolder(`Z${round}`),
      ];
      const results = await Promise.all([
        alice.call("POST", `/folders/${x}/move`, { pfs: y }),
        alice.call("POST", `/folders/${y}/move`, { pfs: z }),
        alice.call("POST", `/folders/${z}/move`, { pfs: x }),
      ]);
      assert.ok(results.filter((r) => r.status === 200).length <= 2);
      for (const r of results.filter((r) => r.status !== 200)) {
        assert.equal(r.body.errorCode, "RESOURCE_007");
      }
      for (const rs of [x, y, z]) await assertReachesRoot(server, rs);
    }
  });
});

Deno.test("delete a folder: it and its contents go to the trash; RESOURCE_001 when nothing to delete", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await alice.newFolder("Top");
    const sub = await alice.newFolder("Sub", top);
    const file = await uploadAs(server, alice, "in.txt", "hello");
    await alice.call("POST", `/files/${file}/move`, { pfs: sub });

    const del = await alice.call("PATCH", `/folders/${top}/delete`);
    assert.equal(del.status, 200);
    assert.equal(del.body.data.resourceSeq, top);
    assert.ok(Date.parse(del.body.data.trashedAt) > 0);
    for (const rs of [top, sub, file]) {
      assert.equal((await meta(alice, rs)).body.errorCode, "RESOURCE_002", `rs ${rs}`);
    }
    const root = await alice.call("GET", "/resources");
    assert.deepEqual(root.body.data.items, []);
    const trash = await alice.call("GET", "/trash");
    assert.deepEqual(trash.body.data.items.map((i: { resourceSeq: number }) => i.resourceSeq), [
      top,
    ]);

    const again = await alice.call("PATCH", `/folders/${top}/delete`);
    assert.equal(again.status, 404);
    assert.equal(again.body.errorCode, "RESOURCE_001");
    const inside = await alice.call("PATCH", `/folders/${sub}/delete`);
    assert.equal(inside.body.errorCode, "RESOURCE_001");
    const unknown = await alice.call("PATCH", `/folders/424242/delete`);
    assert.equal(unknown.body.errorCode, "RESOURCE_001");
    const other = await alice.newFolder("Other");
    const aFile = await uploadAs(server, alice, "keep.txt", "k");
    const ofFile = await alice.call("PATCH", `/folders/${aFile}/delete`);
    assert.equal(ofFile.status, 400);
    assert.equal(ofFile.body.errorCode, "RESOURCE_005");
    const mallory = await newApiUser(server, "mallory");
    const foreign = await mallory.call("PATCH", `/folders/${other}/delete`);
    assert.equal(foreign.body.errorCode, "PERMISSION_002");
    assert.equal((await meta(alice, other)).status, 200);
  });
});

Deno.test("read-only key: rename, move and delete of folders are refused and change nothing", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const ro = await readOnlyKeyOf(server, alice);
    const f = await alice.newFolder("F");
    const g = await alice.newFolder("G");
    const attempts = [
      await ro.call("PATCH", `/folders/${f}/rename`, { rn: "H" }),
      await ro.call("POST", `/folders/${f}/move`, { pfs: g }),
      await ro.call("PATCH", `/folders/${f}/delete`),
    ];
    for (const r of attempts) {
      assert.equal(r.status, 403);
      assert.equal(r.body.errorCode, "AUTH_003");
    }
    const after = await meta(ro, f);
    assert.equal(after.status, 200);
    assert.equal(after.body.data.name, "F");
    assert.equal(after.body.data.parentSeq, null);
  });
});

Deno.test("a shared folder: edit share renames and moves within the owner's drive, view-only cannot", async () => {
  await withServer(async (server) => {
    const [alice, bob, carol] = await newTeam(server, "alice", "bob", "carol");
    const team = await alice.newFolder("Team");
    const plans = await alice.newFolder("Plans", team);
    const dest = await alice.newFolder("Dest", team);
    await alice.newShare({
      rs: team,
      st: "SPECIFIC_USERS",
      ts: [
        { us: bob.userSeq, ...shareFlags("ce", "cu", "cd") },
        { us: carol.userSeq, ...shareFlags() },
      ],
    });
    const renamed = await bob.call("PATCH", `/folders/${plans}/rename`, {
      rn: "Plans 2026",
      ss: alice.userSeq,
      pfs: team,
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const wrongOwner = await bob.call("PATCH", `/folders/${plans}/rename`, {
      rn: "x",
      ss: bob.userSeq,
    });
    assert.equal(wrongOwner.body.errorCode, "PERMISSION_002");

    const moved = await bob.call("POST", `/folders/${plans}/move`, {
      ts: alice.userSeq,
      pfs: dest,
      ss: alice.userSeq,
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.data.parentSeq, dest);
    assert.equal(moved.body.data.ownerSeq, alice.userSeq);
    const toBobsRoot = await bob.call("POST", `/folders/${plans}/move`, { ss: alice.userSeq });
    assert.equal(toBobsRoot.body.errorCode, "REQUEST_001");
    const toBobsDrive = await bob.call("POST", `/folders/${plans}/move`, {
      ts: bob.userSeq,
      pfs: await bob.newFolder("Mine"),
      ss: alice.userSeq,
    });
    assert.equal(toBobsDrive.body.errorCode, "RESOURCE_017");

    const viewOnly = await carol.call("PATCH", `/folders/${plans}/rename`, {
      rn: "nope",
      ss: alice.userSeq,
    });
    assert.equal(viewOnly.status, 403);
    assert.equal(viewOnly.body.errorCode, "PERMISSION_004");
    assert.equal((await meta(alice, plans)).body.data.name, "Plans 2026");
  });
});
