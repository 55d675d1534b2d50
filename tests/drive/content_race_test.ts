/**
 * Reads racing an overwrite: the overwritten content's blob is deleted right after the commit,
 * so a download or copy that looked the file up just before must follow it to the new content
 * instead of failing with a 500.
 */
import assert from "node:assert/strict";
import { forEachBlobStore } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";

forEachBlobStore("downloads and copies racing overwrites get a whole content, never a 5xx", async (
  server,
) => {
  const alice = await newApiUser(server, "alice");
  const contents = new Map<string, number>();
  const content = (i: number) => {
    const bytes = testBytes(2000, i + 1);
    contents.set(new TextDecoder("latin1").decode(bytes), i);
    return bytes;
  };
  const up = await alice.upload("race.bin", content(0));
  const rs = up.body.data.resourceSeq;
  const known = (bytes: ArrayBuffer) => contents.has(new TextDecoder("latin1").decode(bytes));
  for (let i = 1; i <= 150; i++) {
    const [download, copy, overwrite] = await Promise.all([
      alice.fetch(`/files/${rs}/download`).then(async (r) => ({
        status: r.status,
        bytes: await r.arrayBuffer(),
      })),
      alice.call("POST", `/files/${rs}/copy`, {}),
      alice.upload("v.bin", content(i), { st: "overwrite", rs }),
    ]);
    assert.equal(overwrite.status, 201, JSON.stringify(overwrite.body));
    assert.equal(download.status, 200, `round ${i}: download answered ${download.status}`);
    assert.ok(known(download.bytes), `round ${i}: downloaded bytes are no stored content`);
    assert.equal(copy.status, 201, `round ${i}: copy answered ${JSON.stringify(copy.body)}`);
    const copied = await alice.fetch(`/files/${copy.body.data.resourceSeq}/download`);
    assert.ok(known(await copied.arrayBuffer()), `round ${i}: the copy holds no stored content`);
    // Keep the drive small: the copy has done its part.
    await alice.call("PATCH", `/files/${copy.body.data.resourceSeq}/delete`);
    await alice.call("DELETE", `/trash/${copy.body.data.resourceSeq}`);
  }
});
