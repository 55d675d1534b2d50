/**
 * Every request example of the admin OpenAPI document works against a fresh server (issue 21,
 * bug 7): what "try it" in the API reference sends must succeed. The test builds each body
 * from the document's own examples, as the reference does, and sends the operations in the
 * order an administrator would (a tenant before its users, a user before its keys), with the
 * ids the earlier answers gave in the path. An operation with a body that this walk does not
 * send fails the test, so a new one cannot go untried.
 */
import assert from "node:assert/strict";
import { acquireLock } from "../../kv/tree/locks.ts";
import { ApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The example a schema of `doc` gives, built from its properties' examples when it has none. */
function exampleOf(doc: Json, schema: Json): unknown {
  if (schema?.$ref) return exampleOf(doc, doc.components.schemas[schema.$ref.split("/").pop()]);
  if (schema?.example !== undefined) return schema.example;
  if (!schema?.properties) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = exampleOf(doc, property);
    if (value !== undefined) out[name] = value;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** The operation's request body example, or undefined when it takes no body. */
function bodyExample(doc: Json, op: Json): unknown {
  const schema = op?.requestBody?.content?.["application/json"]?.schema;
  return schema === undefined ? undefined : exampleOf(doc, schema);
}

/** The query string of the operation's examples (confirm=alice, ...), for required parameters. */
function queryExample(op: Json): string {
  const params = (op.parameters ?? []).filter((p: Json) => p.in === "query" && p.required);
  return params.length === 0
    ? ""
    : "?" + new URLSearchParams(params.map((p: Json) => [p.name, String(p.schema.example)]));
}

Deno.test("every request example of the admin OpenAPI document succeeds on a fresh server", async () => {
  await withServer(async (server) => {
    const doc = await (await fetch(`${server.url}/admin/api/openapi.json`)).json();
    const sent = new Set<string>();
    const send = async (method: string, template: string, path = template) => {
      const op = doc.paths[template]?.[method];
      assert.ok(op, `${method} ${template} is not in the document`);
      sent.add(`${method} ${template}`);
      const body = bodyExample(doc, op);
      const res = await server.admin.call(method.toUpperCase(), path + queryExample(op), body);
      assert.ok(
        res.status >= 200 && res.status < 300,
        `${method} ${template} with ${JSON.stringify(body)}: ${res.status} ` +
          JSON.stringify(res.body),
      );
      return res.body;
    };

    const tenant = await send("post", "/tenants");
    await send("patch", "/tenants/{id}", `/tenants/${tenant.id}`);
    await send("put", "/tenants/{id}/oidc", `/tenants/${tenant.id}/oidc`);
    const alice = await send("post", "/users");
    assert.equal(alice.tenantId, tenant.id, "the user example names the example tenant");
    await send("patch", "/users/{userSeq}", `/users/${alice.userSeq}`);
    const key = await send("post", "/keys");
    const adapter = await send("post", "/adapters");
    await send("post", "/adapters/{name}/rotate-secret", `/adapters/${adapter.name}/rotate-secret`);
    await send("post", "/adapters/{name}/test", `/adapters/${adapter.name}/test`);
    await send("post", "/webhooks");
    await send("post", "/blobs/sweep");

    // A lock to release: a folder of alice's, locked as a storage provider would.
    const user = new ApiUser(server.url, alice.userSeq, tenant.id, key.apiKey, alice.accountId);
    const rs = await user.newFolder("locked");
    await acquireLock(server.kv, {
      rs,
      owner: "provider:office:alice",
      source: "provider",
      holder: adapter.name,
      ttlMs: null,
    });
    await send("delete", "/locks/{resourceSeq}", `/locks/${rs}`);

    // The transfer example names user 2: the receiving user, of the same tenant.
    const bob = await server.admin.createUser(tenant.id, "bob");
    assert.equal(bob.userSeq, 2);
    await send("post", "/users/{userSeq}/transfer", `/users/${alice.userSeq}/transfer`);
    // Sign-in: a one-time link for alice (issue 24).
    await send("post", "/users/{userSeq}/invitations", `/users/${alice.userSeq}/invitations`);
    await send("delete", "/users/{userSeq}", `/users/${alice.userSeq}`);

    const withBody = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Json).filter(([, op]) => (op as Json).requestBody)
        .map(([method]) => `${method} ${path}`)
    );
    assert.deepEqual(withBody.filter((o) => !sent.has(o)), [], "operations with a body not sent");
  });
});
