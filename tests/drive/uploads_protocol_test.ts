/**
 * The tus protocol rules of /uploads over raw HTTP, where a client library would hide them:
 * OPTIONS, the version check (412), offsets (409), the body's type and size (415, 413), two
 * PATCHes racing on one upload (one waits, 423, and the bytes stay right), a lock taken before
 * the last PATCH (refused unread, the upload stays resumable), other users and read-only keys,
 * and the OpenAPI document.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { type ApiUser, newApiUser, readOnlyKeyOf } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { forEachBlobStore, type TestServer, withServer } from "../helpers/server.ts";
import { lockAsOffice } from "../helpers/domain.ts";
import { lockKey, uploadKey } from "../../kv/keys.ts";

const TUS = { "tus-resumable": "1.0.0" };
const BODY = { "content-type": "application/offset+octet-stream" };
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const b64 = (text: string) => Buffer.from(text).toString("base64");

/** POST /uploads; returns the upload's path (under /api/external/v1) and the response. */
async function create(
  user: ApiUser,
  length: number,
  metadata: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ path: string; res: Response }> {
  const res = await user.fetch("/uploads", {
    method: "POST",
    headers: {
      ...TUS,
      "upload-length": String(length),
      "upload-metadata": Object.entries(metadata).map(([k, v]) => `${k} ${b64(v)}`).join(","),
      ...headers,
    },
  });
  const location = res.headers.get("location") ?? "";
  return { path: location.replace("/api/external/v1", ""), res };
}

function patch(
  user: ApiUser,
  path: string,
  offset: number,
  body: BodyInit,
  headers: Record<string, string> = {},
): Promise<Response> {
  return user.fetch(path, {
    method: "PATCH",
    headers: { ...TUS, ...BODY, "upload-offset": String(offset), ...headers },
    body,
  });
}

async function offsetOf(user: ApiUser, path: string): Promise<number> {
  const res = await user.fetch(path, { method: "HEAD", headers: TUS });
  assert.equal(res.status, 200);
  return Number(res.headers.get("upload-offset"));
}

// deno-lint-ignore no-explicit-any
async function errorCode(res: Response): Promise<any> {
  return (await res.json()).errorCode;
}

async function fileOf(server: TestServer, user: ApiUser, path: string) {
  const res = await user.fetch(path);
  const data = (await res.json()).data;
  return { data, bytes: await contentOf(server, user, data.file?.resourceSeq) };
}

async function contentOf(_server: TestServer, user: ApiUser, rs: number | undefined) {
  if (rs === undefined) return null;
  const res = await user.fetch(`/files/${rs}/download`);
  return new Uint8Array(await res.arrayBuffer());
}

Deno.test("OPTIONS advertises tus 1.0.0, its extensions and limits", async () => {
  await withServer(async (s) => {
    const alice = await newApiUser(s, "alice");
    const res = await alice.fetch("/uploads", { method: "OPTIONS" });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("tus-resumable"), "1.0.0");
    assert.equal(res.headers.get("tus-version"), "1.0.0");
    assert.deepEqual(res.headers.get("tus-extension")!.split(",").sort(), [
      "checksum",
      "creation",
      "creation-with-upload",
      "expiration",
      "termination",
    ]);
    assert.equal(res.headers.get("tus-max-size"), String(s.config.uploadMaxBytes));
    assert.equal(res.headers.get("tus-checksum-algorithm"), "sha256");
  });
});

