/**
 * Single sign-on per tenant against a real OpenID provider (panva's oidc-provider on 127.0.0.1,
 * tests/helpers/oidc_provider.ts), driven through its login and consent pages with fetch
 * (tests/helpers/oidc_login.ts): the admin settings (secret sealed, never shown), just-in-time
 * users with the default quota, matching by e-mail, and every refusal the ID token's checks
 * owe: a wrong nonce, a wrong audience, a replayed state, a disallowed domain, a user of another
 * tenant. A rotated signing key is still accepted. The Chromium run is tests/browser/oidc_test.ts.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { untilValue } from "../helpers/wait.ts";
import type { TestServer } from "../helpers/server.ts";
import {
  type OidcUser,
  startOidcProvider,
  type TestOidcProvider,
} from "../helpers/oidc_provider.ts";
import { ssoWithFetch } from "../helpers/oidc_login.ts";
import { invite } from "../helpers/browser_session.ts";
import { issuerProblem, safeReturnTo } from "../../kv/identity/oidc_flow.ts";
import { findUserByEmail } from "../../kv/identity/users.ts";
import { verifySession } from "../../kv/identity/sessions.ts";
import { oidcConfigKey } from "../../kv/keys.ts";

const CLIENT_ID = "drive-test";
const CLIENT_SECRET = "oidc-client-secret-for-tests-0123456789";

export const OIDC_USERS: OidcUser[] = [
  { sub: "alice", email: "alice@acme.test", name: "Alice Acme" },
  { sub: "bob", email: "Bob@Acme.test", name: "Bob Acme" },
  { sub: "mallory", email: "mallory@elsewhere.test", name: "Mallory" },
  { sub: "carol", email: "carol@acme.test", name: "Carol Acme" },
];

async function withProvider(
  fn: (server: TestServer, idp: TestOidcProvider, tenantId: number) => Promise<void>,
) {
  await withServer(async (server) => {
    const idp = await startOidcProvider({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUris: [`${server.url}/auth/v1/oidc/callback`],
      users: OIDC_USERS,
    });
    try {
      const tenant = await server.admin.createTenant("Acme");
      const r = await server.admin.call("PUT", `/tenants/${tenant.id}/oidc`, {
        label: "Acme SSO",
        issuer: idp.issuer,
        clientId: CLIENT_ID,
        clientSecret: CLIENT_SECRET,
        allowedDomains: ["acme.test"],
        claims: { accountId: "sub" },
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      await fn(server, idp, tenant.id);
    } finally {
      await idp.close();
    }
  });
}

const start = (server: TestServer, tenantId: number) =>
  `${server.url}/auth/v1/oidc/${tenantId}/start?returnTo=/account`;

Deno.test("oidc settings: the secret is sealed and never shown; bad input is refused", async () => {
  await withServer(async (server) => {
    const tenant = await server.admin.createTenant("Acme");
    const path = `/tenants/${tenant.id}/oidc`;
    assert.equal((await server.admin.call("GET", path)).body.error, "OIDC_001");
    const base = { label: "Acme SSO", issuer: "https://sso.acme.test/realms/acme", clientId: "d" };
    // No secret the first time.
    assert.equal((await server.admin.call("PUT", path, base)).body.error, "OIDC_002");
    // Plain http only to loopback; a query is no issuer.
    for (const issuer of ["http://sso.acme.test", "https://sso.acme.test/?x=1", "nope"]) {
      const r = await server.admin.call("PUT", path, { ...base, issuer, clientSecret: "s" });
      assert.equal(r.status, 400, issuer);
      assert.equal(r.body.field, "issuer");
    }
    const bad = await server.admin.call("PUT", path, {
      ...base,
      clientSecret: "s",
      allowedDomains: ["not a domain"],
    });
    assert.equal(bad.status, 400);
    const set = await server.admin.call("PUT", path, {
      ...base,
      clientSecret: CLIENT_SECRET,
      allowedDomains: ["@Acme.test"],
      ssoOnly: true,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.allowedDomains, ["acme.test"]);
    assert.deepEqual(set.body.claims, { accountId: "sub", email: "email", name: "name" });
    assert.equal(set.body.redirectUri, `${server.url}/auth/v1/oidc/callback`);
    assert.equal(JSON.stringify(set.body).includes(CLIENT_SECRET), false);
    // A change without a secret keeps it; KV holds it sealed, never in clear.
    const kept = await server.admin.call("PUT", path, { ...base, label: "Acme login" });
    assert.equal(kept.status, 200);
    assert.equal(kept.body.ssoOnly, false);
    // The issuer is kept as the provider spells it: discovery compares it whole.
    const slash = await server.admin.call("PUT", path, {
      ...base,
      label: "Acme login",
      issuer: "https://sso.acme.test/application/o/drive/",
    });
    assert.equal(slash.body.issuer, "https://sso.acme.test/application/o/drive/");
    const stored = await server.kv.get(oidcConfigKey(tenant.id));
    assert.equal(JSON.stringify(stored.value).includes(CLIENT_SECRET), false);
    assert.ok((stored.value as { clientSecret: { data: string } }).clientSecret.data);
    // The sign-in page lists it; the activity log names the change, not the secret.
    const providers = await (await fetch(`${server.url}/auth/v1/oidc/providers`)).json();
    assert.deepEqual(providers.items, [{
      tenantId: tenant.id,
      label: "Acme login",
      startUrl: `/auth/v1/oidc/${tenant.id}/start`,
    }]);
    const actions = await untilValue("the settings change in the activity log", async () => {
      const activity = await server.admin.call("GET", `/activity?action=oidc_configured`);
      const text = JSON.stringify(activity.body);
      return activity.body.items?.length === 3 ? text : null;
    });
    assert.ok(actions.includes(`"tenantId":${tenant.id}`), actions);
    assert.equal(actions.includes(CLIENT_SECRET), false);
    assert.equal((await server.admin.call("DELETE", path)).status, 204);
    assert.equal((await server.admin.call("DELETE", path)).body.error, "OIDC_001");
    const none = await (await fetch(`${server.url}/auth/v1/oidc/providers`)).json();
    assert.deepEqual(none.items, []);
  });
});

Deno.test("oidc: a new user is created just in time, then matched by e-mail", async () => {
  await withProvider(async (server, _idp, tenantId) => {
    const first = await ssoWithFetch(start(server, tenantId), "alice");
    assert.equal(first.status, 302);
    assert.equal(first.location, "/account");
    assert.ok(first.sessionId);
    const alice = await findUserByEmail(server.kv, "alice@acme.test");
    assert.ok(alice);
    assert.equal(alice.tenantId, tenantId);
    assert.equal(alice.accountId, "alice");
    assert.equal(alice.name, "Alice Acme");
    assert.equal(alice.quotaBytes, server.config.defaultQuotaBytes);
    const signedIn = await untilValue("the sign-in in the activity log", async () => {
      const r = await server.admin.call("GET", "/activity?kind=account&ps=50");
      return r.body.items?.find((e: { detail: { action: string } }) =>
        e.detail.action === "signed_in"
      ) ?? null;
    });
    assert.equal(signedIn.detail.via, "oidc");
    assert.equal(signedIn.detail.created, true);
    assert.equal(signedIn.tenantId, tenantId);
    const live = await verifySession(server.deps, first.sessionId);
    assert.equal(live?.user.userSeq, alice.userSeq);
    assert.equal(live?.session.via, "oidc");

    // An existing user of the tenant (made by an administrator) is matched by e-mail, in any case.
    const made = await server.admin.call("POST", "/users", {
      tenantId,
      accountId: "robert",
      email: "bob@acme.test",
      name: "Robert",
    });
    assert.equal(made.status, 201);
    const bob = await ssoWithFetch(start(server, tenantId), "bob");
    assert.equal(bob.location, "/account");
    const bobSession = await verifySession(server.deps, bob.sessionId!);
    assert.equal(bobSession?.user.userSeq, made.body.userSeq);
    assert.equal(bobSession?.user.accountId, "robert");
  });
});

Deno.test("oidc: disallowed domain, other tenant's e-mail and a replayed state are refused", async () => {
  await withProvider(async (server, _idp, tenantId) => {
    const mallory = await ssoWithFetch(start(server, tenantId), "mallory");
    assert.equal(mallory.location, "/signin?error=OIDC_007");
    assert.equal(mallory.sessionId, null);
    assert.equal(await findUserByEmail(server.kv, "mallory@elsewhere.test"), null);
    await untilValue("the refusal in the activity log", async () => {
      const r = await server.admin.call("GET", "/activity?kind=account&ps=50");
      return r.body.items?.find((e: { detail: { reason?: string } }) =>
        e.detail.reason === "OIDC_007"
      ) ?? null;
    });

    const other = await server.admin.createTenant("Other");
    await server.admin.call("POST", "/users", {
      tenantId: other.id,
      accountId: "carol-other",
      email: "carol@acme.test",
      name: "Carol elsewhere",
    });
    const carol = await ssoWithFetch(start(server, tenantId), "carol");
    assert.equal(carol.location, "/signin?error=OIDC_008");

    // A callback whose state was never issued (or was used) signs nobody in.
    const replay = await fetch(`${server.url}/auth/v1/oidc/callback?code=x&state=forged`, {
      redirect: "manual",
    });
    await replay.body?.cancel();
    assert.equal(replay.headers.get("location"), "/signin?error=OIDC_003");
    assert.equal(replay.headers.getSetCookie().length, 0);
    // A tenant without single sign-on has no start.
    const none = await fetch(`${server.url}/auth/v1/oidc/${other.id}/start`, {
      redirect: "manual",
    });
    assert.equal(none.status, 404);
    assert.equal((await none.json()).errorCode, "OIDC_001");
  });
});

Deno.test("oidc: a wrong nonce or audience is refused; a rotated key is accepted", async () => {
  await withProvider(async (server, idp, tenantId) => {
    idp.tamperNext({ nonce: "not-the-nonce-we-sent" });
    const nonce = await ssoWithFetch(start(server, tenantId), "alice");
    assert.equal(nonce.location, "/signin?error=OIDC_005");
    assert.equal(nonce.sessionId, null);

    idp.tamperNext({ aud: "some-other-client" });
    const aud = await ssoWithFetch(start(server, tenantId), "alice");
    assert.equal(aud.location, "/signin?error=OIDC_005");
    assert.equal(await findUserByEmail(server.kv, "alice@acme.test"), null);

    // The untampered answer with the same key works: the refusals were the claims.
    const before = await ssoWithFetch(start(server, tenantId), "alice");
    assert.equal(before.location, "/account");

    const oldKids = idp.kids();
    await idp.rotateKeys();
    assert.notEqual(idp.kids()[0], oldKids[0]);
    const after = await ssoWithFetch(start(server, tenantId), "alice");
    assert.equal(after.location, "/account");
    assert.ok(await verifySession(server.deps, after.sessionId!));
  });
});

Deno.test("oidc: an SSO-only tenant's users cannot sign in with a password", async () => {
  await withServer(async (server) => {
    const tenant = await server.admin.createTenant("Acme");
    const user = await server.admin.createUser(tenant.id, "dora", { name: "Dora" });
    const token = await invite(server.admin, user.userSeq);
    const password = "copper-meadow-lantern-58";
    const account = (path: string, body: unknown) =>
      fetch(`${server.url}/api/account/v1${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: server.url },
        body: JSON.stringify(body),
      });
    const accepted = await account("/invitations/accept", { token, password });
    assert.equal(accepted.status, 200, await accepted.text());
    const before = await account("/sign-in", { login: "dora", password });
    await before.body?.cancel();
    assert.equal(before.status, 200);
    const set = await server.admin.call("PUT", `/tenants/${tenant.id}/oidc`, {
      label: "Acme SSO",
      issuer: "https://sso.acme.test",
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      ssoOnly: true,
    });
    assert.equal(set.status, 200);
    const after = await account("/sign-in", { login: "dora", password });
    assert.equal(after.status, 403);
    assert.equal((await after.json()).error, "OIDC_009");
    assert.equal(after.headers.getSetCookie().length, 0);
  });
});

Deno.test("oidc: after signing in only a path of this service is opened, never another site", async () => {
  await withProvider(async (server, _idp, tenantId) => {
    for (const returnTo of ["//evil.example/x", "https://evil.example/", "/\\evil.example"]) {
      const start = `${server.url}/auth/v1/oidc/${tenantId}/start?returnTo=${
        encodeURIComponent(returnTo)
      }`;
      const answer = await ssoWithFetch(start, "alice");
      assert.equal(answer.location, "/", returnTo);
      assert.ok(answer.sessionId);
    }
  });
  assert.equal(safeReturnTo("/account?tab=1"), "/account?tab=1");
  assert.equal(issuerProblem("https://sso.example.com/realms/a"), null);
  assert.equal(issuerProblem("http://[::1]:8080"), null);
  assert.ok(issuerProblem("http://10.0.0.5"));
  assert.ok(issuerProblem("https://user:pw@sso.example.com"));
});
