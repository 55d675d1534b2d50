/**
 * Resumable uploads with the real tus-js-client (tests/helpers/tus.ts) against /uploads, on both
 * blob stores: a chunked upload, an interrupted one resumed by a new client instance from its
 * stored URL, a checksum mismatch (460), expiry, termination, quota, and every `st` mode.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { forEachBlobStore, type TestServer, withServer } from "../helpers/server.ts";
import { statusOf, throttled, tusUpload, Upload } from "../helpers/tus.ts";
import type { ApiUser } from "../helpers/api.ts";
import { removeExpiredUploads } from "../../kv/tree/uploads.ts";

const KiB = 1024;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** GET /uploads/{id} for the upload at `url`. */
// deno-lint-ignore no-explicit-any
async function status(user: ApiUser, url: string): Promise<{ status: number; body: any }> {
  const res = await user.fetch(new URL(url).pathname.replace("/api/external/v1", ""));
  return { status: res.status, body: await res.json() };
}

/** HEAD on the upload: its status and Upload-Offset. */
async function head(user: ApiUser, url: string): Promise<{ status: number; offset: number }> {
  const res = await fetch(url, {
    method: "HEAD",
    headers: { authorization: `Bearer ${user.apiKey}`, "tus-resumable": "1.0.0" },
  });
  return { status: res.status, offset: Number(res.headers.get("upload-offset") ?? -1) };
}

async function download(user: ApiUser, rs: number): Promise<Uint8Array> {
  const res = await user.fetch(`/files/${rs}/download`);
  assert.equal(res.status, 200);
  return new Uint8Array(await res.arrayBuffer());
}

/** A 200 KiB upload of `filename` stopped after its first 64 KiB chunk, left to resume. */
async function abortedUpload(user: ApiUser, filename: string, seed: number) {
  const bytes = testBytes(200 * KiB, seed);
  const run = await tusUpload(user, bytes, {
    metadata: { filename },
    chunkSize: 64 * KiB,
    abortAfter: 64 * KiB,
  });
  assert.equal(run.outcome, "aborted");
  return { run, bytes };
}

/** Stored things besides committed blobs: staged bytes (fs stage files or kv stage markers). */
async function stagedCount(server: TestServer): Promise<number> {
  if (server.config.blobStore === "fs") {
    let n = 0;
    for await (const _ of Deno.readDir(`${server.config.dataDir}/blobs/staging`)) n++;
    return n;
  }
  let n = 0;
  for await (const _ of server.kv.list({ prefix: ["blob_pending"] })) n++;
  return n;
}

forEachBlobStore("tus-js-client uploads in chunks; GET /uploads/{id} names the file", async (s) => {
  const alice = await newApiUser(s, "alice");
  const folder = await alice.newFolder("Inbox");
  const bytes = testBytes(700 * KiB + 3, 4);
  const run = await tusUpload(alice, bytes, {
    chunkSize: 256 * KiB,
    metadata: { filename: "report.bin", pfs: String(folder) },
  });
  assert.equal(run.outcome, "success");
  const { status: code, body } = await status(alice, run.url!);
  assert.equal(code, 200);
  assert.equal(body.data.state, "completed");
  assert.equal(body.data.offset, bytes.byteLength);
  assert.equal(body.data.file.resourceName, "report.bin");
  const rs = body.data.file.resourceSeq;
  const meta = await alice.call("GET", `/resources/${rs}`);
  assert.equal(meta.body.data.sha256, sha(bytes));
  assert.equal(meta.body.data.parentSeq, folder);
  assert.deepEqual(await download(alice, rs), bytes);
  assert.equal(await stagedCount(s), 0);
});

