/**
 * The WebDAV methods' RFC 4918 semantics beyond what litmus checks: PROPFIND's depth rule, live
 * and drive properties, the ETag shared with the API download, GET conditionals and ranges, PUT's
 * preconditions, quota and versions, MKCOL's and COPY/MOVE's status codes, PROPPATCH's
 * all-or-nothing answer, the XML rules and body caps, the name rules' messages.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { davAs, driveUrl, PROPFIND_ALL, statusOf } from "./client.ts";
import { DAV_METHODS } from "../../dav/routes.ts";

const QUOTA = `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop>` +
  `<D:quota-available-bytes/><D:quota-used-bytes/><D:getetag/><x:nope xmlns:x="urn:x"/>` +
  `</D:prop></D:propfind>`;

Deno.test("OPTIONS advertises DAV 1, 2, 3 and exactly the methods served", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const res = await davAs(alice, "OPTIONS", driveUrl(alice));
    await res.body?.cancel();
    assert.equal(res.headers.get("dav"), "1, 2, 3");
    assert.equal(res.headers.get("ms-author-via"), "DAV");
    assert.deepEqual(res.headers.get("allow")!.split(", ").sort(), Object.keys(DAV_METHODS).sort());
    assert.equal(await statusOf(davAs(alice, "PATCH", driveUrl(alice))), 405);
  });
});

Deno.test("PROPFIND: depth rule, quota as plain integers, the API's ETag, drive properties, 404 propstat", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 5_000_000_000_000 });
    assert.equal(await statusOf(davAs(alice, "PUT", driveUrl(alice, "a.txt"), {}, "hello")), 201);
    const inf = await davAs(alice, "PROPFIND", driveUrl(alice), { depth: "infinity" });
    assert.equal(inf.status, 403);
    assert.match(await inf.text(), /<D:propfind-finite-depth\/>/);
    const noDepth = await davAs(alice, "PROPFIND", driveUrl(alice));
    assert.equal(noDepth.status, 403, "no Depth header means infinity (RFC 4918 9.1)");
    await noDepth.body?.cancel();

    const root = await (await davAs(alice, "PROPFIND", driveUrl(alice), { depth: "0" }, QUOTA))
      .text();
    assert.match(root, /<D:quota-used-bytes>5<\/D:quota-used-bytes>/);
    assert.match(root, /<D:quota-available-bytes>4999999999995<\/D:quota-available-bytes>/);
    assert.match(root, /<D:status>HTTP\/1.1 404 Not Found<\/D:status>/);

    const download = await alice.fetch(`/files/1/download`);
    const apiEtag = download.headers.get("etag");
    await download.body?.cancel();
    const file = await (await davAs(alice, "PROPFIND", driveUrl(alice, "a.txt"), { depth: "0" }))
      .text();
    assert.ok(apiEtag && file.includes(`<D:getetag>${apiEtag}</D:getetag>`), file);
    assert.match(file, /<D:getlastmodified>\w{3}, \d\d \w{3} \d{4} [\d:]{8} GMT</);
    assert.match(file, /<x:seq>1<\/x:seq>/);
    assert.match(file, /<x:owner>alice<\/x:owner>/);
    assert.match(file, /<x:permissions>view download edit upload share delete<\/x:permissions>/);

    const names = await (await davAs(
      alice,
      "PROPFIND",
      driveUrl(alice, "a.txt"),
      { depth: "0" },
      `<?xml version="1.0"?><propfind xmlns="DAV:"><propname/></propfind>`,
    )).text();
    assert.match(names, /<D:getetag\/>/);
    assert.doesNotMatch(names, /hello/);
  });
});

Deno.test("PROPFIND Depth 1 streams every member of a collection larger than one page", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("many");
    const N = 600;
    for (let i = 0; i < N; i += 50) {
      await Promise.all(
        Array.from(
          { length: 50 },
          (_, j) => alice.newFolder(`f${String(i + j).padStart(4, "0")}`, folder),
        ),
      );
    }
    const res = await davAs(
      alice,
      "PROPFIND",
      driveUrl(alice, "many/"),
      { depth: "1" },
      PROPFIND_ALL,
    );
    assert.equal(res.status, 207);
    assert.equal(res.headers.get("content-length"), null, "streamed, not buffered");
    const text = await res.text();
    const hrefs = [...text.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => m[1]);
    assert.equal(hrefs.length, N + 1);
    assert.equal(new Set(hrefs).size, N + 1);
    assert.equal(hrefs[1], `/dav/files/alice/many/f0000/`);
  });
});

Deno.test("GET and HEAD: range, 304 on ETag and on date, collections as HTML", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const put = await davAs(alice, "PUT", driveUrl(alice, "r.txt"), {}, "0123456789");
    const etag = put.headers.get("etag")!;
    const range = await davAs(alice, "GET", driveUrl(alice, "r.txt"), { range: "bytes=2-4" });
    assert.equal(range.status, 206);
    assert.equal(await range.text(), "234");
    const head = await davAs(alice, "HEAD", driveUrl(alice, "r.txt"));
    assert.equal(head.headers.get("content-length"), "10");
    assert.equal(head.headers.get("etag"), etag);
    const lastModified = head.headers.get("last-modified")!;
    assert.equal(
      await statusOf(davAs(alice, "GET", driveUrl(alice, "r.txt"), { "if-none-match": etag })),
      304,
    );
    assert.equal(
      await statusOf(
        davAs(alice, "GET", driveUrl(alice, "r.txt"), { "if-modified-since": lastModified }),
      ),
      304,
    );
    assert.equal(
      await statusOf(
        davAs(alice, "GET", driveUrl(alice, "r.txt"), {
          "if-modified-since": "Mon, 01 Jan 2001 00:00:00 GMT",
        }),
      ),
      200,
    );
    const index = await davAs(alice, "GET", driveUrl(alice));
    assert.match(index.headers.get("content-type")!, /text\/html/);
    assert.match(await index.text(), /<a href="\/dav\/files\/alice\/r.txt">r.txt<\/a>/);
  });
});

Deno.test("PUT: versions, preconditions, 0 bytes, chunked, quota 507, 409, 405, name rule", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 100 });
    const url = driveUrl(alice, "p.txt");
    assert.equal(await statusOf(davAs(alice, "PUT", url, { "if-match": '"x"' }, "a")), 412);
    const first = await davAs(alice, "PUT", url, {}, "");
    assert.equal(first.status, 201);
    assert.equal(await statusOf(davAs(alice, "PUT", url, { "if-none-match": "*" }, "b")), 412);
    assert.equal(await statusOf(davAs(alice, "PUT", url, { "if-match": '"other"' }, "b")), 412);
    // A chunked body (a stream, no Content-Length), as Finder sends it.
    const chunked = ReadableStream.from([
      new TextEncoder().encode("ab"),
      new TextEncoder().encode("c"),
    ]);
    const second = await fetch(url, {
      method: "PUT",
      headers: { authorization: `Bearer ${alice.apiKey}`, "if-match": first.headers.get("etag")! },
      body: chunked,
    });
    assert.equal(second.status, 204);
    const versions = await alice.call("GET", "/files/1/versions");
    assert.deepEqual(versions.body.data.items.map((v: { size: number }) => v.size), [0, 3]);
    const big = await davAs(alice, "PUT", driveUrl(alice, "big.bin"), {}, new Uint8Array(200));
    assert.equal(big.status, 507);
    assert.match(await big.text(), /RESOURCE_015/);
    assert.equal(
      await statusOf(davAs(alice, "PUT", driveUrl(alice, "no/such/x.txt"), {}, "x")),
      409,
    );
    assert.equal(await statusOf(davAs(alice, "MKCOL", driveUrl(alice, "dir"))), 201);
    assert.equal(await statusOf(davAs(alice, "PUT", driveUrl(alice, "dir"), {}, "x")), 405);
    const bad = await davAs(alice, "PUT", driveUrl(alice, "bad%07name.txt"), {}, "x");
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /RESOURCE_004.*control character/);
  });
});

Deno.test("MKCOL 201/405/409/415; COPY and MOVE: Destination forms, 502, Overwrite, into itself", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const u = (p: string) => driveUrl(alice, p);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("c"))), 201);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("c"))), 405);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("x/y"))), 409);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("d"), {}, "<x/>")), 415);
    await statusOf(davAs(alice, "PUT", u("c/f.txt"), {}, "f"));
    const copy = (dest: string, h: Record<string, string> = {}) =>
      statusOf(davAs(alice, "COPY", u("c/f.txt"), { destination: dest, ...h }));
    assert.equal(await copy(u("g.txt")), 201);
    assert.equal(await copy("/dav/files/alice/h.txt"), 201, "a path is a Destination too");
    assert.equal(await copy(u("g.txt")), 204);
    assert.equal(await copy(u("g.txt"), { overwrite: "F" }), 412);
    assert.equal(await copy("http://elsewhere.example/dav/files/alice/z.txt"), 502);
    assert.equal(await copy(u("nope/z.txt")), 409);
    const into = await davAs(alice, "MOVE", u("c/"), { destination: u("c/inner/") });
    assert.equal(await statusOf(into), 403);
    const shallow = await davAs(alice, "COPY", u("c/"), { destination: u("c0/"), depth: "0" });
    assert.equal(await statusOf(shallow), 201);
    const listed = await (await davAs(alice, "PROPFIND", u("c0/"), { depth: "1" })).text();
    assert.equal([...listed.matchAll(/<D:response>/g)].length, 1, "Depth 0 copies no member");
    assert.equal(await statusOf(davAs(alice, "MOVE", u("c/"), { destination: u("moved/") })), 201);
    assert.equal(await statusOf(davAs(alice, "GET", u("moved/f.txt"))), 200);
  });
});

Deno.test("PROPPATCH: dead properties, Win32 times, protected 403 with 424 for the rest", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    await statusOf(davAs(alice, "PUT", driveUrl(alice, "w.txt"), {}, "w"));
    const win =
      `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop>` +
      `<Z:Win32LastModifiedTime>Wed, 04 Mar 2026 10:00:00 GMT</Z:Win32LastModifiedTime>` +
      `<Z:Win32FileAttributes>00000020</Z:Win32FileAttributes></D:prop></D:set></D:propertyupdate>`;
    const ok = await davAs(alice, "PROPPATCH", driveUrl(alice, "w.txt"), {}, win);
    assert.equal(ok.status, 207);
    assert.match(await ok.text(), /HTTP\/1.1 200 OK/);
    const mixed = `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop>` +
      `<D:getetag>"x"</D:getetag><a:b xmlns:a="urn:a">1</a:b></D:prop></D:set></D:propertyupdate>`;
    const refused = await (await davAs(alice, "PROPPATCH", driveUrl(alice, "w.txt"), {}, mixed))
      .text();
    assert.match(refused, /403 Forbidden.*cannot-modify-protected-property/s);
    assert.match(refused, /424 Failed Dependency/);
    const all =
      await (await davAs(alice, "PROPFIND", driveUrl(alice, "w.txt"), { depth: "0" }, PROPFIND_ALL))
        .text();
    assert.match(all, /Win32FileAttributes[^>]*>00000020</);
    // In a Depth 1 listing too (found through the owner's marks, kv/tree/dead_props.ts).
    const listing = await (await davAs(alice, "PROPFIND", driveUrl(alice), { depth: "1" })).text();
    assert.match(listing, /Win32FileAttributes[^>]*>00000020</);
    assert.doesNotMatch(all, /urn:a/, "nothing of the refused PROPPATCH was applied");
    // Deleting keeps them (the trash can give the file back); purging drops them.
    const rs = Number(/<x:seq>(\d+)<\/x:seq>/.exec(all)![1]);
    const props = async () =>
      (await Array.fromAsync(server.kv.list({ prefix: ["dav_prop", rs] }))).length;
    assert.equal(await statusOf(davAs(alice, "DELETE", driveUrl(alice, "w.txt"))), 204);
    assert.equal(await props(), 2);
    assert.equal((await alice.call("DELETE", `/trash/${rs}`)).status, 200);
    assert.equal(await props(), 0);
  });
});

Deno.test("XML: DOCTYPE and entities refused, malformed 400, bodies over 64 KiB 413", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>` +
      `<D:propfind xmlns:D="DAV:"><D:prop><D:displayname>&x;</D:displayname></D:prop></D:propfind>`;
    const res = await davAs(alice, "PROPFIND", driveUrl(alice), { depth: "0" }, xxe);
    assert.equal(res.status, 400);
    assert.match(await res.text(), /DAV_002/);
    assert.equal(
      await statusOf(davAs(alice, "PROPFIND", driveUrl(alice), { depth: "0" }, "<D:propfind")),
      400,
    );
    assert.equal(
      await statusOf(
        davAs(alice, "PROPFIND", driveUrl(alice), { depth: "0" }, `<a>&undefined;</a>`),
      ),
      400,
    );
    const big = `<D:propfind xmlns:D="DAV:"><!--${"x".repeat(70_000)}--><D:allprop/></D:propfind>`;
    assert.equal(
      await statusOf(davAs(alice, "PROPFIND", driveUrl(alice), { depth: "0" }, big)),
      413,
    );
    assert.equal(await statusOf(davAs(alice, "PROPPATCH", driveUrl(alice), {}, big)), 413);
  });
});
