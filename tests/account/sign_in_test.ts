/**
 * Signing in over HTTP: invitation → password → sign-in → the drive API with the session cookie,
 * /me, sign-out; password change; the password policy; invitations used once.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import {
  Browser,
  GOOD_PASSWORD,
  invite,
  setPasswordByInvitation,
  signedInUser,
} from "../helpers/browser_session.ts";

Deno.test("an invited user sets a password, signs in, uses the drive API, signs out", async () => {
  await withServer(async (server) => {
    const { id: tenantId } = await server.admin.createTenant("Acme");
    const alice = await server.admin.createUser(tenantId, "alice");
    const token = await invite(server.admin, alice.userSeq);
    const b = new Browser(server.url);
    const look = await b.account("POST", "/invitations/lookup", { token });
    assert.equal(look.status, 200, JSON.stringify(look.body));
    assert.equal(look.body.kind, "invitation");
    assert.equal(look.body.accountId, "alice");
    const set = await b.account("POST", "/invitations/accept", { token, password: GOOD_PASSWORD });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.user.accountId, "alice");
    // Single use.
    const again = await new Browser(server.url).account("POST", "/invitations/accept", {
      token,
      password: GOOD_PASSWORD,
    });
    assert.equal(again.status, 404);
    assert.equal(again.body.error, "AUTH_014");

    const me = await b.account("GET", "/me");
    assert.equal(me.status, 200);
    assert.equal(me.body.user.userSeq, alice.userSeq);

    // The drive API with the cookie: a change needs the CSRF token and the Origin.
    const made = await b.call("POST", "/api/external/v1/folders", { fn: "Notes" });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const list = await b.call("GET", "/api/external/v1/resources");
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.ok(JSON.stringify(list.body).includes("Notes"));

    // An upload and a download through a one-time token, both from the session.
    const form = new FormData();
    form.append("file", new Blob(["hello from a session"]), "hello.txt");
    const up = await fetch(`${server.url}/api/external/v1/files`, {
      method: "POST",
      headers: { cookie: b.cookieHeader(), origin: b.origin, "x-csrf-token": b.csrfToken! },
      body: form,
    });
    const uploaded = await up.json();
    assert.equal(up.status, 201, JSON.stringify(uploaded));
    const rs = uploaded.data.resourceSeq;
    const issued = await b.call("GET", `/api/external/v1/files/${rs}/download-token`);
    assert.equal(issued.status, 200, JSON.stringify(issued.body));
    const linkUrl = issued.body.data.linkUrl as string;
    const got = await fetch(`${server.url}${linkUrl}`);
    assert.equal(await got.text(), "hello from a session");

    const out = await b.account("POST", "/sign-out", {});
    assert.equal(out.status, 200);
    assert.equal(b.cookies.size, 0);
    const after = await b.account("GET", "/me");
    assert.equal(after.status, 401);
  });
});

Deno.test("sign-in by e-mail; a password change ends the other sessions and rotates this one", async () => {
  await withServer(async (server) => {
    const { browser: first, userSeq } = await signedInUser(server, "bob");
    const second = new Browser(server.url);
    assert.equal((await second.signIn("bob@example.com")).status, 200);
    const before = first.cookieHeader();
    const changed = await first.account("POST", "/password", {
      currentPassword: GOOD_PASSWORD,
      newPassword: "quiet-lantern-orchard-77",
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.notEqual(first.cookieHeader(), before);
    assert.equal((await first.account("GET", "/me")).body.user.userSeq, userSeq);
    assert.equal((await second.account("GET", "/me")).status, 401);
    assert.equal((await new Browser(server.url).signIn("bob")).status, 401);
    assert.equal(
      (await new Browser(server.url).signIn("bob", "quiet-lantern-orchard-77")).status,
      200,
    );
  });
});

Deno.test("the password policy: 12 characters, no common password, the current one first", async () => {
  await withServer(async (server) => {
    const { browser } = await signedInUser(server, "carol");
    for (const weak of ["short", "password1234", "qwertyuiop123", "carol@example.com"]) {
      const r = await browser.account("POST", "/password", {
        currentPassword: GOOD_PASSWORD,
        newPassword: weak,
      });
      assert.equal(r.status, 400, weak);
      assert.equal(r.body.error, "AUTH_013", weak);
      assert.equal(r.body.field, "newPassword");
    }
    const wrong = await browser.account("POST", "/password", {
      currentPassword: "not-the-password-at-all",
      newPassword: "quiet-lantern-orchard-77",
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, "AUTH_012");
    // A weak password leaves an invitation usable.
    const { id } = await server.admin.createTenant("Other");
    const dave = await server.admin.createUser(id, "dave");
    const token = await invite(server.admin, dave.userSeq);
    const b = new Browser(server.url);
    const weak = await b.account("POST", "/invitations/accept", {
      token,
      password: "aaaaaaaaaaaa",
    });
    assert.equal(weak.body.error, "AUTH_013");
    const ok = await b.account("POST", "/invitations/accept", { token, password: GOOD_PASSWORD });
    assert.equal(ok.status, 200);
  });
});

Deno.test("a reset link sets a new password and ends every session", async () => {
  await withServer(async (server) => {
    const { browser, userSeq } = await signedInUser(server, "erin");
    const token = await invite(server.admin, userSeq, "reset");
    const b = new Browser(server.url);
    assert.equal((await b.account("POST", "/invitations/lookup", { token })).body.kind, "reset");
    const r = await b.account("POST", "/invitations/accept", {
      token,
      password: "quiet-lantern-orchard-77",
    });
    assert.equal(r.status, 200);
    assert.equal((await browser.account("GET", "/me")).status, 401);
    await setPasswordByInvitation(server.url, server.admin, userSeq);
  });
});
