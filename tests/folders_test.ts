import assert from "node:assert/strict";
import { newApiUser, withServer } from "./helpers.ts";

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
