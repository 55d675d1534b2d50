/**
 * The admin CLI's lifecycle commands as processes on a KV file a server is serving: `users
 * transfer`, `users delete` and `tenants delete` (a wrong --confirm refused with exit 4 and
 * nothing deleted), and `retention run`.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { expectCli, withCliServer } from "./run.ts";

Deno.test("CLI lifecycle: transfer a drive, delete a user and a tenant, run retention", async () => {
  await withCliServer(async (env, server) => {
    const tenant = await server.admin.createTenant("Acme");
    const ana = await newApiUser(server, "ana", { tenantId: tenant.id });
    const ben = await newApiUser(server, "ben", { tenantId: tenant.id });
    await ana.newFile("a.txt", "abc");

    const moved = (await expectCli(
      env,
      0,
      ...["users", "transfer", String(ana.userSeq), "--to", String(ben.userSeq), "--json"],
    )).json();
    assert.equal(moved.folderName, "ana");
    assert.equal(moved.movedBytes, 3);
    assert.equal((await server.admin.call("GET", `/users/${ben.userSeq}`)).body.usedBytes, 3);

    const refused = await expectCli(
      env,
      4,
      "users",
      "delete",
      String(ana.userSeq),
      "--confirm",
      "x",
    );
    assert.match(refused.stderr, /ADMIN_002/);
    assert.equal((await server.admin.call("GET", `/users/${ana.userSeq}`)).status, 200);
    await expectCli(env, 2, "users", "delete", String(ana.userSeq));

    const deleted = (await expectCli(
      env,
      0,
      ...["users", "delete", String(ana.userSeq), "--confirm", "ana", "--json"],
    )).json();
    assert.equal(deleted.userSeq, ana.userSeq);
    assert.equal((await server.admin.call("GET", `/users/${ana.userSeq}`)).status, 404);

    const report = (await expectCli(env, 0, "retention", "run", "--json")).json();
    assert.equal(report.ran, true);

    const gone = (await expectCli(
      env,
      0,
      ...["tenants", "delete", String(tenant.id), "--confirm", "Acme", "--json"],
    )).json();
    assert.deepEqual(gone.users.map((u: { userSeq: number }) => u.userSeq), [ben.userSeq]);
    assert.equal((await server.admin.call("GET", `/tenants/${tenant.id}`)).status, 404);
  });
});
