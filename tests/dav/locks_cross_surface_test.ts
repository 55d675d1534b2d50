/**
 * One lock table for every surface, over HTTP: a storage provider's or an editor's lock refuses
 * WebDAV writes (423 with DAV:lock-token-submitted), a WebDAV lock refuses the provider (409) and
 * the editor, a depth-infinity folder lock covers the files below it, and two processes on one
 * KV see each other's locks. The admin console's lock list names the surface of each.
 */
import assert from "node:assert/strict";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import type { JsonResponse } from "../helpers/http.ts";
import { newProviderAdapter } from "../helpers/provider.ts";
import type { ProviderHostClient } from "../../provider/host/client.ts";
import { type TestServer, withServer, withTwoServersOnOneKv } from "../helpers/server.ts";
import { assertLocked, dav, davLock, LOCKINFO, put, UUID } from "./locks_helpers.ts";

/** An editor-session lock over the web-office endpoint (the editor's own protocol). */
function editorLock(user: ApiUser, rs: number): Promise<Response> {
  const qs = new URLSearchParams({
    docId: `${user.userSeq}-${rs}`,
    app: "WORD_EDITOR",
    user_id: user.accountId,
    lang: "ko_KR",
  });
  return user.fetch(`/web-office/${user.userSeq}/lock?${qs}`, { method: "POST" });
}

const enc = (s: string) => new TextEncoder().encode(s);

/** The lock records the admin console lists: surface and WebDAV summary by document name. */
async function adminLocks(server: TestServer) {
  const res = await server.admin.call("GET", "/locks");
  assert.equal(res.status, 200);
  return Object.fromEntries(
    // deno-lint-ignore no-explicit-any
    res.body.items.map((l: any) => [l.resourceName, { source: l.source, webdav: l.webdav }]),
  );
}

Deno.test("a provider's lock refuses WebDAV PUT, DELETE, MOVE and LOCK with 423", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { client } = await newProviderAdapter(server, "host", { userSeq: alice.userSeq });
    assert.ok((await client.put(["doc.docx"], enc("v1"))).ok);
    assert.ok((await client.lock(["doc.docx"], "session-1")).ok);
    const href = "/dav/files/alice/doc.docx";
    await assertLocked(await put(server, alice, "/doc.docx", "v2"), href);
    await assertLocked(await dav(server, alice, "DELETE", "/doc.docx"), href);
    const destination = `${server.url}/dav/files/alice/moved.docx`;
    await assertLocked(
      await dav(server, alice, "MOVE", "/doc.docx", { headers: { destination } }),
      href,
    );
    // A token names no lock here, so the If header is false (412); no WebDAV lock can join.
    const foreign = await put(server, alice, "/doc.docx", "v2", `urn:uuid:${UUID}`);
    assert.equal(foreign.status, 412);
    const lock = await dav(server, alice, "LOCK", "/doc.docx", { body: LOCKINFO });
    assert.equal(lock.status, 423);
    assert.match(await lock.text(), /<D:no-conflicting-lock>/);
    assert.deepEqual(await adminLocks(server), {
      "doc.docx": { source: "provider", webdav: null },
    });
    // Released by the provider, the same PUT goes through.
    assert.ok((await client.unlock(["doc.docx"], "session-1")).ok);
    assert.equal((await put(server, alice, "/doc.docx", "v2")).status, 204);
  });
});

Deno.test("a WebDAV lock makes the provider's put and lock answer 409", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { client } = await newProviderAdapter(server, "host", { userSeq: alice.userSeq });
    assert.ok((await client.put(["doc.docx"], enc("v1"))).ok);
    const token = await davLock(server, alice, "/doc.docx");
    assert.deepEqual(await adminLocks(server), {
      "doc.docx": { source: "webdav", webdav: { scope: "exclusive", depth: "0", count: 1 } },
    });
    assert.equal((await client.put(["doc.docx"], enc("v2"))).status, 409);
    assert.equal((await client.lock(["doc.docx"], "session-1")).status, 409);
    // The lock holder writes with its token; after UNLOCK the provider may lock again.
    assert.equal((await put(server, alice, "/doc.docx", "v2", token)).status, 204);
    const unlock = await dav(server, alice, "UNLOCK", "/doc.docx", {
      headers: { "lock-token": `<${token}>` },
    });
    assert.equal(unlock.status, 204);
    assert.ok((await client.lock(["doc.docx"], "session-1")).ok);
  });
});

