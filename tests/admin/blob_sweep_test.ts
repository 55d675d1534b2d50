/**
 * The orphan blob sweep (POST /admin/api/blobs/sweep) on both blob stores: old blobs nothing
 * points at go (after a dry run that counts exactly what the real run removes), every file's
 * bytes and every older version stay, young blobs stay, unfinished writes left by a crash are
 * cleared once their writer's lease lapses (a process killed mid-upload), a live write on another
 * process is never touched, bad input is a 400 naming the field.
 */
import assert from "node:assert/strict";
import { BlobNotFoundError, type BlobStore } from "../../blobs/store.ts";
import { getResource } from "../../kv/tree/resources.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import { forEachBlobStore, startTestServer, type TestServer } from "../helpers/server.ts";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { startMain } from "../helpers/process.ts";
import { outliveWriterLease, until, untilValue } from "../helpers/wait.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Stores bytes with no record pointing at them: what a crash before the commit leaves. */
async function strayBlob(server: TestServer, bytes: Uint8Array): Promise<string> {
  return (await server.blobs.write(new Blob([bytes.slice()]).stream())).blobId;
}

/** Makes a blob look `ageMs` old to the sweep, the way each store records age. */
async function age(server: TestServer, blobId: string, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  if (server.blobs.kind === "fs") {
    await Deno.utime(`${server.config.dataDir}/blobs/${blobId.slice(0, 2)}/${blobId}`, then, then);
  } else {
    const rec = await server.kv.get<{ storedAt: number }>(["blob", blobId]);
    await server.kv.set(["blob", blobId], { ...rec.value!, storedAt: then.getTime() });
  }
}

/** Leaves the remains of a write that a crash stopped half-way, started `ageMs` ago. */
async function abandonedWrite(server: TestServer, ageMs: number): Promise<void> {
  const then = new Date(Date.now() - ageMs);
  if (server.blobs.kind === "fs") {
    const path = `${server.config.dataDir}/blobs/tmp/${crypto.randomUUID()}.part`;
    await Deno.writeFile(path, testBytes(1000));
    await Deno.utime(path, then, then);
  } else {
    const id = crypto.randomUUID().replaceAll("-", "");
    await server.kv.set(["blob_chunk", id, 0], testBytes(1000));
    await server.kv.set(["blob_pending", id], then.getTime());
  }
}

async function exists(blobs: BlobStore, blobId: string): Promise<boolean> {
  try {
    await (await blobs.read(blobId)).cancel();
    return true;
  } catch (err) {
    if (err instanceof BlobNotFoundError) return false;
    throw err;
  }
}

forEachBlobStore(
  "blob sweep: a dry run counts, a real run removes only old unreferenced blobs and crash leftovers",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const kept = await alice.newFile("kept.bin", testBytes(70_000, 3));
    // Two versions: the older one is referenced by its version record only.
    const versioned = await alice.newFile("v.txt", "first");
    const v2 = await alice.upload("v.txt", "second", { st: "version", rs: versioned });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    const trashed = await alice.newFile("trashed.txt", "in the trash, still restorable");
    assert.equal((await alice.call("PATCH", `/files/${trashed}/delete`)).status, 200);
    const referenced = [
      (await getResource(server.kv, kept))!.blobId!,
      ...(await listVersions(server.kv, versioned)).map((v) => v.blobId),
      (await getResource(server.kv, trashed))!.blobId!,
    ];
    assert.equal(referenced.length, 4);
    for (const blobId of referenced) await age(server, blobId, 3 * DAY_MS);

    const old1 = await strayBlob(server, testBytes(100_000, 7));
    const old2 = await strayBlob(server, testBytes(5, 8));
    await age(server, old1, 2 * DAY_MS);
    await age(server, old2, 30 * DAY_MS);
    const young = await strayBlob(server, testBytes(10, 9));
    await age(server, young, 60 * 60 * 1000);
    await abandonedWrite(server, 2 * DAY_MS);

    const dry = await server.admin.call("POST", "/blobs/sweep", { dryRun: true });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.deepEqual(dry.body, {
      dryRun: true,
      blobs: 7,
      tooYoung: 1,
      orphans: 2,
      orphanBytes: 100_005,
      removed: 0,
      // What the real run below clears: a dry run counts the same selection.
      abandonedWrites: 1,
    });
    assert.ok(await exists(server.blobs, old1), "a dry run removes nothing");

    // No body at all: the defaults (a real run, blobs older than 24 hours).
    const res = await fetch(`${server.url}/admin/api/blobs/sweep`, {
      method: "POST",
      headers: { authorization: `Bearer ${new AdminClient(server.url).token}` },
    });
    const run = await res.json();
    assert.equal(res.status, 200, JSON.stringify(run));
    assert.deepEqual(run, { ...dry.body, dryRun: false, removed: 2 });
    assert.equal(await exists(server.blobs, old1), false);
    assert.equal(await exists(server.blobs, old2), false);
    assert.ok(await exists(server.blobs, young), "a young blob may be an upload about to commit");
    for (const blobId of referenced) assert.ok(await exists(server.blobs, blobId), blobId);

    // The files still read back whole, through the API.
    const download = await alice.fetch(`/files/${kept}/download`);
    assert.equal(download.status, 200);
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), testBytes(70_000, 3));
    const restored = await alice.call("POST", `/trash/${trashed}/restore`);
    assert.equal(restored.status, 200, JSON.stringify(restored.body));

    // A shorter minimum age reaches the young blob; nothing else is left to remove.
    const again = await server.admin.call("POST", "/blobs/sweep", { minAgeHours: 1 });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.orphans, 1);
    assert.equal(again.body.removed, 1);
    assert.equal(again.body.abandonedWrites, 0);
    assert.equal(await exists(server.blobs, young), false);
  },
);

