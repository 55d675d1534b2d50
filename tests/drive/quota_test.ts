import assert from "node:assert/strict";
import { getUsage } from "../../kv/tree/usage.ts";
import { forEachBlobStore, fsBlobFiles, type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { multipartBody, rawHttp } from "../helpers/http.ts";
import { testBytes } from "../helpers/bytes.ts";

/** Blobs the store holds: files of the fs store (temp parts must be gone), records of the kv store. */
async function storedBlobCount(
  server: TestServer,
  opts: { allowTemp?: boolean } = {},
): Promise<number> {
  if (server.blobs.kind === "fs") {
    const files = await fsBlobFiles(server);
    if (opts.allowTemp) return files.blobs.length + files.temp.length;
    assert.deepEqual(files.temp, [], "no temp parts left behind");
    return files.blobs.length;
  }
  const ids = new Set<string>();
  for await (const e of server.kv.list({ prefix: ["blob"] })) ids.add(String(e.key[1]));
  for await (const e of server.kv.list({ prefix: ["blob_chunk"] })) ids.add(String(e.key[1]));
  return ids.size;
}

async function content(user: ApiUser, rs: number): Promise<string> {
  const res = await user.fetch(`/files/${rs}/download`);
  assert.equal(res.status, 200);
  return await res.text();
}

forEachBlobStore("an upload over quota fails and changes nothing", async (server) => {
  const alice = await newApiUser(server, "alice", { quotaBytes: 100_000 });
  assert.equal((await alice.upload("a.bin", testBytes(60_000))).status, 201);
  const over = await alice.upload("b.bin", testBytes(50_000));
  assert.equal(over.status, 403);
  assert.equal(over.body.errorCode, "RESOURCE_015");
  assert.equal(await getUsage(server.kv, alice.userSeq), 60_000);
  assert.equal(await storedBlobCount(server), 1);
  // Exactly filling the quota is allowed.
  assert.equal((await alice.upload("c.bin", testBytes(40_000))).status, 201);
  assert.equal(await getUsage(server.kv, alice.userSeq), 100_000);
  const one = await alice.upload("d.bin", "x");
  assert.equal(one.body.errorCode, "RESOURCE_015");
  const copy = await alice.call(
    "POST",
    `/files/${
      (await alice.upload("e.bin", "")).body.data
        .resourceSeq
    }/copy`,
    {},
  );
  assert.equal(copy.status, 201, "an empty copy fits a full quota");
});

Deno.test("quota is refused from Content-Length before the file's bytes are read", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 1000 });
    const { body, contentType } = multipartBody([
      { name: "file", filename: "huge.bin", bytes: new Uint8Array(0) },
    ], { close: false });
    // The part's headers and its first byte; the parser holds back a trailing CRLF.
    const head = new TextDecoder().decode(body.subarray(0, body.byteLength - 2)) + "x";
    const declared = 50_000_000;
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: new URL(server.url).port as never,
    });
    try {
      const request = `POST /api/external/v1/files HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Authorization: Bearer ${alice.apiKey}\r\nContent-Type: ${contentType}\r\n` +
        `Content-Length: ${declared}\r\n\r\n${head}`;
      await conn.write(new TextEncoder().encode(request));
      // Only the headers and the start of the part were sent; the answer must not wait for more.
      let text = "";
      const buf = new Uint8Array(4096);
      while (!/\r\n\r\n[\s\S]*\}$/.test(text)) {
        const n = await conn.read(buf);
        if (n === null) break;
        text += new TextDecoder().decode(buf.subarray(0, n));
      }
      assert.match(text, /^HTTP\/1\.1 403/);
      assert.match(text, /"errorCode":"RESOURCE_015"/);
    } finally {
      conn.close();
    }
    assert.equal(await getUsage(server.kv, alice.userSeq), 0);
    assert.equal(await storedBlobCount(server), 0);
  });
});

forEachBlobStore("10 concurrent uploads never overshoot the quota", async (server) => {
  const size = 30_000;
  const quota = 4 * size + size / 2; // room for four
  const alice = await newApiUser(server, "alice", { quotaBytes: quota });
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) => alice.upload(`f${i}.bin`, testBytes(size, i + 1))),
  );
  const ok = results.filter((r) => r.status === 201);
  for (const r of results.filter((r) => r.status !== 201)) {
    assert.equal(r.body.errorCode, "RESOURCE_015");
  }
  assert.equal(ok.length, 4, "exactly the uploads that fit succeed");
  const usage = await getUsage(server.kv, alice.userSeq);
  assert.equal(usage, ok.length * size);
  assert.ok(usage <= quota);
  assert.equal(await storedBlobCount(server), ok.length);
  for (const r of ok) {
    const i = Number(r.body.data.resourceName.match(/^f(\d+)/)[1]);
    const res = await alice.fetch(`/files/${r.body.data.resourceSeq}/download`);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), testBytes(size, i + 1));
  }
});

