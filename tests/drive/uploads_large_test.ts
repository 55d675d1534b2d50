/**
 * A 1 GiB resumable upload with tus-js-client, interrupted three times (each client aborted
 * mid-request, the next a new instance resuming from the stored URL), ends as a file whose
 * recorded SHA-256 and downloaded bytes match the source. The source is generated
 * deterministically into a temp file (distinct bytes in every MiB, so a misplaced piece shows).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { withServer } from "../helpers/server.ts";
import { tusUpload } from "../helpers/tus.ts";

const MiB = 1024 * 1024;
const SIZE = 1024 * MiB;

/** Writes SIZE deterministic bytes to `path`; returns their SHA-256. */
async function writeSource(path: string): Promise<string> {
  const base = testBytes(MiB, 77);
  const hash = createHash("sha256");
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    for (let i = 0; i < SIZE / MiB; i++) {
      new DataView(base.buffer).setUint32(0, i);
      hash.update(base);
      let off = 0;
      while (off < base.byteLength) off += await file.write(base.subarray(off));
    }
  } finally {
    file.close();
  }
  return hash.digest("hex");
}

Deno.test("1 GiB, interrupted three times, ends with the source's sha256", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tus-large-" });
  const source = `${dir}/source.bin`;
  try {
    const expected = await writeSource(source);
    await withServer(async (s) => {
      const alice = await newApiUser(s, "alice");
      let url: string | undefined;
      let offset = 0;
      for (const stop of [0.25, 0.5, 0.75]) {
        const run = await tusUpload(alice, { path: source }, {
          metadata: { filename: "large.bin" },
          uploadUrl: url,
          // 423 while the server still finishes the cut request: tus-js-client waits and retries.
          retryDelays: [50, 100, 200, 400, 800],
          abortAfter: stop * SIZE,
        });
        assert.equal(run.outcome, "aborted", String(run.outcome));
        url ??= run.url!;
        assert.equal(run.url, url);
        // The server keeps what reached it: the next client resumes past the previous cut.
        let now = offset;
        for (let i = 0; i < 200 && now <= offset; i++) {
          await new Promise((r) => setTimeout(r, 25));
          const res = await alice.fetch(new URL(url).pathname.replace("/api/external/v1", ""));
          now = (await res.json()).data.offset;
        }
        assert.ok(now > offset && now < SIZE, `offset ${now} after a cut at ${stop}`);
        offset = now;
      }
      const last = await tusUpload(alice, { path: source }, {
        uploadUrl: url,
        retryDelays: [50, 100, 200, 400, 800],
      });
      assert.equal(last.outcome, "success", String(last.outcome));
      const res = await alice.fetch(new URL(url!).pathname.replace("/api/external/v1", ""));
      const file = (await res.json()).data.file;
      const meta = await alice.call("GET", `/resources/${file.resourceSeq}`);
      assert.equal(meta.body.data.size, SIZE);
      assert.equal(meta.body.data.sha256, expected);
      const download = await alice.fetch(`/files/${file.resourceSeq}/download`);
      const hash = createHash("sha256");
      for await (const chunk of download.body!) hash.update(chunk);
      assert.equal(hash.digest("hex"), expected);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
