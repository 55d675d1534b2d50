/**
 * App passwords: a signed-in user's own API keys (label, read or read-write, optional expiry),
 * shown once, used as Bearer keys on the drive API, revoked by their user only.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { GOOD_PASSWORD, signedInUser } from "../helpers/browser_session.ts";
import { basicOf } from "../dav/client.ts";

const drive = (url: string, key: string, method = "GET", path = "/resources", body?: unknown) =>
  fetch(`${url}/api/external/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  }).then(async (r) => ({ status: r.status, body: await r.json() }));

Deno.test("app passwords: created, shown once, scoped, listed, revoked by their user", async () => {
  await withServer(async (server) => {
    const { browser, userSeq } = await signedInUser(server, "alice");
    const rw = await browser.account("POST", "/app-passwords", {
      label: "Laptop WebDAV",
      scope: "read-write",
    });
    assert.equal(rw.status, 201, JSON.stringify(rw.body));
    assert.match(rw.body.appPassword, /^drv_/);
    assert.equal(rw.body.createdBy, "user");
    const ro = await browser.account("POST", "/app-passwords", { label: "Phone", scope: "read" });

    assert.equal(
      (await drive(server.url, rw.body.appPassword, "POST", "/folders", { fn: "A" })).status,
      201,
    );
    assert.equal((await drive(server.url, ro.body.appPassword)).status, 200);
    const refused = await drive(server.url, ro.body.appPassword, "POST", "/folders", { fn: "B" });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errorCode, "AUTH_003");

    const list = await browser.account("GET", "/app-passwords");
    assert.deepEqual(list.body.items.map((k: { label: string }) => k.label).sort(), [
      "Laptop WebDAV",
      "Phone",
    ]);
    assert.ok(
      !JSON.stringify(list.body).includes(rw.body.appPassword.split("_").slice(2).join("_")),
      "never the secret",
    );
    // The admin API shows them too, as the user's own.
    const adminList = await server.admin.call("GET", `/keys?userSeq=${userSeq}`);
    assert.ok(adminList.body.items.every((k: { createdBy: string }) => k.createdBy === "user"));

    // Another user cannot revoke them.
    const { browser: mallory } = await signedInUser(server, "mallory");
    const theirs = await mallory.account("DELETE", `/app-passwords/${rw.body.keyId}`);
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.error, "KEY_001");

    const revoked = await browser.account("DELETE", `/app-passwords/${rw.body.keyId}`);
    assert.equal(revoked.status, 200);
    assert.ok(revoked.body.revokedAt);
    assert.equal((await drive(server.url, rw.body.appPassword)).status, 401);
    assert.equal((await drive(server.url, ro.body.appPassword)).status, 200);
  });
});

Deno.test("an app password past its expiry no longer works", async () => {
  await withServer(async (server) => {
    const { browser } = await signedInUser(server, "bob");
    const soon = new Date(Date.now() + 1500).toISOString();
    const made = await browser.account("POST", "/app-passwords", {
      label: "Short-lived",
      scope: "read",
      expiresAt: soon,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.expiresAt, soon);
    assert.equal((await drive(server.url, made.body.appPassword)).status, 200);
    await new Promise((r) => setTimeout(r, Date.parse(soon) - Date.now() + 50));
    assert.equal((await drive(server.url, made.body.appPassword)).status, 401);
    const bad = await browser.account("POST", "/app-passwords", {
      label: "x",
      scope: "write",
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "REQUEST_001");
  });
});

Deno.test("an app password mounts the drive over WebDAV; revoked, it is refused; the account password never works there", async () => {
  await withServer(async (server) => {
    const { browser } = await signedInUser(server, "alice");
    const made = await browser.account("POST", "/app-passwords", {
      label: "Finder",
      scope: "read-write",
    });
    const mount = `${server.url}/dav/files/alice/`;
    const dav = (password: string, method = "PROPFIND", path = "", body?: string) =>
      fetch(mount + path, {
        method,
        headers: { authorization: basicOf("alice", password), depth: "1" },
        body,
      }).then(async (r) => ({ status: r.status, text: await r.text() }));
    assert.equal((await dav(made.body.appPassword, "PUT", "notes.txt", "hello")).status, 201);
    const listing = await dav(made.body.appPassword);
    assert.equal(listing.status, 207);
    assert.match(listing.text, /notes\.txt/);
    assert.equal((await dav(GOOD_PASSWORD)).status, 401, "the account password is not a key");
    await browser.account("DELETE", `/app-passwords/${made.body.keyId}`);
    assert.equal((await dav(made.body.appPassword)).status, 401);
  });
});
