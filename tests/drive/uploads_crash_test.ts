/**
 * A server killed (kill -9) in the middle of a tus PATCH (issue 22, item 3): after a restart
 * HEAD tells nearly all the bytes the server had received (the offset of the bytes synced to
 * disk is committed as the request goes), the dead request's claim lapses within seconds (423
 * until then, measured and printed), and the client resuming from HEAD's offset ends with a
 * file of the right SHA-256.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { type MainProcess, startMain } from "../helpers/process.ts";
import { tusUpload } from "../helpers/tus.ts";
import { until } from "../helpers/wait.ts";

const MiB = 1024 * 1024;
const SIZE = 48 * MiB;
/** Bytes sent before the kill: most of the upload, in one PATCH still running. */
const KILL_AFTER = 36 * MiB;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** `bytes` as a request body sending 64 KiB every 15 ms (~4 MB/s), counting what it sent. */
function slowBody(bytes: Uint8Array, sent: { bytes: number }): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    async pull(c) {
      await new Promise((r) => setTimeout(r, 15));
      if (off >= bytes.byteLength) return c.close();
      const piece = bytes.slice(off, off + 64 * 1024);
      c.enqueue(piece);
      off += piece.byteLength;
      sent.bytes = off;
    },
  });
}

/** The size of the one stage file: what the server had written of the upload. */
async function stagedBytes(dir: string): Promise<number> {
  const files = await Array.fromAsync(Deno.readDir(`${dir}/blobs/staging`));
  assert.equal(files.length, 1);
  return (await Deno.stat(`${dir}/blobs/staging/${files[0].name}`)).size;
}

Deno.test("kill -9 mid-PATCH: HEAD keeps the received bytes, the upload resumes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tus-crash-" });
  const env = { DRIVE_DATA_DIR: dir, DRIVE_ADMIN_TOKEN: ADMIN_TOKEN, DRIVE_BLOB_STORE: "fs" };
  let main: MainProcess | null = await startMain(env);
  try {
    const admin = new AdminClient(main.url);
    const tenant = await admin.createTenant("t");
    const user = await admin.createUser(tenant.id, "alice");
    const key = await admin.createKey(user.userSeq);
    const headers = { authorization: `Bearer ${key}`, "tus-resumable": "1.0.0" };
    const bytes = testBytes(SIZE, 31);
    const created = await fetch(`${main.url}/api/external/v1/uploads`, {
      method: "POST",
      headers: {
        ...headers,
        "upload-length": String(SIZE),
        "upload-metadata": `filename ${Buffer.from("crash.bin").toString("base64")}`,
      },
    });
    assert.equal(created.status, 201);
    const path = new URL(created.headers.get("location")!, main.url).pathname;
    const sent = { bytes: 0 };
    const patch = fetch(`${main.url}${path}`, {
      method: "PATCH",
      headers: {
        ...headers,
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
      },
      body: slowBody(bytes, sent),
    }).then((r) => r.body?.cancel(), () => {});
    await until(
      "most of the upload sent",
      () => Promise.resolve(sent.bytes >= KILL_AFTER),
      120_000,
    );
    await main.kill();
    const killedAt = Date.now();
    main = null;
    await patch;
    const received = await stagedBytes(dir);

    main = await startMain(env);
    const url = `${main.url}${path}`;
    const head = await fetch(url, { method: "HEAD", headers });
    assert.equal(head.status, 200);
    const offset = Number(head.headers.get("upload-offset"));
    // The dead request's claim: 423 until it lapses. An empty PATCH at the offset probes it.
    let locked = 0;
    for (;;) {
      const res = await fetch(url, {
        method: "PATCH",
        headers: {
          ...headers,
          "upload-offset": String(offset),
          "content-type": "application/offset+octet-stream",
        },
        body: "",
      });
      await res.body?.cancel();
      if (res.status !== 423) {
        assert.equal(res.status, 204);
        break;
      }
      locked++;
      assert.ok(Date.now() - killedAt < 60_000, "the dead request's claim never lapsed");
      await new Promise((r) => setTimeout(r, 100));
    }
    const waited = Date.now() - killedAt;
    console.log(
      `sent ${sent.bytes} bytes, the server wrote ${received}; after kill -9 HEAD says ${offset} ` +
        `(${(100 * offset / received).toFixed(1)} %); 423 for ${waited} ms after the kill ` +
        `(${locked} probes refused)`,
    );
    assert.ok(offset >= 0.9 * received, `offset ${offset} of ${received} received`);
    assert.ok(waited < 15_000, `the claim of the dead process held ${waited} ms`);

    const alice = new ApiUser(main.url, user.userSeq, tenant.id, key, "alice");
    const resumed = await tusUpload(alice, bytes, { uploadUrl: url });
    assert.equal(resumed.outcome, "success", String(resumed.outcome));
    const status = await (await alice.fetch(path.replace("/api/external/v1", ""))).json();
    const meta = await alice.call("GET", `/resources/${status.data.file.resourceSeq}`);
    assert.equal(meta.body.data.sha256, sha(bytes));
    assert.equal(meta.body.data.size, SIZE);
  } finally {
    await main?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
