/**
 * Sessions across two main.ts processes on one KV file: a session made on one works on the
 * other; disabling the user, a sign-out, a revocation or deleting the user ends it on the other
 * process at its next request. Then: no password, token, session id or app password in either
 * process's log.
 */
import assert from "node:assert/strict";
import { withTwoMains } from "../helpers/process.ts";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { Browser, GOOD_PASSWORD, invite } from "../helpers/browser_session.ts";

/** Both processes say this is their public origin; browsers send it as Origin. */
const PUBLIC_URL = "http://drive.test";

/** The same cookies, aimed at another process. */
function on(url: string, b: Browser): Browser {
  const other = new Browser(url, PUBLIC_URL);
  for (const [k, v] of b.cookies) other.cookies.set(k, v);
  other.csrfToken = b.csrfToken;
  return other;
}

Deno.test("two processes: disabling, revoking, deleting end a session at the next request; no secret is logged", async () => {
  await withTwoMains({ DRIVE_PUBLIC_URL: PUBLIC_URL, DRIVE_LOG_LEVEL: "debug" }, async (a, b) => {
    const admin = new AdminClient(a.url);
    const { id: tenantId } = await admin.createTenant("Acme");
    const secrets: string[] = [ADMIN_TOKEN, GOOD_PASSWORD];

    const signIn = async (accountId: string) => {
      const user = await admin.createUser(tenantId, accountId);
      const token = await invite(admin, user.userSeq);
      secrets.push(token);
      const br = new Browser(a.url, PUBLIC_URL);
      const set = await br.account("POST", "/invitations/accept", {
        token,
        password: GOOD_PASSWORD,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      const again = await br.signIn(accountId);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      secrets.push(...br.cookies.values(), br.csrfToken!);
      return { br, userSeq: user.userSeq };
    };

    // Disabling.
    const alice = await signIn("alice");
    const aliceOnB = on(b.url, alice.br);
    assert.equal((await aliceOnB.account("GET", "/me")).status, 200);
    assert.equal((await aliceOnB.call("GET", "/api/external/v1/resources")).status, 200);
    const app = await alice.br.account("POST", "/app-passwords", { label: "sync", scope: "read" });
    assert.equal(app.status, 201);
    secrets.push(app.body.appPassword);
    const disabled = await admin.call("POST", `/users/${alice.userSeq}/disable`);
    assert.equal(disabled.status, 200, JSON.stringify(disabled.body));
    assert.equal((await aliceOnB.account("GET", "/me")).status, 401);
    assert.equal((await aliceOnB.call("GET", "/api/external/v1/resources")).status, 401);
    // Enabling again does not bring the session back.
    await admin.call("POST", `/users/${alice.userSeq}/enable`);
    assert.equal((await aliceOnB.account("GET", "/me")).status, 401);

    // Sign-out and revocation.
    const bob = await signIn("bob");
    const bobOnB = on(b.url, bob.br);
    assert.equal((await bobOnB.account("GET", "/me")).status, 200);
    const second = await signIn2(a.url, "bob", secrets);
    const sessions = await bob.br.account("GET", "/sessions");
    assert.equal(sessions.body.items.length, 2);
    const other = sessions.body.items.find((s: { current: boolean }) => !s.current);
    assert.equal((await bob.br.account("DELETE", `/sessions/${other.id}`)).status, 200);
    assert.equal((await on(b.url, second).account("GET", "/me")).status, 401);
    assert.equal((await bob.br.account("POST", "/sign-out", {})).status, 200);
    assert.equal((await bobOnB.account("GET", "/me")).status, 401);

    // Deleting the user.
    const carol = await signIn("carol");
    const carolOnB = on(b.url, carol.br);
    assert.equal((await carolOnB.account("GET", "/me")).status, 200);
    const del = await admin.call("DELETE", `/users/${carol.userSeq}?confirm=carol`);
    assert.ok(del.status < 300, JSON.stringify(del.body));
    assert.equal((await carolOnB.account("GET", "/me")).status, 401);

    // A failed sign-in too, so its path is logged as well.
    assert.equal(
      (await new Browser(b.url, PUBLIC_URL).signIn("bob", "wrong-password-1")).status,
      401,
    );

    const logs = a.output() + b.output();
    assert.ok(logs.includes("/api/account/v1/sign-in"), "the requests were logged");
    for (const secret of secrets) {
      assert.ok(!logs.includes(secret), `a secret is in the logs: ${secret.slice(0, 6)}…`);
    }
  });
});

async function signIn2(url: string, login: string, secrets: string[]): Promise<Browser> {
  const br = new Browser(url, PUBLIC_URL);
  const r = await br.signIn(login);
  assert.equal(r.status, 200);
  secrets.push(...br.cookies.values(), br.csrfToken!);
  return br;
}