forEachBlobStore(
  "blob sweep: bad input is a 400 naming the field; no admin token is 401",
  async (server) => {
    const cases: [unknown, string][] = [
      [{ minAgeHours: 0 }, "minAgeHours"],
      [{ minAgeHours: 1.5 }, "minAgeHours"],
      [{ minAgeHours: "24" }, "minAgeHours"],
      [{ minAgeHours: 9000 }, "minAgeHours"],
      [{ dryRun: "yes" }, "dryRun"],
      [{ force: true }, "force"],
    ];
    const stray = await strayBlob(server, testBytes(10));
    await age(server, stray, 2 * DAY_MS);
    for (const [body, field] of cases) {
      const res = await server.admin.call("POST", "/blobs/sweep", body);
      assert.equal(res.status, 400, JSON.stringify(body));
      // An unknown key is named in the message; the others are the offending field itself.
      if (field !== "force") assert.equal(res.body.field, field);
      assert.match(res.body.message, new RegExp(field));
    }
    const anonymous = await new AdminClient(server.url, "wrong-token").call("POST", "/blobs/sweep");
    assert.equal(anonymous.status, 401);
    assert.ok(await exists(server.blobs, stray), "no refused request removed anything");
  },
);

const MiB = 1024 * 1024;

/**
 * POST /files whose body sends the multipart head and the first half of `bytes`, then stalls
 * until `finish()` sends the rest. The server stores the upload as it arrives, so meanwhile a
 * write is in progress.
 */
function stalledUpload(url: string, apiKey: string, name: string, bytes: Uint8Array) {
  const boundary = "----stalled-upload-boundary";
  const enc = new TextEncoder();
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const half = bytes.byteLength >> 1;
  const pieces = [head, bytes.slice(0, half)];
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const ac = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      const next = pieces.shift();
      if (next) return c.enqueue(next);
      await finished;
      c.enqueue(bytes.slice(half));
      c.enqueue(enc.encode(`\r\n--${boundary}--\r\n`));
      c.close();
    },
  });
  const response = fetch(`${url}/api/external/v1/files`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "content-type": `multipart/form-data; boundary=${boundary}`,
    },
    body,
    signal: ac.signal,
  });
  // The server may be killed mid-request: that rejection is expected, not an uncaught error.
  response.catch(() => {});
  return {
    response,
    finish,
    /** Gives up on the request (its server is gone). */
    async abandon() {
      ac.abort();
      finish();
      await response.then((r) => r.body?.cancel(), () => {});
    },
  };
}

/**
 * What unfinished writes left in the store: temp files (fs), or chunks of blobs that have no
 * record (kv).
 */
async function unfinishedWrites(server: TestServer): Promise<number> {
  if (server.blobs.kind === "fs") {
    let n = 0;
    for await (const _ of Deno.readDir(`${server.config.dataDir}/blobs/tmp`)) n++;
    return n;
  }
  const ids = new Set<string>();
  for await (const e of server.kv.list({ prefix: ["blob_chunk"] }, { limit: 10_000 })) {
    ids.add(e.key[1] as string);
  }
  let n = 0;
  for (const id of ids) if (!(await server.kv.get(["blob", id])).value) n++;
  return n;
}

