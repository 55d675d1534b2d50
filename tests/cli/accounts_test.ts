/**
 * The admin CLI's sign-in commands on the KV file a server serves: `users grant-admin` lets the
 * user into the admin API with their session, `users remove-admin` takes it away, `users invite`
 * prints a link that sets a password; an unknown user is exit 4.
 */
import assert from "node:assert/strict";
import { Browser, GOOD_PASSWORD, tokenOf } from "../helpers/browser_session.ts";
import { expectCli, withCliServer } from "./run.ts";

Deno.test("CLI: users invite, grant-admin and remove-admin", async () => {
  await withCliServer(async (env, server) => {
    const { id } = await server.admin.createTenant("Acme");
    const ada = await server.admin.createUser(id, "ada");
    const cliEnv = { ...env, DRIVE_PUBLIC_URL: server.url };
    const link = (await expectCli(cliEnv, 0, "users", "invite", "ada", "--json")).json();
    assert.equal(link.kind, "invitation");
    assert.ok(link.url.startsWith(`${server.url}/#/invitation/`), link.url);
    const b = new Browser(server.url);
    const set = await b.account("POST", "/invitations/accept", {
      token: tokenOf(link.url),
      password: GOOD_PASSWORD,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal((await b.call("GET", "/admin/api/users")).status, 403);

    const granted = (await expectCli(cliEnv, 0, "users", "grant-admin", "ada", "--json")).json();
    assert.deepEqual(granted, { userSeq: ada.userSeq, admin: true });
    assert.equal((await b.call("GET", "/admin/api/users")).status, 200);
    await expectCli(cliEnv, 0, "users", "remove-admin", String(ada.userSeq));
    assert.equal((await b.call("GET", "/admin/api/users")).status, 403);
    await expectCli(cliEnv, 4, "users", "grant-admin", "nobody");
  });
});
