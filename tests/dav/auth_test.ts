/**
 * WebDAV sign-in: Basic with the account id or e-mail and an API key, Bearer, the 401 challenge,
 * the scope rule (api:read reads, api:write for the rest), other users' drives as 404, and the
 * per-client, per-account throttle of failed sign-ins (kv/identity/guess_throttle.ts).
 */
import assert from "node:assert/strict";
import { ApiUser, newApiUser, readOnlyKeyOf } from "../helpers/api.ts";
import { withServer, withTwoServersOnOneKv } from "../helpers/server.ts";
import { FREE_WRONG_PASSWORDS } from "../../kv/identity/guess_throttle.ts";
import { basicOf, davAs, driveUrl, statusOf } from "./client.ts";

Deno.test("Basic (account id or e-mail) and Bearer sign in; anything else is 401 with the challenge", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const url = driveUrl(alice);
    const propfind = (authorization?: string) =>
      fetch(url, {
        method: "PROPFIND",
        headers: { depth: "0", ...(authorization ? { authorization } : {}) },
      });
    assert.equal(await statusOf(propfind(basicOf("alice", alice.apiKey))), 207);
    assert.equal(await statusOf(propfind(basicOf("alice@example.com", alice.apiKey))), 207);
    assert.equal(await statusOf(propfind(`Bearer ${alice.apiKey}`)), 207);
    for (const bad of [undefined, basicOf("alice", "drv_nope_nope"), "Digest x", "Basic !!"]) {
      const res = await propfind(bad);
      assert.equal(res.status, 401, String(bad));
      assert.equal(
        res.headers.get("www-authenticate"),
        'Basic realm="Drive WebDAV", charset="UTF-8"',
      );
      assert.match(await res.text(), /<D:error xmlns:D="DAV:"/);
    }
    // A right key under another user's name is refused too.
    const bob = await newApiUser(server, "bob");
    assert.equal(await statusOf(propfind(basicOf("bob", alice.apiKey))), 401);
    // Another user's drive is indistinguishable from one that does not exist.
    const other = await davAs(alice, "PROPFIND", driveUrl(bob), { depth: "0" });
    const nobody = await davAs(alice, "PROPFIND", `${server.url}/dav/files/nobody/`, {
      depth: "0",
    });
    assert.equal(other.status, 404);
    assert.equal(nobody.status, 404);
    assert.equal((await other.text()).replaceAll("bob", "nobody"), await nobody.text());
    assert.equal(await statusOf(davAs(alice, "PUT", driveUrl(bob, "x.txt"), {}, "x")), 404);
  });
});

Deno.test("an api:read key reads over WebDAV but every writing method is 403", async () => {
  await withServer(async (server) => {
    const owner = await newApiUser(server, "alice");
    const reader = await readOnlyKeyOf(server, owner);
    assert.equal(await statusOf(davAs(owner, "PUT", driveUrl(owner, "a.txt"), {}, "hi")), 201);
    assert.equal(await statusOf(davAs(reader, "PROPFIND", driveUrl(reader), { depth: "1" })), 207);
    assert.equal(await statusOf(davAs(reader, "GET", driveUrl(reader, "a.txt"))), 200);
    assert.equal(await statusOf(davAs(reader, "HEAD", driveUrl(reader, "a.txt"))), 200);
    assert.equal(await statusOf(davAs(reader, "OPTIONS", driveUrl(reader))), 200);
    for (const method of ["PUT", "DELETE", "MKCOL", "PROPPATCH", "LOCK"]) {
      const res = await davAs(reader, method, driveUrl(reader, "a.txt"));
      assert.equal(res.status, 403, method);
      assert.match(await res.text(), /AUTH_003/);
    }
    const move = await davAs(reader, "MOVE", driveUrl(reader, "a.txt"), {
      destination: driveUrl(reader, "b.txt"),
    });
    assert.equal(await statusOf(move), 403);
  });
});

Deno.test("failed sign-ins are throttled per client and account; other accounts and the right key's clearing work", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const url = driveUrl(alice);
    const wrong = basicOf("alice", "drv_AAAAAAAAAAAAAAAA_wrongwrongwrongwrong");
    const tryAs = (authorization: string, at = url) =>
      fetch(at, { method: "PROPFIND", headers: { depth: "0", authorization } });
    // The free tries answer 401; a right key in between clears the count.
    for (let i = 0; i < FREE_WRONG_PASSWORDS - 1; i++) {
      assert.equal(await statusOf(tryAs(wrong)), 401);
    }
    assert.equal(await statusOf(tryAs(basicOf("alice", alice.apiKey))), 207);
    for (let i = 0; i < FREE_WRONG_PASSWORDS; i++) assert.equal(await statusOf(tryAs(wrong)), 401);
    // Now this client waits for this account, even with the right key...
    const blocked = await tryAs(basicOf("alice", alice.apiKey));
    assert.equal(blocked.status, 429);
    assert.ok(Number(blocked.headers.get("retry-after")) >= 1);
    await blocked.body?.cancel();
    // ...but another account from the same client is not held up.
    assert.equal(await statusOf(tryAs(basicOf("bob", bob.apiKey), driveUrl(bob))), 207);
  });
});

Deno.test("a disabled user or a revoked key stops working at once on another process", async () => {
  await withTwoServersOnOneKv(async (a, b) => {
    const alice = await newApiUser(a, "alice");
    const second = await readOnlyKeyOf(a, alice);
    const onB = (u: ApiUser) => new ApiUser(b.url, u.userSeq, u.tenantId, u.apiKey, u.accountId);
    const propfind = (u: ApiUser) => statusOf(davAs(u, "PROPFIND", driveUrl(u), { depth: "0" }));
    // Both keys work on B, so B's identity cache has them.
    assert.equal(await propfind(onB(alice)), 207);
    assert.equal(await propfind(onB(second)), 207);
    const keyId = second.apiKey.split("_")[1];
    assert.equal((await a.admin.call("DELETE", `/keys/${keyId}`)).status, 204);
    assert.equal(await propfind(onB(second)), 401);
    assert.equal(await propfind(onB(alice)), 207);
    assert.equal((await a.admin.call("POST", `/users/${alice.userSeq}/disable`)).status, 200);
    assert.equal(await propfind(onB(alice)), 401);
  });
});
