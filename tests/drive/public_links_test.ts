import assert from "node:assert/strict";
import { shareKey } from "../../kv/keys.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser, shareFlags } from "../helpers/api.ts";

async function pub(server: TestServer, path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.url}/public/v1${path}`, init);
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

async function uploadInto(owner: ApiUser, pfs: number, name: string, content: string) {
  const res = await owner.upload(name, content, { pfs });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data.resourceSeq as number;
}

const tokenOf = (share: { linkUrl: string }) => share.linkUrl.split("/s/")[1];

Deno.test("public link: info, folder browsing inside the subtree only, download", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const outside = await alice.newFolder("Outside");
    const secretFile = await uploadInto(alice, outside, "secret.txt", "secret");
    const root = await alice.newFolder("Public", outside);
    const sub = await alice.newFolder("Sub", root);
    const file = await uploadInto(alice, sub, "hello wörld.txt", "hello");
    const share = await alice.newShare({
      rs: root,
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
    });
    const token = tokenOf(share);

    const info = await pub(server, `/links/${token}`);
    assert.equal(info.status, 200);
    assert.equal(info.headers.get("cache-control"), "no-store");
    assert.equal(info.body.result, true);
    assert.equal(info.body.data.shareType, "PUBLIC_LINK");
    assert.equal(info.body.data.passwordRequired, false);
    assert.equal(info.body.data.resource.name, "Public");
    assert.deepEqual(info.body.data.permissions, {
      canView: true,
      canDownload: true,
      canEdit: false,
      canUpload: false,
    });

    const top = await pub(server, `/links/${token}/items`);
    assert.equal(top.status, 200);
    assert.equal(top.body.data.folder.resourceSeq, root);
    assert.deepEqual(top.body.data.path, [{ resourceSeq: root, name: "Public" }]);
    assert.deepEqual(top.body.data.items.map((i: { name: string }) => i.name), ["Sub"]);
    const inner = await pub(server, `/links/${token}/items?folderSeq=${sub}`);
    assert.deepEqual(inner.body.data.path.map((p: { name: string }) => p.name), ["Public", "Sub"]);
    assert.equal(inner.body.data.items[0].resourceSeq, file);

    for (const rs of [outside, 999999]) {
      const r = await pub(server, `/links/${token}/items?folderSeq=${rs}`);
      assert.equal(r.status, 404);
      assert.equal(r.body.errorCode, "RESOURCE_002");
    }
    const leak = await pub(server, `/links/${token}/files/${secretFile}/download`);
    assert.equal(leak.status, 404);
    assert.equal(leak.body.errorCode, "RESOURCE_002");

    const dl = await pub(server, `/links/${token}/files/${file}/download`);
    assert.equal(dl.status, 200);
    assert.equal(dl.body, "hello");
    assert.match(
      dl.headers.get("content-disposition")!,
      /^attachment;.*filename\*=UTF-8''hello%20w%C3%B6rld\.txt/,
    );

    // Without the download flag: 403 PERMISSION_004.
    await alice.call("PATCH", `/shares/${share.shareSeq}`, { st: "PUBLIC_LINK", ...shareFlags() });
    const noDl = await pub(server, `/links/${token}/files/${file}/download`);
    assert.equal(noDl.status, 403);
    assert.equal(noDl.body.errorCode, "PERMISSION_004");

    // Trashing the shared folder: the link no longer resolves.
    await alice.call("PATCH", `/folders/${outside}/delete`);
    const gone = await pub(server, `/links/${token}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.errorCode, "SHARE_007");
  });
});

Deno.test("public link: unknown, revoked and expired tokens are SHARE_007; ORG_LINK needs sign-in", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    for (const t of ["x", "A".repeat(43)]) {
      const r = await pub(server, `/links/${t}`);
      assert.equal(r.status, 404);
      assert.equal(r.body.errorCode, "SHARE_007");
    }
    const exp = await alice.newShare({
      rs: await alice.newFolder("Exp"),
      st: "PUBLIC_LINK",
      ...shareFlags(),
      expireDate: "2099-12-31T00:00:00Z",
    });
    assert.equal(
      (await pub(server, `/links/${tokenOf(exp)}`)).body.data.expireDate,
      "2099-12-31T00:00:00.000Z",
    );
    const stored = (await server.kv.get<{ expiresAt: number }>(shareKey(exp.shareSeq))).value!;
    await server.kv.set(shareKey(exp.shareSeq), { ...stored, expiresAt: Date.now() - 1000 });
    assert.equal((await pub(server, `/links/${tokenOf(exp)}`)).body.errorCode, "SHARE_007");

    const org = await alice.newShare({
      rs: await alice.newFolder("Org"),
      st: "ORG_LINK",
      ...shareFlags("cd"),
    });
    const info = await pub(server, `/links/${tokenOf(org)}`);
    assert.equal(info.status, 200);
    assert.equal(info.body.data.shareType, "ORG_LINK");
    assert.equal(info.body.data.resource, undefined);
    const items = await pub(server, `/links/${tokenOf(org)}/items`);
    assert.equal(items.status, 403);
    assert.equal(items.body.errorCode, "LINK_003");

    // Admin listing and revocation.
    const list = await server.admin.call("GET", "/share-links");
    assert.equal(list.status, 200);
    const orgItem = list.body.items.find((i: { shareSeq: number }) => i.shareSeq === org.shareSeq);
    assert.equal(orgItem.url, org.linkUrl);
    assert.equal(orgItem.resourceName, "Org");
    assert.equal(orgItem.isPasswordEnabled, false);
    const revoke = await server.admin.call("DELETE", `/share-links/${org.shareSeq}`);
    assert.equal(revoke.status, 204);
    assert.equal((await pub(server, `/links/${tokenOf(org)}`)).body.errorCode, "SHARE_007");
    assert.equal((await server.admin.call("DELETE", `/share-links/${org.shareSeq}`)).status, 404);
    const after = await server.admin.call("GET", "/share-links");
    assert.ok(!after.body.items.some((i: { shareSeq: number }) => i.shareSeq === org.shareSeq));
  });
});

