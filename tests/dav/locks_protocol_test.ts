/**
 * LOCK and UNLOCK as RFC 4918 9.10 and 9.11 say, over HTTP: the Timeout cap, refresh, shared
 * locks, a LOCK on an unmapped URL, bad input (malformed If header, lockinfo, Lock-Token, an
 * oversized body) and the UNLOCK of a token that names no lock.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { assertLocked, dav, davLock, LOCKINFO, put, UUID } from "./locks_helpers.ts";

const timeoutOf = (xml: string) => Number(/<D:timeout>Second-(\d+)<\/D:timeout>/.exec(xml)?.[1]);

Deno.test("Timeout: default an hour, capped at a day, Infinite gets the cap; refresh", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const lock = (path: string, timeout?: string) =>
      dav(server, alice, "LOCK", path, {
        body: LOCKINFO,
        headers: timeout ? { timeout } : {},
      });
    const none = await lock("/a.txt");
    assert.equal(none.status, 201, "an unmapped URL is created, locked");
    assert.ok(timeoutOf(await none.text()) > 3000, "about an hour");
    const long = await lock("/b.txt", "Second-4100000000");
    assert.ok(timeoutOf(await long.text()) <= 86_400);
    const infinite = await lock("/c.txt", "Infinite, Second-60");
    const token = /<(.+)>/.exec(infinite.headers.get("lock-token")!)![1];
    assert.ok(timeoutOf(await infinite.text()) > 86_000);
    // Refresh: no body, the token in If; a new Timeout, and no new Lock-Token.
    const refreshed = await dav(server, alice, "LOCK", "/c.txt", {
      headers: { if: `(<${token}>)`, timeout: "Second-120" },
    });
    assert.equal(refreshed.status, 200);
    assert.equal(refreshed.headers.get("lock-token"), null);
    const xml = await refreshed.text();
    assert.ok(timeoutOf(xml) <= 120 && xml.includes(token), xml);
    // A refresh naming no lock of the resource: 412.
    const wrong = await dav(server, alice, "LOCK", "/c.txt", {
      headers: { if: `(<urn:uuid:${UUID}>)` },
    });
    assert.equal(wrong.status, 412);
    // The created file is a real, empty file.
    const got = await dav(server, alice, "GET", "/a.txt");
    assert.equal(got.status, 200);
    assert.equal(await got.text(), "");
  });
});

Deno.test("shared locks: several holders, each token writes, an exclusive one is refused", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    assert.equal((await put(server, alice, "/s.txt", "v1")).status, 201);
    const shared = LOCKINFO.replace("<D:exclusive/>", "<D:shared/>");
    const take = () => dav(server, alice, "LOCK", "/s.txt", { body: shared });
    const [one, two] = [await take(), await take()];
    assert.equal(one.status, 200);
    assert.equal(two.status, 200);
    const tokens = [one, two].map((r) => /<(.+)>/.exec(r.headers.get("lock-token")!)![1]);
    assert.notEqual(tokens[0], tokens[1]);
    const exclusive = await dav(server, alice, "LOCK", "/s.txt", { body: LOCKINFO });
    assert.equal(exclusive.status, 423);
    await assertLocked(await put(server, alice, "/s.txt", "v2"), "/dav/files/alice/s.txt");
    assert.equal((await put(server, alice, "/s.txt", "v2", tokens[1])).status, 204);
    const found = await dav(server, alice, "PROPFIND", "/s.txt", {
      headers: { depth: "0" },
      body: `<D:propfind xmlns:D="DAV:"><D:prop><D:lockdiscovery/></D:prop></D:propfind>`,
    });
    const xml = await found.text();
    assert.equal(xml.match(/<D:activelock>/g)?.length, 2, xml);
  });
});

Deno.test("UNLOCK: a token naming no lock is 409, a missing or bare token 400", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    assert.equal((await put(server, alice, "/u.txt", "v1")).status, 201);
    const token = await davLock(server, alice, "/u.txt");
    const bogus = await dav(server, alice, "UNLOCK", "/u.txt", {
      headers: { "lock-token": `<urn:uuid:${UUID}>` },
    });
    assert.equal(bogus.status, 409);
    assert.match(await bogus.text(), /<D:lock-token-matches-request-uri\/>/);
    assert.equal((await dav(server, alice, "UNLOCK", "/u.txt")).status, 400);
    const bare = await dav(server, alice, "UNLOCK", "/u.txt", { headers: { "lock-token": token } });
    assert.equal(bare.status, 400, "the token goes in angle brackets");
    const unlocked = await dav(server, alice, "UNLOCK", "/u.txt", {
      headers: { "lock-token": `<${token}>` },
    });
    assert.equal(unlocked.status, 204);
    assert.equal((await put(server, alice, "/u.txt", "v2")).status, 204);
  });
});

Deno.test("bad input: malformed If 400, bad lockinfo 400, Depth 1 400, big body 413", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    assert.equal((await put(server, alice, "/x.txt", "v1")).status, 201);
    for (const header of ["(<urn:uuid:1>", "<urn:uuid:1>", "([nope])", "(<a> b)"]) {
      const res = await dav(server, alice, "PUT", "/x.txt", {
        body: "v2",
        headers: { if: header },
      });
      assert.equal(res.status, 400, header);
    }
    const bodies = [
      "<not-xml",
      `<D:lockinfo xmlns:D="DAV:"><D:locktype><D:write/></D:locktype></D:lockinfo>`,
      LOCKINFO.replace("<D:write/>", "<D:read/>"),
      `<D:propfind xmlns:D="DAV:"/>`,
      `<!DOCTYPE x [<!ENTITY e "e">]>${LOCKINFO.replace(/^<\?xml[^>]*>/, "")}`,
    ];
    for (const body of bodies) {
      const res = await dav(server, alice, "LOCK", "/x.txt", { body });
      assert.equal(res.status, 400, body);
    }
    const depth1 = await dav(server, alice, "LOCK", "/x.txt", {
      body: LOCKINFO,
      headers: { depth: "1" },
    });
    assert.equal(depth1.status, 400);
    const big = LOCKINFO.replace("mailto:", "mailto:" + "x".repeat(70 * 1024));
    assert.equal((await dav(server, alice, "LOCK", "/x.txt", { body: big })).status, 413);
    const owner = LOCKINFO.replace("mailto:", "mailto:" + "x".repeat(5000));
    assert.equal((await dav(server, alice, "LOCK", "/x.txt", { body: owner })).status, 400);
    // None of it left a lock behind.
    assert.equal((await put(server, alice, "/x.txt", "v2")).status, 204);
  });
});

Deno.test("DELETE and MOVE of locked resources go through with the token only", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    assert.equal((await dav(server, alice, "MKCOL", "/Box/")).status, 201);
    assert.equal((await put(server, alice, "/Box/in.txt", "v1")).status, 201);
    assert.equal((await put(server, alice, "/m.txt", "v1")).status, 201);
    // A file locked inside a folder: the folder's DELETE needs that file's token.
    const inner = await davLock(server, alice, "/Box/in.txt");
    await assertLocked(await dav(server, alice, "DELETE", "/Box/"), "/dav/files/alice/Box/");
    const file = await davLock(server, alice, "/m.txt");
    const destination = `${server.url}/dav/files/alice/Box/m.txt`;
    await assertLocked(
      await dav(server, alice, "MOVE", "/m.txt", { headers: { destination } }),
      "/dav/files/alice/m.txt",
    );
    const moved = await dav(server, alice, "MOVE", "/m.txt", {
      headers: { destination, if: `(<${file}>)` },
    });
    assert.equal(moved.status, 201, await moved.text());
    // The lock stayed behind (RFC 4918 7.7): the moved file takes writes without a token.
    assert.equal((await put(server, alice, "/Box/m.txt", "v2")).status, 204);
    const deleted = await dav(server, alice, "DELETE", "/Box/", {
      headers: { if: `</dav/files/alice/Box/in.txt> (<${inner}>)` },
    });
    assert.equal(deleted.status, 204, await deleted.text());
    // The deleted file's lock went with it.
    assert.deepEqual((await server.admin.call("GET", "/locks")).body.items, []);
  });
});
