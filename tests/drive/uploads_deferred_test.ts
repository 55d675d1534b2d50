/**
 * A final commit that keeps losing (issue 22, item 3): the server tries it again, then answers
 * 503 SERVICE_002 with Retry-After and keeps the upload resumable at its offset, never 410. The
 * losing is made certain here: every commit that would complete an upload is refused (as a
 * conflict) while `refuse` is on. The client's retry of its last request completes the upload;
 * other bytes for that request are refused (460), and termination removes the kept bytes.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { forEachBlobStore } from "../helpers/server.ts";
import { statusOf, tusUpload, Upload } from "../helpers/tus.ts";
import { uploadKey } from "../../kv/keys.ts";
import { fsck } from "../../kv/ops/fsck.ts";

const KiB = 1024;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** Makes every commit that marks an upload completed fail as a conflict while `refuse` holds. */
function refuseCompletions(kv: Deno.Kv) {
  const state = { refuse: true, refused: 0 };
  const atomic = kv.atomic.bind(kv);
  kv.atomic = () => {
    const op = atomic();
    let completing = false;
    const set = op.set.bind(op);
    op.set = (key, value, options) => {
      const upload = value as { state?: string } | null;
      if (key[0] === uploadKey("x")[0] && upload?.state === "completed") completing = true;
      return set(key, value, options);
    };
    const commit = op.commit.bind(op);
    op.commit = () => {
      if (!completing || !state.refuse) return commit();
      state.refused++;
      return Promise.resolve({ ok: false } as Deno.KvCommitError);
    };
    return op;
  };
  return state;
}

async function tus(user: ApiUser, url: string, init: RequestInit & { offset?: number } = {}) {
  const headers: Record<string, string> = {
    authorization: `Bearer ${user.apiKey}`,
    "tus-resumable": "1.0.0",
  };
  if (init.offset !== undefined) {
    headers["upload-offset"] = String(init.offset);
    headers["content-type"] = "application/offset+octet-stream";
  }
  return await fetch(url, { ...init, headers });
}

const state = async (user: ApiUser, url: string) =>
  (await (await user.fetch(new URL(url).pathname.replace("/api/external/v1", ""))).json()).data;

forEachBlobStore("a final commit that keeps losing is 503, and the upload resumes", async (s) => {
  const alice = await newApiUser(s, "alice");
  const refusing = refuseCompletions(s.kv);
  const bytes = testBytes(300 * KiB + 7, 12);
  let retryAfter: string | null = null;
  const first = await tusUpload(alice, bytes, {
    metadata: { filename: "kept.bin" },
    chunkSize: 128 * KiB,
    onAfterResponse(req, res) {
      if (req.getMethod() === "PATCH" && res.getStatus() === 503) {
        retryAfter = res.getHeader("Retry-After") ?? "";
      }
    },
  });
  assert.equal(statusOf(first.outcome), 503, String(first.outcome));
  assert.match(String(first.outcome), /SERVICE_002/);
  assert.ok(Number(retryAfter) >= 1, `Retry-After: ${retryAfter}`);
  assert.ok(refusing.refused > 1, "the server tried the commit again");
  const url = first.url!;
  // Resumable at the offset its last request began at, not gone.
  const head = await tus(alice, url, { method: "HEAD" });
  assert.equal(head.status, 200);
  const offset = Number(head.headers.get("upload-offset"));
  assert.equal(offset, 256 * KiB);
  assert.equal((await state(alice, url)).state, "uploading");
  // Other bytes than the stored ones do not complete it, and change nothing.
  const wrong = new Uint8Array(bytes.byteLength - offset);
  const refused = await tus(alice, url, { method: "PATCH", offset, body: wrong });
  assert.equal(refused.status, 460);
  assert.match((await refused.json()).errorCode, /UPLOAD_004/);
  // Still losing: still 503, still kept.
  const again = await tus(alice, url, { method: "PATCH", offset, body: bytes.slice(offset) });
  assert.equal(again.status, 503);
  assert.ok(again.headers.get("retry-after"));
  await again.body?.cancel();
  // The blob the upload was sealed into is held by it, not an orphan.
  const report = await fsck(s.deps, { repair: false });
  assert.equal(report.orphanBlobs, 0, "the sealed upload's blob counts as referenced");
  refusing.refuse = false;
  const resumed = await tusUpload(alice, bytes, { uploadUrl: url });
  assert.equal(resumed.outcome, "success", String(resumed.outcome));
  const done = await state(alice, url);
  assert.equal(done.state, "completed");
  const meta = await alice.call("GET", `/resources/${done.file.resourceSeq}`);
  assert.equal(meta.body.data.sha256, sha(bytes));
  const download = await alice.fetch(`/files/${done.file.resourceSeq}/download`);
  assert.equal(sha(new Uint8Array(await download.arrayBuffer())), sha(bytes));
});

forEachBlobStore("a kept upload that is terminated leaves no bytes behind", async (s) => {
  const alice = await newApiUser(s, "alice");
  refuseCompletions(s.kv);
  const blobsBefore = (await Array.fromAsync(s.blobs.list())).length;
  const run = await tusUpload(alice, testBytes(100 * KiB, 3), { metadata: { filename: "t.bin" } });
  assert.equal(statusOf(run.outcome), 503);
  await Upload.terminate(run.url!, { headers: { authorization: `Bearer ${alice.apiKey}` } });
  assert.equal((await tus(alice, run.url!, { method: "HEAD" })).status, 404);
  assert.equal((await Array.fromAsync(s.blobs.list())).length, blobsBefore);
});