Deno.test("bad requests get their status and code, never a 500", async () => {
  await withServer(async (s) => {
    const alice = await newApiUser(s, "alice");
    // No Tus-Resumable: 412 naming the version.
    const noVersion = await alice.fetch("/uploads", {
      method: "POST",
      headers: { "upload-length": "3" },
    });
    assert.equal(noVersion.status, 412);
    assert.equal(noVersion.headers.get("tus-version"), "1.0.0");
    assert.equal(await errorCode(noVersion), "UPLOAD_005");
    // Missing or malformed Upload-Length, deferred length, bad metadata.
    for (
      const headers of [
        { ...TUS },
        { ...TUS, "upload-length": "-1" },
        { ...TUS, "upload-defer-length": "1" },
        { ...TUS, "upload-length": "3", "upload-metadata": "filename not*base64" },
        { ...TUS, "upload-length": "3", "upload-metadata": `filename ${b64("a")},filename x` },
        { ...TUS, "upload-length": "3", "upload-metadata": `filename ${b64("a")},pfs ${b64("x")}` },
      ]
    ) {
      const res = await alice.fetch("/uploads", { method: "POST", headers });
      assert.equal(res.status, 400, JSON.stringify(headers));
      assert.equal(await errorCode(res), "REQUEST_001");
    }
    // Over Tus-Max-Size; a bad name (the multipart upload's code).
    const big = await create(alice, s.config.uploadMaxBytes + 1, { filename: "a" });
    assert.equal(big.res.status, 413);
    const badName = await create(alice, 3, { filename: "a/b" });
    assert.equal(await errorCode(badName.res), "RESOURCE_004");

    const { path, res } = await create(alice, 10, { filename: "a.bin" });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("upload-offset"), "0");
    assert.ok(Date.parse(res.headers.get("upload-expires")!) > Date.now());
    // Wrong offset: 409; wrong type: 415; more than Upload-Length: 413.
    const wrongOffset = await patch(alice, path, 3, "abc");
    assert.equal(wrongOffset.status, 409);
    assert.equal(await errorCode(wrongOffset), "UPLOAD_002");
    const wrongType = await patch(alice, path, 0, "abc", { "content-type": "text/plain" });
    assert.equal(wrongType.status, 415);
    await wrongType.body?.cancel();
    const tooLong = await patch(alice, path, 0, "0123456789x");
    assert.equal(tooLong.status, 413);
    await tooLong.body?.cancel();
    const badChecksum = await patch(alice, path, 0, "abc", { "upload-checksum": "md5 abc=" });
    assert.equal(badChecksum.status, 400);
    await badChecksum.body?.cancel();
    assert.equal(await offsetOf(alice, path), 0);
    // Still whole: the right bytes complete it.
    const first = await patch(alice, path, 0, "01234");
    assert.equal(first.status, 204);
    assert.equal(first.headers.get("upload-offset"), "5");
    const last = await patch(alice, path, 5, "56789", {
      "upload-checksum": `sha256 ${createHash("sha256").update("56789").digest("base64")}`,
    });
    assert.equal(last.status, 204);
    assert.equal(last.headers.get("upload-offset"), "10");
    const done = await fileOf(s, alice, path);
    assert.equal(done.data.state, "completed");
    assert.equal(new TextDecoder().decode(done.bytes!), "0123456789");
    // A completed upload takes no more bytes.
    const after = await patch(alice, path, 10, "x");
    assert.equal(after.status, 413);
    await after.body?.cancel();
  });
});

Deno.test("uploads belong to their user; a read-only key cannot upload", async () => {
  await withServer(async (s) => {
    const alice = await newApiUser(s, "alice");
    const bob = await newApiUser(s, "bob");
    const { path } = await create(alice, 3, { filename: "a.bin" });
    for (const method of ["HEAD", "GET", "DELETE"]) {
      const res = await bob.fetch(path, { method, headers: TUS });
      assert.equal(res.status, 404, method);
      await res.body?.cancel();
    }
    const res = await patch(bob, path, 0, "abc");
    assert.equal(res.status, 404);
    assert.equal(await errorCode(res), "UPLOAD_001");
    const reader = await readOnlyKeyOf(s, alice);
    const refused = await create(reader, 3, { filename: "b.bin" });
    assert.equal(refused.res.status, 403);
    assert.equal(await errorCode(refused.res), "AUTH_003");
    const noKey = await fetch(`${s.url}/api/external/v1${path}`, { method: "HEAD", headers: TUS });
    assert.equal(noKey.status, 401);
  });
});