Deno.test("password-protected link: access tokens, wrong passwords, the client's wait with Retry-After", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("Locked");
    const file = await uploadInto(alice, folder, "a.txt", "abc");
    const share = await alice.newShare({
      rs: folder,
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
      password: "correct horse",
    });
    const token = tokenOf(share);
    const info = await pub(server, `/links/${token}`);
    assert.equal(info.body.data.passwordRequired, true);
    assert.equal(info.body.data.resource, undefined);
    const blocked = await pub(server, `/links/${token}/items`);
    assert.equal(blocked.status, 401);
    assert.equal(blocked.body.errorCode, "LINK_004");

    const post = (password: string) =>
      pub(server, `/links/${token}/access`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
    const good = await post("correct horse");
    assert.equal(good.status, 200);
    const access = good.body.data.accessToken;
    assert.match(access, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(Date.parse(good.body.data.expiresAt) > Date.now());
    const unlocked = await pub(server, `/links/${token}`, { headers: { "x-link-access": access } });
    assert.equal(unlocked.body.data.resource.name, "Locked");
    const items = await pub(server, `/links/${token}/items`, {
      headers: { "x-link-access": access },
    });
    assert.equal(items.status, 200);
    const dl = await pub(server, `/links/${token}/files/${file}/download?access=${access}`);
    assert.equal(dl.status, 200);
    assert.equal(dl.body, "abc");
    const badAccess = await pub(server, `/links/${token}/items`, {
      headers: { "x-link-access": "B".repeat(43) },
    });
    assert.equal(badAccess.body.errorCode, "LINK_004");

    for (let i = 0; i < 5; i++) {
      const wrong = await post("wrong");
      assert.equal(wrong.status, 401, `attempt ${i + 1}`);
      assert.equal(wrong.body.errorCode, "LINK_001");
    }
    // After 5 wrong passwords this client waits 1 s, then 2 s after the next wrong one: the
    // wait is the client's, answered 429 LINK_002 with Retry-After, whatever it sends.
    await sleep(await retryAfterOf(post));
    assert.equal((await post("wrong")).status, 401);
    const waiting = await post("correct horse");
    assert.equal(waiting.status, 429);
    assert.equal(waiting.body.errorCode, "LINK_002");
    const retry = Number(waiting.headers.get("retry-after"));
    assert.ok(retry >= 1 && retry <= 4, `Retry-After ${retry}`);
    // Once it has waited, the right password opens the link and the budget starts over.
    await sleep(retry);
    assert.equal((await post("correct horse")).status, 200);
    for (let i = 0; i < 5; i++) assert.equal((await post("wrong")).status, 401, `again ${i + 1}`);

    // Changing the password invalidates access tokens issued for the old one.
    await alice.call("PATCH", `/shares/${share.shareSeq}`, {
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
      password: "new password",
    });
    const stale = await pub(server, `/links/${token}/items`, {
      headers: { "x-link-access": access },
    });
    assert.equal(stale.body.errorCode, "LINK_004");
    // Removing the password opens the link again.
    await alice.call("PATCH", `/shares/${share.shareSeq}`, {
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
      password: null,
    });
    assert.equal((await pub(server, `/links/${token}/items`)).status, 200);
  });
});

