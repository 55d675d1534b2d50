/**
 * Identifiers in admin API paths are checked for shape and length before they reach a KV key
 * (issue 11, item 4): an over-long or malformed key id or adapter name is a 400 naming the
 * parameter, never a 500 from Deno KV's 2 KiB key limit.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";

const LONG = "x".repeat(2100);
const LONG_MULTIBYTE = "é".repeat(1100);

Deno.test("admin: over-long or malformed key ids and adapter names are 400, never 500", async () => {
  await withServer(async (server) => {
    const cases: [string, string, string][] = [];
    for (const bad of [LONG, encodeURIComponent(LONG_MULTIBYTE), "has%20space", "a%2Fb", "-lead"]) {
      cases.push(
        ["DELETE", `/keys/${bad}`, "keyId"],
        ["GET", `/adapters/${bad}`, "name"],
        ["DELETE", `/adapters/${bad}`, "name"],
        ["POST", `/adapters/${bad}/rotate-secret`, "name"],
        ["POST", `/adapters/${bad}/test`, "name"],
      );
    }
    for (const [method, path, field] of cases) {
      const res = await server.admin.call(method, path);
      const where = `${method} ${path.slice(0, 60)}`;
      assert.equal(res.status, 400, `${where}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, "REQUEST_001", where);
      assert.equal(res.body.field, field, where);
      assert.match(res.body.message, new RegExp(`^${field}: `), where);
    }
  });
});

Deno.test("admin: well-formed ids that name nothing are 404; real ones still work", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const unknownKey = await server.admin.call("DELETE", `/keys/${"A".repeat(16)}`);
    assert.equal(unknownKey.status, 404, JSON.stringify(unknownKey.body));
    const unknownAdapter = await server.admin.call("GET", `/adapters/${"a".repeat(128)}`);
    assert.equal(unknownAdapter.status, 404, JSON.stringify(unknownAdapter.body));

    const keys = await server.admin.call("GET", `/keys?userSeq=${alice.userSeq}`);
    const keyId = keys.body.items[0].keyId;
    assert.equal((await server.admin.call("DELETE", `/keys/${keyId}`)).status, 204);
    const created = await server.admin.call("POST", "/adapters", {
      name: "office.host_1",
      userSeq: alice.userSeq,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await server.admin.call("GET", "/adapters/office.host_1")).status, 200);
    assert.equal(
      (await server.admin.call("POST", "/adapters/office.host_1/rotate-secret")).status,
      200,
    );
    assert.equal((await server.admin.call("DELETE", "/adapters/office.host_1")).status, 204);
  });
});
