/**
 * A tus upload moves between processes: two main.ts processes on one KV file and one data
 * directory (both blob stores). tus-js-client starts on process A and is cut, a new client
 * continues on B and is cut, a third finishes on A again. The offset lives in KV and the bytes in
 * the store, and each process that did not see the earlier bytes hashes them from the stage
 * first, so the file is whole and its recorded SHA-256 right.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { type MainProcess, withTwoMains } from "../helpers/process.ts";
import { throttled, tusUpload } from "../helpers/tus.ts";

const KiB = 1024;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** The same upload URL on another process's origin. */
const on = (proc: MainProcess, url: string) => `${proc.url}${new URL(url).pathname}`;

async function offsetOn(user: ApiUser, url: string): Promise<number> {
  const res = await user.fetch(new URL(url).pathname.replace("/api/external/v1", ""));
  return (await res.json()).data.offset;
}

/** Waits until the server noticed a cut and committed what it kept (offset past `before`). */
async function settledPast(user: ApiUser, url: string, before: number): Promise<number> {
  let now = before;
  for (let i = 0; i < 200 && now <= before; i++) {
    await new Promise((r) => setTimeout(r, 25));
    now = await offsetOn(user, url);
  }
  return now;
}

for (const blobStore of ["fs", "kv"] as const) {
  Deno.test(`a tus upload continues on another process [${blobStore} blobs]`, async () => {
    await withTwoMains({ DRIVE_BLOB_STORE: blobStore }, async (a, b) => {
      const admin = new AdminClient(a.url);
      const tenant = await admin.createTenant("t");
      const user = await admin.createUser(tenant.id, "alice");
      const key = await admin.createKey(user.userSeq);
      const onA = new ApiUser(a.url, user.userSeq, tenant.id, key, "alice");
      const onB = new ApiUser(b.url, user.userSeq, tenant.id, key, "alice");
      const bytes = testBytes(3 * 1024 * KiB + 5, 21);
      const slow = (from: number) => throttled(bytes.subarray(from), 64 * KiB, 2);

      const first = await tusUpload(onA, slow(0), {
        uploadSize: bytes.byteLength,
        chunkSize: bytes.byteLength,
        metadata: { filename: "moved.bin" },
        abortAfter: 1024 * KiB,
      });
      assert.equal(first.outcome, "aborted", String(first.outcome));
      const url = first.url!;
      const cut1 = await settledPast(onA, url, 0);
      assert.ok(cut1 > 0, "process A kept bytes");

      // B never saw the first bytes: it hashes them from the stage before appending.
      const second = await tusUpload(onB, bytes, {
        uploadUrl: on(b, url),
        chunkSize: 256 * KiB,
        retryDelays: [50, 100, 200, 400],
        abortAfter: 2 * 1024 * KiB,
      });
      assert.equal(second.outcome, "aborted", String(second.outcome));
      const cut2 = await settledPast(onB, url, cut1);
      assert.ok(cut2 > cut1, "process B continued the upload");

      // A's own hash stopped at its cut: it catches up with B's bytes from the stage.
      const third = await tusUpload(onA, bytes, {
        uploadUrl: on(a, url),
        retryDelays: [50, 100, 200, 400],
      });
      assert.equal(third.outcome, "success", String(third.outcome));
      const res = await onB.fetch(new URL(url).pathname.replace("/api/external/v1", ""));
      const file = (await res.json()).data.file;
      const meta = await onB.call("GET", `/resources/${file.resourceSeq}`);
      assert.equal(meta.body.data.sha256, sha(bytes));
      const download = await onB.fetch(`/files/${file.resourceSeq}/download`);
      assert.equal(sha(new Uint8Array(await download.arrayBuffer())), sha(bytes));
    });
  });
}