Deno.test("password-protected link: one client's concurrent wrong passwords never get more than 5 tries", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const share = await alice.newShare({
      rs: await alice.newFolder("Burst"),
      st: "PUBLIC_LINK",
      ...shareFlags(),
      password: "correct horse",
    });
    const post = (password: string) =>
      pub(server, `/links/${tokenOf(share)}/access`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
    // A burst sent at once must not be checked before the earlier tries were counted.
    const burst = await Promise.all(Array.from({ length: 12 }, () => post("wrong")));
    const codes = burst.map((r) => r.body.errorCode);
    assert.equal(codes.filter((c) => c === "LINK_001").length, 5, codes.join(","));
    assert.equal(codes.filter((c) => c === "LINK_002").length, 7, codes.join(","));
    for (const r of burst.filter((r) => r.status === 429)) {
      assert.equal(r.headers.get("retry-after"), "1");
    }
    // The client's wait is 1 s; then the right password opens the link.
    await sleep(await retryAfterOf(post));
    assert.equal((await post("correct horse")).status, 200);
  });
});

/** Sends wrong passwords until one is answered 429; its Retry-After (seconds). */
async function retryAfterOf(post: (password: string) => ReturnType<typeof pub>): Promise<number> {
  for (let i = 0; i < 10; i++) {
    const r = await post("wrong");
    if (r.status !== 429) continue;
    const seconds = Number(r.headers.get("retry-after"));
    // A client's first waits are 1, 2 and 4 s (on a slow machine a wait may have passed before
    // the next try); anything longer is a lockout, not a wait.
    assert.ok(seconds >= 1 && seconds <= 4, `Retry-After ${seconds}`);
    return seconds;
  }
  throw new Error("never asked to wait");
}

const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

/** A PUBLIC_LINK with a password, and a poster of passwords on behalf of a client. */
async function passwordLink(server: TestServer) {
  const alice = await newApiUser(server, "alice");
  const share = await alice.newShare({
    rs: await alice.newFolder("Locked"),
    st: "PUBLIC_LINK",
    ...shareFlags("cd"),
    password: "correct horse",
  });
  return (password: string, forwardedFor?: string) =>
    pub(server, `/links/${tokenOf(share)}/access`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}),
      },
      body: JSON.stringify({ password }),
    });
}

Deno.test("password-protected link: the rightful visitor gets in while others flood wrong passwords", async () => {
  await withServer(async (server) => {
    const post = await passwordLink(server);
    // One address sends 20 wrong passwords and ten more addresses one each, all at once.
    const started = Date.now();
    const flood = [
      ...Array.from({ length: 20 }, () => post("wrong", "203.0.113.66")),
      ...Array.from({ length: 10 }, (_, i) => post("wrong", `203.0.113.${i}`)),
    ];
    const codes = (await Promise.all(flood)).map((r) => r.body.errorCode);
    const tookS = (Date.now() - started) / 1000;
    assert.ok(codes.every((c) => c === "LINK_001" || c === "LINK_002"), codes.join(","));
    // The loud address got its 5 tries; the rest of its burst was told to wait. A burst that a
    // loaded machine spreads over seconds may outlast the waits (1 s, then 2 s, 4 s, ...): one
    // more try per wait that ran out, never more.
    const loud = codes.slice(0, 20);
    const tried = loud.filter((c) => c === "LINK_001").length;
    const waitsOver = Math.floor(Math.log2(tookS + 1));
    assert.ok(tried >= 5 && tried <= 5 + waitsOver, `${tried} tries in ${tookS} s: ${loud}`);
    // The visitor, from an address of its own, is not made to wait by anyone else's guesses.
    const visitor = await post("correct horse", "198.51.100.7");
    assert.equal(visitor.status, 200, JSON.stringify(visitor.body));
    assert.match(visitor.body.data.accessToken, /^[A-Za-z0-9_-]{43}$/);
  }, { env: { DRIVE_TRUSTED_PROXIES: "127.0.0.0/8,::1" } });
});

Deno.test("password-protected link: X-Forwarded-For names the client only from a trusted proxy", async () => {
  // No trusted proxies (the default): every request here comes from 127.0.0.1, whatever the
  // header says, so the guesser cannot escape its budget by changing the header.
  await withServer(async (server) => {
    const post = await passwordLink(server);
    for (let i = 0; i < 5; i++) {
      assert.equal((await post("wrong", `203.0.113.${i}`)).status, 401);
    }
    const other = await post("wrong", "198.51.100.7");
    assert.equal(other.status, 429);
    assert.equal(other.body.errorCode, "LINK_002");
  });
  // 127.0.0.1 trusted: the header names the client, and each client has its own budget.
  await withServer(async (server) => {
    const post = await passwordLink(server);
    for (let i = 0; i < 5; i++) assert.equal((await post("wrong", "203.0.113.1")).status, 401);
    assert.equal((await post("wrong", "203.0.113.1")).status, 429);
    // Entries left of the one the proxy added were written by the client: ignored.
    assert.equal((await post("wrong", "198.51.100.7, 203.0.113.1")).status, 429);
    assert.equal((await post("wrong", "203.0.113.1, 198.51.100.7")).status, 401);
    assert.equal((await post("correct horse", "198.51.100.8")).status, 200);
  }, { env: { DRIVE_TRUSTED_PROXIES: "127.0.0.1" } });
});
