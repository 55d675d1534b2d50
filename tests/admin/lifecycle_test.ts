/**
 * Lifecycle over HTTP (api/admin/lifecycle.ts, kv/lifecycle/): deleting a user (confirmation,
 * bytes freed on both blob stores, keys and links dead, the neighbour untouched), deleting a
 * tenant, transferring a drive (reachable by the new owner, usage moved to the byte), the
 * retention job on a live server's KV with an injected clock, and its Deno.cron registration.
 */
import assert from "node:assert/strict";
import { newApiUser, shareFlags } from "../helpers/api.ts";
import { forEachBlobStore, withServer } from "../helpers/server.ts";
import { RETENTION_CRON_NAME, runRetention } from "../../kv/lifecycle/retention.ts";

const DAY = 86_400_000;

forEachBlobStore(
  "deleting a user needs confirm, frees their bytes and kills their key and links",
  async (server) => {
    const tenant = await server.admin.createTenant("Acme");
    const ana = await newApiUser(server, "ana", { tenantId: tenant.id });
    const ben = await newApiUser(server, "ben", { tenantId: tenant.id });
    const docs = await ana.newFolder("Docs");
    await ana.newFile("a.txt", "a".repeat(1000), docs);
    await ana.newFile("b.txt", "b".repeat(500));
    const link = await ana.newShare({ rs: docs, st: "PUBLIC_LINK", ...shareFlags() });
    const token = new URL(link.linkUrl).pathname.split("/").pop();
    await ben.newFile("ben.txt", "x".repeat(40));
    const blobsBefore = (await Array.fromAsync(server.blobs.list())).length;

    const missing = await server.admin.call("DELETE", `/users/${ana.userSeq}`);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.field, "confirm");
    const wrong = await server.admin.call("DELETE", `/users/${ana.userSeq}?confirm=ben`);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, "ADMIN_002");
    assert.equal((await ana.call("GET", "/resources?ps=10")).status, 200, "nothing was deleted");

    const done = await server.admin.call("DELETE", `/users/${ana.userSeq}?confirm=ana`);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.resources, 3);
    assert.equal(done.body.freedBytes, 1500);
    assert.equal(done.body.sharesRemoved, 1);
    assert.equal(done.body.keysDeleted, 1);
    assert.equal((await server.admin.call("GET", `/users/${ana.userSeq}`)).status, 404);
    assert.equal((await ana.call("GET", "/resources?ps=10")).status, 401);
    assert.equal(
      await fetch(`${server.url}/public/v1/links/${token}`).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      }),
      404,
    );
    assert.equal((await Array.fromAsync(server.blobs.list())).length, blobsBefore - 2);
    // The accountId is free again; the neighbour is untouched.
    await server.admin.createUser(tenant.id, "ana");
    const benView = await server.admin.call("GET", `/users/${ben.userSeq}`);
    assert.equal(benView.body.usedBytes, 40);
    assert.equal(
      (await server.admin.call("DELETE", `/users/${ana.userSeq}?confirm=ana`)).status,
      404,
    );
  },
);

Deno.test("deleting a tenant deletes its users; confirm is its name", async () => {
  await withServer(async (server) => {
    const acme = await server.admin.createTenant("Acme");
    const ana = await newApiUser(server, "ana", { tenantId: acme.id });
    await ana.newFile("a.txt", "aaa");
    const wrong = await server.admin.call("DELETE", `/tenants/${acme.id}?confirm=acme`);
    assert.equal(wrong.body.error, "ADMIN_002");
    const done = await server.admin.call("DELETE", `/tenants/${acme.id}?confirm=Acme`);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body.users.map((u: { userSeq: number }) => u.userSeq), [ana.userSeq]);
    assert.equal((await server.admin.call("GET", `/tenants/${acme.id}`)).status, 404);
    assert.equal((await server.admin.call("GET", `/users/${ana.userSeq}`)).status, 404);
  });
});

Deno.test("a transferred drive is the new owner's, in a folder named after the old user", async () => {
  await withServer(async (server) => {
    const tenant = await server.admin.createTenant("Acme");
    const ana = await newApiUser(server, "ana", { tenantId: tenant.id });
    const ben = await newApiUser(server, "ben", { tenantId: tenant.id });
    const zed = await newApiUser(server, "zed");
    const docs = await ana.newFolder("Docs");
    const file = await ana.newFile("q1.txt", "quarterly", docs);
    await ben.newFile("mine.txt", "12345");

    const cross = await server.admin.call("POST", `/users/${ana.userSeq}/transfer`, {
      toUserSeq: zed.userSeq,
    });
    assert.equal(cross.body.error, "USER_004");
    const bad = await server.admin.call("POST", `/users/${ana.userSeq}/transfer`, {
      toUserSeq: "ben",
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.field, "toUserSeq");

    const moved = await server.admin.call("POST", `/users/${ana.userSeq}/transfer`, {
      toUserSeq: ben.userSeq,
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.folderName, "ana");
    assert.equal(moved.body.movedBytes, "quarterly".length);
    const root = await ben.call("GET", "/resources?ps=10");
    assert.ok(
      root.body.data.items.some((r: { resourceSeq: number }) =>
        r.resourceSeq === moved.body.folderRs
      ),
    );
    const got = await ben.fetch(`/files/${file}/download`);
    assert.equal(await got.text(), "quarterly");
    // The old owner no longer has access to what was theirs.
    assert.equal((await ana.call("GET", `/resources?pfs=${docs}&ps=10`)).status, 403);
    const benView = await server.admin.call("GET", `/users/${ben.userSeq}`);
    assert.equal(benView.body.usedBytes, 5 + "quarterly".length);
    const anaView = await server.admin.call("GET", `/users/${ana.userSeq}`);
    assert.equal(anaView.body.usedBytes, 0);
  });
});

Deno.test("the retention job on a server's KV purges old trash, with an injected clock", async () => {
  await withServer(async (server) => {
    const ana = await newApiUser(server, "ana");
    const gone = await ana.newFile("old.txt", "o".repeat(300));
    await ana.newFile("kept.txt", "k".repeat(20));
    assert.equal((await ana.call("PATCH", `/files/${gone}/delete`)).status, 200);
    const d = { ...server.deps, config: { ...server.config, trashRetentionDays: 7 } };
    assert.equal((await runRetention(d, { now: Date.now() + 6 * DAY })).trashPurged, 0);
    const report = await runRetention(d, { now: Date.now() + 8 * DAY });
    assert.equal(report.trashPurged, 1);
    assert.equal(report.freedBytes, 300);
    assert.deepEqual((await ana.call("GET", "/trash?ps=10")).body.data.items, []);
    const view = await server.admin.call("GET", `/users/${ana.userSeq}`);
    assert.equal(view.body.usedBytes, 20);
  });
});

Deno.test("boot registers the retention job with Deno.cron and close unregisters it", async () => {
  await withServer(() => {
    // The name is taken while the service runs: boot registered it.
    assert.throws(
      () => Deno.cron(RETENTION_CRON_NAME, "17 * * * *", () => {}),
      /already exists/,
    );
    return Promise.resolve();
  });
  const ac = new AbortController();
  Deno.cron(RETENTION_CRON_NAME, "17 * * * *", { signal: ac.signal }, () => {});
  ac.abort();
});
