/**
 * Changes made through WebDAV go through the drive's own operations, so they show in the change
 * feed, the activity log, the version history and search exactly as API changes do.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { type ChangeItem, cursorOf, readUntil } from "../events/helpers.ts";
import { davAs, driveUrl, statusOf } from "./client.ts";
import { untilValue } from "../helpers/wait.ts";

Deno.test("WebDAV MKCOL, PUT, PUT again, MOVE and DELETE reach the feed, activity, versions and search", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const cursor = await cursorOf(alice);
    assert.equal(await statusOf(davAs(alice, "MKCOL", driveUrl(alice, "docs"))), 201);
    assert.equal(
      await statusOf(davAs(alice, "PUT", driveUrl(alice, "docs/plan.txt"), {}, "v1")),
      201,
    );
    assert.equal(
      await statusOf(davAs(alice, "PUT", driveUrl(alice, "docs/plan.txt"), {}, "v2!")),
      204,
    );
    const moved = await davAs(alice, "MOVE", driveUrl(alice, "docs/plan.txt"), {
      destination: driveUrl(alice, "roadmap.txt"),
    });
    assert.equal(await statusOf(moved), 201);
    const found = await alice.call("GET", "/search?q=roadmap");
    assert.equal(found.status, 200, JSON.stringify(found.body));
    const hit = found.body.data.items.find((i: { resource: { name: string } }) =>
      i.resource.name === "roadmap.txt"
    );
    assert.ok(hit, JSON.stringify(found.body));
    const rs = hit.resource.resourceSeq;
    const versions = await alice.call("GET", `/files/${rs}/versions`);
    assert.deepEqual(versions.body.data.items.map((v: { size: number }) => v.size), [2, 3]);
    assert.equal(await statusOf(davAs(alice, "DELETE", driveUrl(alice, "roadmap.txt"))), 204);
    const trash = await alice.call("GET", "/trash");
    assert.equal(trash.status, 200, JSON.stringify(trash.body));
    assert.ok(JSON.stringify(trash.body).includes("roadmap.txt"), "DELETE moves to the trash");

    const want = ["created", "created", "content_changed", "moved", "renamed", "trashed"];
    const items = await readUntil(alice, cursor, (got) => got.length >= want.length);
    const ofFile = items.filter((c: ChangeItem) => c.resource.rs === rs).map((c: ChangeItem) =>
      c.kind
    );
    assert.deepEqual(
      items.map((c: ChangeItem) => c.kind).sort(),
      [...want].sort(),
      JSON.stringify(items),
    );
    assert.deepEqual(ofFile, ["created", "content_changed", "moved", "renamed", "trashed"]);
    assert.ok(items.every((c: ChangeItem) => c.actor.userSeq === alice.userSeq));

    const activity = await untilValue("activity of the file", async () => {
      const res = await server.admin.call("GET", `/activity?rs=${rs}&ps=50`);
      return res.body.items?.length >= 5 ? res.body.items : null;
    });
    assert.deepEqual(
      // deno-lint-ignore no-explicit-any
      activity.map((e: any) => e.kind).sort(),
      ["content_changed", "created", "moved", "renamed", "trashed"],
    );
  });
});