forEachBlobStore(
  "two PATCHes racing on one upload: one waits (423), bytes stay right",
  async (s) => {
    const alice = await newApiUser(s, "alice");
    const bytes = testBytes(4 * 1024 * 1024, 12);
    const { path } = await create(alice, bytes.byteLength, { filename: "race.bin" });
    // The first PATCH streams slowly, so the second arrives while it holds the upload.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const half = bytes.byteLength / 2;
    const slow = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(bytes.slice(0, 1024 * 1024));
        await gate;
        c.enqueue(bytes.slice(1024 * 1024, half));
        c.close();
      },
    });
    const first = patch(alice, path, 0, slow, { "content-length": String(half) });
    // Wait until the first one holds the upload (its claim is in KV).
    for (let i = 0; i < 200; i++) {
      const rec = (await s.kv.get<{ claim: unknown }>(uploadKey(path.split("/").pop()!))).value;
      if (rec?.claim) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const second = await patch(alice, path, 0, testBytes(half, 99));
    assert.equal(second.status, 423);
    assert.equal(await errorCode(second), "UPLOAD_003");
    release();
    assert.equal((await first).status, 204);
    const rest = await patch(alice, path, half, bytes.slice(half));
    assert.equal(rest.status, 204);
    const done = await fileOf(s, alice, path);
    assert.equal(sha(done.bytes!), sha(bytes));
  },
);

Deno.test("a lock taken before the last PATCH refuses it unread; the upload resumes later", async () => {
  await withServer(async (s) => {
    const alice = await newApiUser(s, "alice");
    const rs = await alice.newFile("doc.txt", "old");
    const { path } = await create(alice, 6, { st: "version", rs: String(rs) });
    assert.equal((await patch(alice, path, 0, "new")).status, 204);
    await lockAsOffice(s.kv, rs, 1, "bob", 60_000);
    const locked = await patch(alice, path, 3, "!!!");
    assert.equal(locked.status, 409);
    assert.equal(await errorCode(locked), "RESOURCE_010");
    assert.equal(await offsetOf(alice, path), 3);
    await s.kv.delete(lockKey(rs));
    assert.equal((await patch(alice, path, 3, "!!!")).status, 204);
    const done = await fileOf(s, alice, path);
    assert.equal(done.data.file.resourceSeq, rs);
    assert.equal(new TextDecoder().decode(done.bytes!), "new!!!");
  });
});

Deno.test("creation-with-upload stores the first bytes; an empty upload commits at once", async () => {
  await withServer(async (s) => {
    const alice = await newApiUser(s, "alice");
    const res = await alice.fetch("/uploads", {
      method: "POST",
      headers: {
        ...TUS,
        ...BODY,
        "upload-length": "6",
        "upload-metadata": `filename ${b64("w.txt")}`,
      },
      body: "hel",
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("upload-offset"), "3");
    const path = res.headers.get("location")!.replace("/api/external/v1", "");
    assert.equal((await patch(alice, path, 3, "lo!")).status, 204);
    assert.equal(new TextDecoder().decode((await fileOf(s, alice, path)).bytes!), "hello!");

    const empty = await create(alice, 0, { filename: "empty.txt" });
    assert.equal(empty.res.status, 201);
    const done = await fileOf(s, alice, empty.path);
    assert.equal(done.data.state, "completed");
    assert.equal(done.bytes!.byteLength, 0);
  });
});

Deno.test("the OpenAPI document describes the tus endpoints", async () => {
  await withServer(async (s) => {
    const doc = await (await fetch(`${s.url}/api/external/v1/openapi.json`)).json();
    const ops = doc.paths["/uploads"];
    assert.ok(ops.options && ops.post, "OPTIONS and POST /uploads");
    assert.equal(ops.post.operationId, "tusCreateUpload");
    assert.ok(ops.post.parameters.some((p: { name: string }) => p.name === "upload-length"));
    assert.ok(ops.post.responses["201"].headers.Location);
    const one = doc.paths["/uploads/{uploadId}"];
    for (const method of ["head", "patch", "delete", "get"]) assert.ok(one[method], method);
    assert.ok(one.patch.requestBody.content["application/offset+octet-stream"]);
    assert.ok(one.patch.responses["460"], "checksum mismatch documented");
    assert.ok(one.patch.responses["409"] && one.patch.responses["423"]);
    assert.ok(one.head.responses["200"].headers["Upload-Offset"]);
  });
});
