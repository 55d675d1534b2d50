/**
 * Shared folders over WebDAV (/dav/shared/): the permission matrix of kv/sharing/authorize.ts
 * (read-only recipients read but never write, upload adds new files only, edit overwrites),
 * other tenants see nothing, and two owners' roots of one name get distinct collection names.
 */
import assert from "node:assert/strict";
import { newApiUser, shareFlags } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { davAs, statusOf } from "./client.ts";

Deno.test("shared folders: read-only, upload and edit recipients, other tenants 404", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const t = { tenantId: alice.tenantId };
    const [bob, carol, dave] = await Promise.all(
      ["bob", "carol", "dave"].map((n) => newApiUser(server, n, t)),
    );
    const eve = await newApiUser(server, "eve");
    const team = await alice.newFolder("Team");
    await alice.newFile("plan.txt", "v1", team);
    await alice.newFolder("sub", team);
    // One share, three recipients with their own flags.
    await alice.newShare({
      rs: team,
      st: "SPECIFIC_USERS",
      ts: [
        { us: bob.userSeq, ...shareFlags("cd") },
        { us: carol.userSeq, ...shareFlags("cd", "cu") },
        { us: dave.userSeq, ...shareFlags("cd", "ce") },
      ],
    });
    const at = (_who: unknown, p = "") => `${server.url}/dav/shared/Team/${p}`;

    // Read-only (view and download): reads, no writes.
    const listing =
      await (await davAs(bob, "PROPFIND", `${server.url}/dav/shared/`, { depth: "1" }))
        .text();
    assert.match(listing, /<D:href>\/dav\/shared\/Team\/<\/D:href>/);
    assert.match(listing, /<x:owner>alice<\/x:owner>/);
    assert.equal(await statusOf(davAs(bob, "PROPFIND", at(bob), { depth: "1" })), 207);
    const got = await davAs(bob, "GET", at(bob, "plan.txt"));
    assert.equal(await got.text(), "v1");
    const writes: [string, string, Record<string, string>, string | null][] = [
      ["PUT", "new.txt", {}, "x"],
      ["PUT", "plan.txt", {}, "x"],
      ["DELETE", "plan.txt", {}, null],
      ["MOVE", "plan.txt", { destination: at(bob, "sub/plan.txt") }, null],
      ["MKCOL", "dir", {}, null],
      [
        "PROPPATCH",
        "plan.txt",
        {},
        `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><a xmlns="urn:a">1</a></D:prop></D:set></D:propertyupdate>`,
      ],
    ];
    for (const [method, path, headers, body] of writes) {
      const res = await davAs(bob, method, at(bob, path), headers, body);
      assert.equal(res.status, 403, `${method} ${path}: ${await res.text()}`);
    }

    // Upload: new files, but no overwrite.
    assert.equal(await statusOf(davAs(carol, "PUT", at(carol, "carol.txt"), {}, "c")), 201);
    assert.equal(await statusOf(davAs(carol, "PUT", at(carol, "plan.txt"), {}, "c")), 403);
    // Edit: overwrites (a new version of alice's file, charged to alice).
    assert.equal(await statusOf(davAs(dave, "PUT", at(dave, "plan.txt"), {}, "v2 by dave")), 204);
    const now = await davAs(alice, "GET", `${server.url}/dav/files/alice/Team/plan.txt`);
    assert.equal(await now.text(), "v2 by dave");

    // Another tenant: nothing shared, alice's drive and the shared path are 404.
    const evesList =
      await (await davAs(eve, "PROPFIND", `${server.url}/dav/shared/`, { depth: "1" }))
        .text();
    assert.doesNotMatch(evesList, /Team|alice/);
    assert.equal(await statusOf(davAs(eve, "PROPFIND", at(eve), { depth: "0" })), 404);
    assert.equal(
      await statusOf(davAs(eve, "GET", `${server.url}/dav/files/alice/Team/plan.txt`)),
      404,
    );
  });
});

Deno.test("two shared roots of one name get distinct names: the owner's account id is added", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const t = { tenantId: alice.tenantId };
    const [bob, carol] = await Promise.all(["bob", "carol"].map((n) => newApiUser(server, n, t)));
    await alice.shareWith(await alice.newFolder("Docs"), bob, "cd");
    await carol.shareWith(await carol.newFolder("Docs"), bob, "cd");
    const list = await (await davAs(bob, "PROPFIND", `${server.url}/dav/shared/`, { depth: "1" }))
      .text();
    const hrefs = [...list.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => m[1]).sort();
    assert.deepEqual(hrefs, ["/dav/shared/", "/dav/shared/Docs%20(carol)/", "/dav/shared/Docs/"]);
    assert.equal(
      await statusOf(
        davAs(bob, "PROPFIND", `${server.url}/dav/shared/Docs%20(carol)/`, { depth: "0" }),
      ),
      207,
    );
  });
});

Deno.test("a file moved through the API to another drive keeps its dead properties in listings", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob", { tenantId: alice.tenantId });
    const team = await alice.newFolder("Team");
    const plan = await alice.newFile("plan.txt", "v1", team);
    await alice.newShare({
      rs: team,
      st: "SPECIFIC_USERS",
      ts: [{ us: bob.userSeq, ...shareFlags("cd", "ce") }],
    });
    const set = `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><a xmlns="urn:a">kept</a>` +
      `</D:prop></D:set></D:propertyupdate>`;
    const url = `${server.url}/dav/files/alice/Team/plan.txt`;
    assert.equal(await statusOf(davAs(alice, "PROPPATCH", url, {}, set)), 207);
    const mine = await bob.newFolder("Mine");
    const moved = await bob.call("POST", `/files/${plan}/move`, { ss: alice.userSeq, pfs: mine });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    // Depth 1 allprop reads the dead properties through the owner's marks.
    const listing = await davAs(bob, "PROPFIND", `${server.url}/dav/files/bob/Mine/`, {
      depth: "1",
    }, `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`);
    assert.match(await listing.text(), /<z0:a xmlns:z0="urn:a">kept<\/z0:a>/);
  });
});