forEachBlobStore("overwrite is credited with the replaced size; version is not", async (server) => {
  const alice = await newApiUser(server, "alice", { quotaBytes: 1000 });
  const rs = await alice.newFile("a.bin", testBytes(800));
  const version = await alice.upload("a.bin", testBytes(900), { st: "version", rs });
  assert.equal(version.status, 403);
  assert.equal(version.body.errorCode, "RESOURCE_015");
  assert.equal(await getUsage(server.kv, alice.userSeq), 800);
  const overwrite = await alice.upload("a.bin", testBytes(900, 2), { st: "overwrite", rs });
  assert.equal(overwrite.status, 201);
  assert.equal(await getUsage(server.kv, alice.userSeq), 900);
  assert.equal(await storedBlobCount(server), 1, "the replaced blob is deleted");
  const res = await alice.fetch(`/files/${rs}/download`);
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), testBytes(900, 2));
});

forEachBlobStore(
  "failed replacements keep the old content and leave no blob behind",
  async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 10_000 });
    const rs = await alice.newFile("a.txt", "original");
    const before = await storedBlobCount(server);
    for (const st of ["overwrite", "version"]) {
      const cut = multipartBody([
        { name: "st", value: st },
        { name: "rs", value: String(rs) },
        { name: "file", filename: "a.txt", bytes: testBytes(5000) },
      ], { close: false });
      const truncated = await alice.fetch("/files", {
        method: "POST",
        headers: { "content-type": cut.contentType },
        body: cut.body,
      });
      assert.equal(truncated.status, 400);
      assert.equal((await truncated.json()).errorCode, "REQUEST_006");
      const tooBig = await alice.upload("a.txt", testBytes(20_000), { st, rs });
      assert.equal(tooBig.body.errorCode, "RESOURCE_015");
    }
    assert.equal(await content(alice, rs), "original");
    assert.equal(await getUsage(server.kv, alice.userSeq), 8);
    assert.equal(await storedBlobCount(server), before);
    const versions = await alice.call("GET", `/files/${rs}/versions`);
    assert.equal(versions.body.data.items.length, 1);
  },
);

forEachBlobStore("copy over quota fails with RESOURCE_015 and stores nothing", async (server) => {
  const alice = await newApiUser(server, "alice", { quotaBytes: 50_000 });
  const rs = await alice.newFile("a.bin", testBytes(30_000));
  const copy = await alice.call("POST", `/files/${rs}/copy`, {});
  assert.equal(copy.status, 403);
  assert.equal(copy.body.errorCode, "RESOURCE_015");
  assert.equal(await getUsage(server.kv, alice.userSeq), 30_000);
  assert.equal(await storedBlobCount(server), 1);
});

forEachBlobStore(
  "a client that disconnects mid-upload leaves the old content and no blob",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await alice.newFile("a.bin", "original");
    const before = await storedBlobCount(server);
    const form = multipartBody([
      { name: "st", value: "overwrite" },
      { name: "rs", value: String(rs) },
      { name: "file", filename: "a.bin", bytes: testBytes(3_000_000) },
    ]);
    await rawHttp(server.url, {
      method: "POST",
      target: "/api/external/v1/files",
      headers: [
        ["authorization", `Bearer ${alice.apiKey}`],
        ["content-type", form.contentType],
        ["content-length", String(form.body.byteLength)],
      ],
      body: form.body,
      abortAfter: 1_500_000,
    });
    // The server notices the disconnect on its own schedule: give it a moment to start writing,
    // then wait (bounded) until whatever it wrote is cleaned up.
    let left = -1;
    for (let i = 0; i < 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      left = await storedBlobCount(server, { allowTemp: true });
      if (i >= 10 && left === before) break;
    }
    assert.equal(left, before);
    assert.equal(await content(alice, rs), "original");
    assert.equal(await getUsage(server.kv, alice.userSeq), 8);
  },
);