Deno.test("an editor's lock refuses WebDAV DELETE; a WebDAV lock refuses the editor", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const edited = await alice.newFile("edited.docx", "v1");
    const other = await alice.newFile("other.docx", "v1");
    const locked = await editorLock(alice, edited);
    assert.equal(locked.status, 200, await locked.text());
    await assertLocked(
      await dav(server, alice, "DELETE", "/edited.docx"),
      "/dav/files/alice/edited.docx",
    );
    await davLock(server, alice, "/other.docx");
    const refused = await editorLock(alice, other);
    assert.equal(refused.status, 409);
    assert.match(await refused.text(), /RESOURCE_010/);
    assert.deepEqual(await adminLocks(server), {
      "edited.docx": { source: "office", webdav: null },
      "other.docx": { source: "webdav", webdav: { scope: "exclusive", depth: "0", count: 1 } },
    });
  });
});

Deno.test("a depth-infinity lock on a folder covers a PUT inside it", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    assert.equal((await dav(server, alice, "MKCOL", "/Team/")).status, 201);
    assert.equal((await dav(server, alice, "MKCOL", "/Team/Sub/")).status, 201);
    const token = await davLock(server, alice, "/Team/", "infinity");
    await assertLocked(
      await put(server, alice, "/Team/Sub/new.txt", "x"),
      "/dav/files/alice/Team/",
    );
    // The token, tagged with the folder as neon sends it, or untagged: allowed.
    const tagged = await dav(server, alice, "PUT", "/Team/Sub/new.txt", {
      body: "x",
      headers: { if: `<${server.url}/dav/files/alice/Team/> (<${token}>)` },
    });
    assert.equal(tagged.status, 201, await tagged.text());
    assert.equal((await put(server, alice, "/Team/Sub/new.txt", "y", token)).status, 204);
    // A wrong token fails the If header itself: 412.
    assert.equal(
      (await put(server, alice, "/Team/Sub/new.txt", "z", `urn:uuid:${UUID}`)).status,
      412,
    );
    // The folder's lock shows in a member's lockdiscovery, rooted at the folder.
    const found = await dav(server, alice, "PROPFIND", "/Team/Sub/new.txt", {
      headers: { depth: "0" },
      body: `<D:propfind xmlns:D="DAV:"><D:prop><D:lockdiscovery/></D:prop></D:propfind>`,
    });
    const xml = await found.text();
    assert.equal(found.status, 207, xml);
    assert.ok(xml.includes(`<D:href>${token}</D:href>`), xml);
    assert.ok(
      xml.includes("<D:lockroot><D:href>/dav/files/alice/Team/</D:href></D:lockroot>"),
      xml,
    );
  });
});

Deno.test("two processes on one KV see each other's WebDAV locks", async () => {
  await withTwoServersOnOneKv(async (a, b) => {
    const alice = await newApiUser(a, "alice");
    assert.equal((await put(a, alice, "/shared.txt", "v1")).status, 201);
    const token = await davLock(a, alice, "/shared.txt");
    await assertLocked(await put(b, alice, "/shared.txt", "v2"), "/dav/files/alice/shared.txt");
    assert.equal((await put(b, alice, "/shared.txt", "v2", token)).status, 204);
    const unlock = await dav(b, alice, "UNLOCK", "/shared.txt", {
      headers: { "lock-token": `<${token}>` },
    });
    assert.equal(unlock.status, 204);
    assert.equal((await put(a, alice, "/shared.txt", "v3")).status, 204);
  });
});

/**
 * Runs `fn` with a document provider's client on alice's drive, where /Team/doc.docx (made
 * through the provider) sits under alice's depth-infinity WebDAV lock on /Team/ (`token`).
 */
async function withProviderUnderLock(
  fn: (t: {
    server: TestServer;
    alice: ApiUser;
    client: ProviderHostClient;
    token: string;
  }) => Promise<void>,
) {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const { client } = await newProviderAdapter(server, "host", { userSeq: alice.userSeq });
    assert.ok((await client.mkdir([], "Team")).ok);
    assert.ok((await client.put(["Team", "doc.docx"], enc("v1"))).ok);
    const token = await davLock(server, alice, "/Team/", "infinity");
    await fn({ server, alice, client, token });
  });
}

Deno.test("a WebDAV folder lock refuses the provider's put of a document inside", async () => {
  await withProviderUnderLock(async ({ server, alice, client, token }) => {
    assert.equal((await client.put(["Team", "doc.docx"], enc("v2"))).status, 409);
    assert.equal((await client.lock(["Team", "doc.docx"], "session-1")).status, 409);
    const unlock = await dav(server, alice, "UNLOCK", "/Team/", {
      headers: { "lock-token": `<${token}>` },
    });
    assert.equal(unlock.status, 204);
    assert.ok((await client.put(["Team", "doc.docx"], enc("v2"))).ok);
  });
});

