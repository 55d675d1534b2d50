/**
 * Tenant names are unique, compared case-insensitively (issue 21, bug 5): a create or a rename
 * to a name another tenant holds is a 409 TENANT_002 naming the field, a tenant stored before
 * the name key existed still holds its name, a tenant may change the case of its own name, and a
 * deleted tenant's name is free again.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { tenantKey } from "../../kv/keys.ts";

Deno.test("tenant names are unique, case-insensitively, on create and rename", async () => {
  await withServer(async (server) => {
    const admin = server.admin;
    const acme = await admin.createTenant("Acme");
    const other = await admin.createTenant("Other");
    for (const name of ["Acme", "ACME", " acme "]) {
      const dup = await admin.call("POST", "/tenants", { name });
      assert.equal(dup.status, 409, `${name}: ${JSON.stringify(dup.body)}`);
      assert.equal(dup.body.error, "TENANT_002");
      assert.equal(dup.body.field, "name");
      assert.match(dup.body.message, /exists already/);
    }
    const rename = await admin.call("PATCH", `/tenants/${other.id}`, { name: "acme" });
    assert.equal(rename.status, 409, JSON.stringify(rename.body));
    assert.equal(rename.body.error, "TENANT_002");
    // Its own name in another case is no conflict; the old name is free afterwards.
    const recased = await admin.call("PATCH", `/tenants/${acme.id}`, { name: "ACME" });
    assert.equal(recased.status, 200, JSON.stringify(recased.body));
    const moved = await admin.call("PATCH", `/tenants/${acme.id}`, { name: "Acme Europe" });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const reused = await admin.call("POST", "/tenants", { name: "Acme" });
    assert.equal(reused.status, 201, JSON.stringify(reused.body));
    // Deleting a tenant frees its name.
    const gone = await admin.call("DELETE", `/tenants/${other.id}?confirm=Other`);
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.equal((await admin.call("POST", "/tenants", { name: "other" })).status, 201);
  });
});

Deno.test("a tenant stored before names were indexed still holds its name", async () => {
  await withServer(async (server) => {
    // As an earlier version wrote it: the record only, no name key.
    await server.kv.set(tenantKey(900), {
      id: 900,
      name: "Legacy Org",
      createdAt: new Date().toISOString(),
      sharePolicy: {},
    });
    const dup = await server.admin.call("POST", "/tenants", { name: "legacy org" });
    assert.equal(dup.status, 409, JSON.stringify(dup.body));
    assert.equal(dup.body.error, "TENANT_002");
    const renamed = await server.admin.call("PATCH", "/tenants/900", { name: "Legacy" });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal((await server.admin.call("POST", "/tenants", { name: "Legacy Org" })).status, 201);
  });
});

Deno.test("two creates racing for one name: exactly one wins", async () => {
  await withServer(async (server) => {
    const answers = await Promise.all(
      ["Race", "race", "RACE", "Race"].map((name) =>
        server.admin.call("POST", "/tenants", { name })
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409]);
  });
});
