/**
 * WebDAV COPY of a collection goes through the drive's one folder copy (kv/tree/folder_copy.ts):
 * dead properties of every member come along; over quota (507) or over the item limit nothing
 * at all is written, not even the destination collection.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { davAs, driveUrl, statusOf } from "./client.ts";

const SET_COLOR = `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop>` +
  `<x:color xmlns:x="urn:x">blue</x:color></D:prop></D:set></D:propertyupdate>`;
const GET_COLOR = `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop>` +
  `<x:color xmlns:x="urn:x"/></D:prop></D:propfind>`;

Deno.test("WebDAV COPY of a collection: members and their dead properties", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const u = (p: string) => driveUrl(alice, p);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("c"))), 201);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("c/sub"))), 201);
    assert.equal(await statusOf(davAs(alice, "PUT", u("c/sub/f.txt"), {}, "fox")), 201);
    assert.equal(await statusOf(davAs(alice, "PROPPATCH", u("c/sub/f.txt"), {}, SET_COLOR)), 207);
    const copied = davAs(alice, "COPY", u("c/"), { destination: u("d/") });
    assert.equal(await statusOf(copied), 201);
    assert.equal(await (await davAs(alice, "GET", u("d/sub/f.txt"))).text(), "fox");
    const props = await davAs(alice, "PROPFIND", u("d/sub/f.txt"), { depth: "0" }, GET_COLOR);
    assert.match(await props.text(), /:color xmlns:\w+="urn:x">blue</);
  });
});

Deno.test("WebDAV COPY of a collection over quota or the item limit writes nothing", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 1000 });
    const u = (p: string) => driveUrl(alice, p);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("c"))), 201);
    for (const name of ["a.bin", "b.bin"]) {
      const put = davAs(alice, "PUT", u(`c/${name}`), {}, new Uint8Array(400));
      assert.equal(await statusOf(put), 201);
    }
    assert.equal(await statusOf(davAs(alice, "COPY", u("c/"), { destination: u("d/") })), 507);
    assert.equal(await statusOf(davAs(alice, "PROPFIND", u("d/"), { depth: "0" })), 404);
  });
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const u = (p: string) => driveUrl(alice, p);
    assert.equal(await statusOf(davAs(alice, "MKCOL", u("c"))), 201);
    for (const name of ["a.txt", "b.txt", "e.txt"]) {
      assert.equal(await statusOf(davAs(alice, "PUT", u(`c/${name}`), {}, name)), 201);
    }
    const refused = await davAs(alice, "COPY", u("c/"), { destination: u("d/") });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /DRIVE_FOLDER_COPY_MAX_ITEMS/);
    assert.equal(await statusOf(davAs(alice, "PROPFIND", u("d/"), { depth: "0" })), 404);
  }, { env: { DRIVE_FOLDER_COPY_MAX_ITEMS: "2" } });
});
