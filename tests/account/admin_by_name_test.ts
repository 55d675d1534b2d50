/**
 * Administrators by name: the admin role lets a signed-in user use the admin API with their
 * session (CSRF rule on changes), the activity log names them, the last administrator cannot
 * remove their own role, and the admin token keeps working.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { signedInUser } from "../helpers/browser_session.ts";

Deno.test("an admin by name uses the admin API with their session and is named in the log", async () => {
  await withServer(async (server) => {
    const { browser: ada, userSeq: adaSeq, tenantId } = await signedInUser(server, "ada");
    const { browser: bob, userSeq: bobSeq } = await signedInUser(server, "bob", { tenantId });
    // Without the role: 403.
    const refused = await ada.call("GET", "/admin/api/users");
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "AUTH_011");

    const grant = await server.admin.call("PUT", `/users/${adaSeq}/admin-role`);
    assert.equal(grant.status, 200, JSON.stringify(grant.body));
    assert.deepEqual(grant.body, { userSeq: adaSeq, admin: true });
    assert.deepEqual((await ada.account("GET", "/me")).body.user.roles, ["admin"]);
    assert.equal((await ada.call("GET", "/admin/api/users")).status, 200);

    // A change needs the CSRF token like any cookie request.
    const noToken = await ada.call("PATCH", `/admin/api/users/${bobSeq}`, { name: "B" }, {
      csrf: false,
    });
    assert.equal(noToken.status, 403);
    assert.equal(noToken.body.error, "AUTH_010");
    const renamed = await ada.call("PATCH", `/admin/api/users/${bobSeq}`, { name: "Bob B." });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));

    // The last administrator cannot remove their own role; another admin may remove it.
    const last = await ada.call("DELETE", `/admin/api/users/${adaSeq}/admin-role`);
    assert.equal(last.status, 409);
    assert.equal(last.body.error, "USER_006");
    assert.equal((await ada.call("PUT", `/admin/api/users/${bobSeq}/admin-role`)).status, 200);
    assert.equal((await ada.call("DELETE", `/admin/api/users/${adaSeq}/admin-role`)).status, 200);
    assert.equal((await ada.call("GET", "/admin/api/users")).status, 403);
    assert.equal((await bob.call("GET", "/admin/api/users")).status, 200);
    // The token still works, and may remove anyone's role.
    assert.equal((await server.admin.call("DELETE", `/users/${bobSeq}/admin-role`)).status, 200);

    // The activity log names the administrator.
    await server.deps.events.sequenceNow();
    const log = await server.admin.call("GET", "/activity?kind=admin_action");
    const change = log.body.items.find((e: { detail: { action: string } }) =>
      e.detail.action === "user_changed"
    );
    assert.ok(change, JSON.stringify(log.body));
    assert.equal(change.actor.adminSeq, adaSeq);
    assert.equal(change.actor.admin, true);
    const account = await server.admin.call("GET", "/activity?kind=account");
    const actions = account.body.items.map((e: { detail: { action: string } }) => e.detail.action);
    for (
      const a of [
        "invitation_created",
        "invitation_used",
        "signed_in",
        "role_granted",
        "role_removed",
      ]
    ) {
      assert.ok(actions.includes(a), `${a} in ${actions}`);
    }
  });
});