forEachBlobStore("an interrupted upload resumes from a new client with its URL", async (s) => {
  const alice = await newApiUser(s, "alice");
  const bytes = testBytes(3 * 1024 * KiB + 17, 9);
  // One PATCH for everything, sent slowly: the abort cuts it mid-body.
  const first = await tusUpload(alice, throttled(bytes, 64 * KiB, 2), {
    uploadSize: bytes.byteLength,
    chunkSize: bytes.byteLength,
    metadata: { filename: "big.bin" },
    abortAfter: 1024 * KiB,
  });
  assert.equal(first.outcome, "aborted");
  assert.ok(first.url);
  // The server kept what reached it before the cut (eventually: it notices the cut).
  let kept = 0;
  for (let i = 0; i < 50 && kept === 0; i++) {
    const h = await head(alice, first.url);
    assert.equal(h.status, 200);
    kept = h.offset;
    if (kept === 0) await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(kept > 0 && kept < bytes.byteLength, `kept ${kept}`);
  const second = await tusUpload(alice, bytes, { uploadUrl: first.url });
  assert.equal(second.outcome, "success");
  assert.equal(second.url, first.url);
  const { body } = await status(alice, first.url);
  assert.deepEqual(await download(alice, body.data.file.resourceSeq), bytes);
});

forEachBlobStore("a wrong Upload-Checksum is 460 and its bytes are discarded", async (s) => {
  const alice = await newApiUser(s, "alice");
  const bytes = testBytes(300 * KiB, 2);
  const wrong = Buffer.from(new Uint8Array(32)).toString("base64");
  const run = await tusUpload(alice, bytes, {
    metadata: { filename: "c.bin" },
    chunkSize: 100 * KiB,
    onBeforeRequest(req) {
      if (req.getMethod() === "PATCH") req.setHeader("Upload-Checksum", `sha256 ${wrong}`);
    },
  });
  assert.equal(statusOf(run.outcome), 460);
  assert.equal((await head(alice, run.url!)).offset, 0);
  // The right digest per chunk is accepted.
  const ok = await tusUpload(alice, bytes, {
    uploadUrl: run.url!,
    chunkSize: 100 * KiB,
    onBeforeRequest(req) {
      if (req.getMethod() !== "PATCH") return;
      const offset = Number(req.getHeader("Upload-Offset"));
      const piece = bytes.subarray(offset, offset + 100 * KiB);
      req.setHeader(
        "Upload-Checksum",
        `sha256 ${createHash("sha256").update(piece).digest("base64")}`,
      );
    },
  });
  assert.equal(ok.outcome, "success");
  const { body } = await status(alice, run.url!);
  assert.deepEqual(await download(alice, body.data.file.resourceSeq), bytes);
});

forEachBlobStore("termination ends the upload and removes its bytes", async (s) => {
  const alice = await newApiUser(s, "alice");
  const { run } = await abortedUpload(alice, "t.bin", 5);
  assert.equal(await stagedCount(s), 1);
  await Upload.terminate(run.url!, { headers: { authorization: `Bearer ${alice.apiKey}` } });
  assert.equal((await head(alice, run.url!)).status, 404);
  assert.equal(await stagedCount(s), 0);
  const listing = await alice.call("GET", "/resources");
  assert.equal(listing.status, 200);
});

Deno.test("expired uploads answer 410, then go with their bytes", async () => {
  await withServer(async (s) => {
    const alice = await newApiUser(s, "alice");
    const { run, bytes } = await abortedUpload(alice, "e.bin", 6);
    const expires = (await fetch(run.url!, {
      method: "HEAD",
      headers: { authorization: `Bearer ${alice.apiKey}`, "tus-resumable": "1.0.0" },
    })).headers.get("upload-expires");
    assert.ok(expires && !Number.isNaN(Date.parse(expires)));
    // The upload (kept 3 s, so a loaded machine cannot expire it before the HEAD above) expires
    // by itself: wait for that, bounded, rather than for a fixed time.
    const deadline = Date.now() + 15_000;
    for (
      let at = await head(alice, run.url!);
      at.status !== 410;
      at = await head(alice, run.url!)
    ) {
      assert.equal(at.status, 200, "before it expires, the upload is still there");
      assert.ok(Date.now() < deadline, "the upload did not expire within 15 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await status(alice, run.url!)).body.data.state, "expired");
    assert.equal(await removeExpiredUploads(s.deps), 1);
    assert.equal((await head(alice, run.url!)).status, 404);
    assert.equal(await stagedCount(s), 0);
    // tus-js-client starts over when its stored upload is gone.
    const again = await tusUpload(alice, bytes, {
      uploadUrl: run.url!,
      metadata: { filename: "e.bin" },
    });
    assert.equal(again.outcome, "success");
    assert.notEqual(again.url, run.url);
  }, { env: { DRIVE_UPLOAD_EXPIRY_S: "3" } });
});

forEachBlobStore("quota is checked against Upload-Length at creation", async (s) => {
  const alice = await newApiUser(s, "alice", { quotaBytes: 100 * KiB });
  const run = await tusUpload(alice, testBytes(150 * KiB, 1), { metadata: { filename: "q.bin" } });
  assert.equal(statusOf(run.outcome), 403);
  assert.match(String(run.outcome), /RESOURCE_015/);
  assert.equal(run.url, null);
  assert.equal(await stagedCount(s), 0);
});

forEachBlobStore("every st mode commits as POST /files does", async (s) => {
  const alice = await newApiUser(s, "alice");
  const rs = await alice.newFile("doc.txt", "v1");
  const upload = async (text: string, metadata: Record<string, string>) => {
    const run = await tusUpload(alice, new TextEncoder().encode(text), { metadata });
    assert.equal(run.outcome, "success", String(run.outcome));
    return (await status(alice, run.url!)).body.data.file;
  };
  // duplicate: a name clash gets the multipart upload's "name (1).ext".
  const dup = await upload("dup", { filename: "doc.txt" });
  assert.equal(dup.resourceName, "doc (1).txt");
  // version: a new version of rs, the old one kept.
  const ver = await upload("v2!", { filename: "ignored", st: "version", rs: String(rs) });
  assert.equal(ver.resourceSeq, rs);
  const versions = await alice.call("GET", `/files/${rs}/versions`);
  assert.equal(versions.body.data.items?.length ?? versions.body.data.length, 2);
  // overwrite: replaces the content, no new version kept.
  await upload("v3!!", { st: "overwrite", rs: String(rs) });
  assert.equal(new TextDecoder().decode(await download(alice, rs)), "v3!!");
  const after = await alice.call("GET", `/files/${rs}/versions`);
  assert.equal(after.body.data.items?.length ?? after.body.data.length, 2);
  // The same codes as POST /files: version without rs.
  const bad = await tusUpload(alice, new Uint8Array(3), { metadata: { st: "version" } });
  assert.equal(statusOf(bad.outcome), 400);
  assert.match(String(bad.outcome), /RESOURCE_016/);
});