async function sweep(server: TestServer, body: unknown) {
  const res = await server.admin.call("POST", "/blobs/sweep", body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

for (const blobStore of ["fs", "kv"] as const) {
  Deno.test(
    `blob sweep: an upload killed mid-write (kill -9) is found by the dry run and removed by the real run within seconds of its lease lapsing [${blobStore} blobs]`,
    async () => {
      const dir = await Deno.makeTempDir({ prefix: "drive-killed-write-" });
      const shared = { DRIVE_DATA_DIR: dir, DRIVE_KV: `${dir}/drive.kv` };
      const server = await startTestServer({ blobStore, kvPath: shared.DRIVE_KV, env: shared });
      try {
        const alice = await newApiUser(server, "alice");
        // The killed process renews its write leases every 200 ms and promises them for 3 s (long
        // enough that a loaded machine cannot make it lapse between the kill and the first sweep).
        const doomed = await startMain({
          DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
          ...shared,
          DRIVE_BLOB_STORE: blobStore,
          DRIVE_WRITE_LEASE_RENEW_MS: "200",
          DRIVE_WRITE_LEASE_EXPIRY_MS: "3000",
        });
        const upload = stalledUpload(doomed.url, alice.apiKey, "big.bin", testBytes(4 * MiB, 5));
        await until(
          "the upload's first bytes to be stored",
          async () => (await unfinishedWrites(server)) > 0,
        );
        await doomed.kill();
        await upload.abandon();

        // Its lease was renewed moments ago: as far as anyone can tell, a live write.
        assert.equal((await sweep(server, { dryRun: true })).abandonedWrites, 0);
        // Seconds later the lease has lapsed: the dry run reports the write...
        const dry = await untilValue("the dry run to report the killed write", async () => {
          const body = await sweep(server, { dryRun: true });
          return body.abandonedWrites > 0 ? body : null;
        });
        assert.equal(dry.abandonedWrites, 1);
        assert.ok((await unfinishedWrites(server)) > 0, "a dry run removes nothing");
        // ...and the real run removes exactly that, without waiting for any minimum age.
        const run = await sweep(server, {});
        assert.deepEqual(run, { ...dry, dryRun: false });
        assert.equal(await unfinishedWrites(server), 0);
        assert.equal((await sweep(server, { dryRun: true })).abandonedWrites, 0);
      } finally {
        await server.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  );

  Deno.test(
    `blob sweep: a live upload stalled on another process long past its lease period is not touched, and completes [${blobStore} blobs]`,
    async () => {
      const dir = await Deno.makeTempDir({ prefix: "drive-live-write-" });
      const shared = { DRIVE_DATA_DIR: dir, DRIVE_KV: `${dir}/drive.kv` };
      const a = await startTestServer({ blobStore, kvPath: shared.DRIVE_KV, env: shared });
      // B renews every 100 ms a lease it promises for 1 s (a renewal timer a loaded machine runs
      // late must not make it lapse); its upload stalls until B renewed the lease a whole period
      // past where the first one reached.
      const b = await startTestServer({
        blobStore,
        kvPath: shared.DRIVE_KV,
        env: { ...shared, DRIVE_WRITE_LEASE_RENEW_MS: "100", DRIVE_WRITE_LEASE_EXPIRY_MS: "1000" },
      });
      let upload: ReturnType<typeof stalledUpload> | null = null;
      try {
        const alice = await newApiUser(a, "alice");
        const bytes = testBytes(3 * MiB, 6);
        upload = stalledUpload(b.url, alice.apiKey, "slow.bin", bytes);
        await until(
          "the upload's first bytes to be stored",
          async () => (await unfinishedWrites(a)) > 0,
        );
        await outliveWriterLease(a.kv);
        const dry = await sweep(a, { dryRun: true });
        const run = await sweep(a, {});
        assert.equal(dry.abandonedWrites, 0, JSON.stringify(dry));
        assert.deepEqual(run, { ...dry, dryRun: false });
        assert.ok((await unfinishedWrites(a)) > 0, "the live write's data is still there");

        upload.finish();
        const res = await upload.response;
        upload = null;
        const body = await res.json();
        assert.equal(res.status, 201, JSON.stringify(body));
        const download = await alice.fetch(`/files/${body.data.resourceSeq}/download`);
        assert.equal(download.status, 200);
        assert.deepEqual(new Uint8Array(await download.arrayBuffer()), bytes);
        assert.equal(await unfinishedWrites(a), 0);
      } finally {
        // A failed assertion above leaves the upload stalled: give it up, or closing B would
        // wait for it forever.
        await upload?.abandon();
        await b.close();
        await a.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
}
