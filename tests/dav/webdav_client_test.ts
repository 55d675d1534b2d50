/**
 * A scripted session of the npm `webdav` client (the library many Node and browser apps use)
 * against the drive: folders, uploads, listing, stat, quota, copy, move, partial reads, delete.
 */
import assert from "node:assert/strict";
import { createClient } from "./webdav_npm.ts";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";

const NOTES = "# Notes\n\nÜber alles ✓\n";
const NOTES_BYTES = new TextEncoder().encode(NOTES).byteLength;

Deno.test("the npm webdav client: a whole session", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 1_000_000 });
    const client = createClient(`${server.url}/dav/files/alice`, {
      username: "alice@example.com",
      password: alice.apiKey,
    });
    await client.createDirectory("/Projects/2026", { recursive: true });
    await client.putFileContents("/Projects/2026/notes.md", NOTES);
    await client.putFileContents("/Projects/2026/data.bin", new Uint8Array(4096).fill(7).buffer);
    assert.equal(await client.exists("/Projects/2026/notes.md"), true);
    assert.equal(await client.exists("/Projects/nope"), false);

    // deno-lint-ignore no-explicit-any
    const listing = (await client.getDirectoryContents("/Projects/2026")) as any[];
    assert.deepEqual(
      listing.map((f) => [f.basename, f.type, f.size]).sort(),
      [["data.bin", "file", 4096], ["notes.md", "file", NOTES_BYTES]],
    );
    // deno-lint-ignore no-explicit-any
    const stat = (await client.stat("/Projects/2026/notes.md")) as any;
    assert.equal(stat.type, "file");
    assert.match(stat.etag ?? "", /^[0-9a-f]{32}$/);
    assert.equal(
      await client.getFileContents("/Projects/2026/notes.md", { format: "text" }),
      NOTES,
    );
    const stream = client.createReadStream("/Projects/2026/data.bin", {
      range: { start: 10, end: 19 },
    });
    let got = 0;
    for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
      got += chunk.byteLength;
    }
    assert.equal(got, 10);

    // deno-lint-ignore no-explicit-any
    const quota = (await client.getQuota()) as any;
    assert.equal(quota.used, NOTES_BYTES + 4096);
    assert.equal(quota.available, 1_000_000 - NOTES_BYTES - 4096);

    await client.copyFile("/Projects/2026/notes.md", "/Projects/notes-copy.md");
    await client.moveFile("/Projects/2026", "/Archive");
    assert.equal(await client.exists("/Archive/data.bin"), true);
    assert.equal(await client.exists("/Projects/2026"), false);
    await client.deleteFile("/Archive/data.bin");
    // deno-lint-ignore no-explicit-any
    const left = (await client.getDirectoryContents("/", { deep: false })) as any[];
    assert.deepEqual(left.map((f) => f.basename).sort(), ["Archive", "Projects"]);
    // The deleted file is in the trash, as the API's delete puts it.
    const trash = await alice.call("GET", "/trash");
    assert.ok(JSON.stringify(trash.body).includes("data.bin"));
  });
});