/** Each answer as "status errorCode", so one assertion shows every surface's answer at once. */
const outcomes = (answers: Record<string, JsonResponse>) =>
  Object.fromEntries(
    Object.entries(answers).map(([what, r]) => [what, `${r.status} ${r.body?.errorCode ?? ""}`]),
  );

/** `what` all answered with the catalog's lock error (RESOURCE_010, 409). */
const allRefused = (answers: Record<string, JsonResponse>) =>
  Object.fromEntries(Object.keys(answers).map((what) => [what, "409 RESOURCE_010"]));

/** Every membership change the drive API makes in or out of `team` (and `sub`, below it). */
async function apiMembershipChanges(
  alice: ApiUser,
  t: { team: number; sub: number; a: number; out: number; b: number },
) {
  return {
    "upload": await alice.upload("new.txt", "n", { pfs: t.sub }),
    "create folder": await alice.call("POST", "/folders", { fn: "New", pfs: t.team }),
    "rename file": await alice.call("PATCH", `/files/${t.a}/rename`, { rn: "renamed.txt" }),
    "rename folder": await alice.call("PATCH", `/folders/${t.sub}/rename`, { rn: "Sub2" }),
    "move in": await alice.call("POST", `/files/${t.b}/move`, { pfs: t.sub }),
    "move out": await alice.call("POST", `/files/${t.a}/move`, { pfs: t.out }),
    "copy in": await alice.call("POST", `/files/${t.b}/copy`, { pfs: t.team }),
    "trash": await alice.call("PATCH", `/files/${t.a}/delete`),
  };
}

Deno.test("a depth-infinity WebDAV lock on a folder refuses the API's creates, renames and moves in it", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const [team, sub] = await alice.newFolderPath("Team", "Sub");
    const a = await alice.newFile("a.txt", "a", sub);
    const out = await alice.newFolder("Out");
    const b = await alice.newFile("b.txt", "b", out);
    const token = await davLock(server, alice, "/Team/", "infinity");
    const t = { team, sub, a, out, b };
    const refused = await apiMembershipChanges(alice, t);
    assert.deepEqual(outcomes(refused), allRefused(refused));
    // WebDAV with the token still changes the locked folder's members.
    const ifToken = { if: `(<${token}>)` };
    assert.equal(
      (await dav(server, alice, "MKCOL", "/Team/Dav/", { headers: ifToken })).status,
      201,
    );
    assert.equal((await put(server, alice, "/Team/Sub/dav.txt", "d", token)).status, 201);
    const moved = await dav(server, alice, "MOVE", "/Team/Sub/a.txt", {
      headers: { ...ifToken, destination: `${server.url}/dav/files/alice/Team/a2.txt` },
    });
    assert.equal(moved.status, 201, await moved.text());
    const unlock = await dav(server, alice, "UNLOCK", "/Team/", {
      headers: { "lock-token": `<${token}>` },
    });
    assert.equal(unlock.status, 204);
    for (const [what, res] of Object.entries(await apiMembershipChanges(alice, t))) {
      assert.ok(res.status === 200 || res.status === 201, `${what}: ${JSON.stringify(res.body)}`);
    }
  });
});

Deno.test("a depth-0 WebDAV lock on a folder refuses API creates in it, not deeper", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const [team, sub] = await alice.newFolderPath("Team", "Sub");
    await davLock(server, alice, "/Team/", "0");
    const created = await alice.call("POST", "/folders", { fn: "New", pfs: team });
    assert.deepEqual(outcomes({ created }), { created: "409 RESOURCE_010" });
    // Depth 0 protects the folder's own members only (RFC 4918 7.4).
    assert.equal((await alice.call("POST", "/folders", { fn: "New", pfs: sub })).status, 201);
  });
});

Deno.test("a WebDAV folder lock refuses the provider's mkdir, rename and delete inside it", async () => {
  await withProviderUnderLock(async ({ server, alice, client, token }) => {
    assert.deepEqual({
      mkdir: (await client.mkdir(["Team"], "Sub")).status,
      "put new": (await client.put(["Team", "new.docx"], enc("v1"))).status,
      rename: (await client.rename(["Team", "doc.docx"], "r.docx")).status,
      delete: (await client.delete(["Team", "doc.docx"])).status,
    }, { mkdir: 409, "put new": 409, rename: 409, delete: 409 });
    const unlock = await dav(server, alice, "UNLOCK", "/Team/", {
      headers: { "lock-token": `<${token}>` },
    });
    assert.equal(unlock.status, 204);
    assert.ok((await client.mkdir(["Team"], "Sub")).ok);
    assert.ok((await client.rename(["Team", "doc.docx"], "r.docx")).ok);
  });
});
