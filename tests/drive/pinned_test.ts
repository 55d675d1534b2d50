import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { newApiUser, uploadAs } from "../helpers/api.ts";

Deno.test("pin own and shared folders; errors exactly as specified; read-only keys may pin", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob", { scopes: ["api:read"] });
    const eve = await newApiUser(server, "eve");
    const shared = await alice.newFolder("Shared");
    const secret = await alice.newFolder("Secret");
    await alice.shareWith(shared, bob);
    const file = await uploadAs(server, alice, "f.txt", "hi");

    const p1 = await bob.call("POST", "/pinned-folders", { rs: shared, ss: alice.userSeq });
    assert.equal(p1.status, 201);
    assert.equal(p1.body.data.sharedByUserSeq, alice.userSeq);
    assert.equal(p1.body.data.resourceType, "FOLDER");
    assert.equal(p1.body.data.resourceName, "Shared");

    const cases: [Record<string, unknown>, number, string][] = [
      [{ rs: shared, ss: alice.userSeq }, 409, "PINNED_FOLDER_002"],
      [{ rs: secret, ss: alice.userSeq }, 403, "PERMISSION_001"],
      [{ rs: shared }, 403, "PERMISSION_002"],
      [{ rs: shared, ss: eve.userSeq }, 403, "PERMISSION_002"],
      [{ rs: 987654 }, 404, "RESOURCE_002"],
      [{}, 400, "REQUEST_001"],
    ];
    for (const [body, status, code] of cases) {
      const res = await bob.call("POST", "/pinned-folders", body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.body.errorCode, code, JSON.stringify(body));
    }
    const filePin = await alice.call("POST", "/pinned-folders", { rs: file });
    assert.equal(filePin.status, 400);
    assert.equal(filePin.body.errorCode, "RESOURCE_005");
    const sharedFile = await uploadAs(server, alice, "s.txt", "x");
    await alice.shareWith(sharedFile, bob);
    const bobFile = await bob.call("POST", "/pinned-folders", {
      rs: sharedFile,
      ss: alice.userSeq,
    });
    assert.equal(bobFile.body.errorCode, "RESOURCE_005");

    // Own folders: ss omitted or the caller's own seq; three at most, in pin order.
    const a = [];
    for (const n of ["A", "B", "C", "D"]) a.push(await alice.newFolder(n));
    assert.equal((await alice.call("POST", "/pinned-folders", { rs: a[0] })).status, 201);
    assert.equal(
      (await alice.call("POST", "/pinned-folders", { rs: a[1], ss: alice.userSeq })).status,
      201,
    );
    assert.equal((await alice.call("POST", "/pinned-folders", { rs: a[2] })).status, 201);
    const fourth = await alice.call("POST", "/pinned-folders", { rs: a[3] });
    assert.equal(fourth.status, 409);
    assert.equal(fourth.body.errorCode, "PINNED_FOLDER_003");
    const list = await alice.call("GET", "/pinned-folders");
    assert.deepEqual(list.body.data.items.map((p: { resourceSeq: number }) => p.resourceSeq), [
      a[0],
      a[1],
      a[2],
    ]);

    // Removing: someone else's pin or a gone pin is PINNED_FOLDER_001.
    const first = list.body.data.items[0].pinnedFolderSeq;
    const other = await bob.call("DELETE", `/pinned-folders/${first}`);
    assert.equal(other.status, 404);
    assert.equal(other.body.errorCode, "PINNED_FOLDER_001");
    assert.equal((await alice.call("DELETE", `/pinned-folders/${first}`)).status, 200);
    assert.equal(
      (await alice.call("DELETE", `/pinned-folders/${first}`)).body.errorCode,
      "PINNED_FOLDER_001",
    );
    assert.equal((await alice.call("POST", "/pinned-folders", { rs: a[3] })).status, 201);
    // Bob's read-only key removes his own pin.
    assert.equal(
      (await bob.call("DELETE", `/pinned-folders/${p1.body.data.pinnedFolderSeq}`)).status,
      200,
    );
  });
});

Deno.test("ten concurrent pins never exceed three", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folders = [];
    for (let i = 0; i < 10; i++) folders.push(await alice.newFolder(`F${i}`));
    const results = await Promise.all(
      folders.map((rs) => alice.call("POST", "/pinned-folders", { rs })),
    );
    const ok = results.filter((r) => r.status === 201);
    assert.equal(ok.length, 3);
    for (const r of results.filter((r) => r.status !== 201)) {
      assert.equal(r.body.errorCode, "PINNED_FOLDER_003");
    }
    const list = await alice.call("GET", "/pinned-folders");
    assert.equal(list.body.data.items.length, 3);
  });
});

Deno.test("a pin disappears when its folder or an ancestor is trashed, or access is lost", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const parent = await alice.newFolder("Parent");
    const child = await alice.newFolder("Child", parent);
    const direct = await alice.newFolder("Direct");
    const shared = await alice.newFolder("Shared");
    const share = await alice.shareWith(shared, bob);
    for (const rs of [child, direct]) {
      assert.equal((await alice.call("POST", "/pinned-folders", { rs })).status, 201);
    }
    assert.equal(
      (await bob.call("POST", "/pinned-folders", { rs: shared, ss: alice.userSeq })).status,
      201,
    );

    assert.equal((await alice.call("PATCH", `/folders/${direct}/delete`)).status, 200);
    assert.equal((await alice.call("PATCH", `/folders/${parent}/delete`)).status, 200);
    assert.deepEqual((await alice.call("GET", "/pinned-folders")).body.data.items, []);

    await alice.call("PUT", `/shares/${share.shareSeq}/targets`, { ts: [] });
    assert.deepEqual((await bob.call("GET", "/pinned-folders")).body.data.items, []);

    // Dead pins no longer count: three new pins fit.
    for (const n of ["X", "Y", "Z"]) {
      const rs = await alice.newFolder(n);
      assert.equal((await alice.call("POST", "/pinned-folders", { rs })).status, 201);
    }
  });
});
