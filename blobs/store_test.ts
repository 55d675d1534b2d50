/**
 * One contract, both blob stores: what kv/tree/content.ts relies on from `BlobStore`. Then the
 * write leases: a write killed mid-way (kill -9) is abandoned once its lease lapses and not
 * before, a live write on another store instance is never touched however long it stalls, and a
 * write swept while its writer was paused fails instead of publishing a blob.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { KV_CHUNK } from "./kv.ts";
import { LeaseLostError } from "./leases.ts";
import { type Fixture, fixture, KINDS, testEachKind } from "./store_fixtures.ts";
import {
  BlobNotFoundError,
  BlobSizeMismatchError,
  BlobTooLargeError,
  clearAbandonedWrites,
} from "./store.ts";
import { testBytes } from "../tests/helpers/bytes.ts";
import { outliveWriterLease, until } from "../tests/helpers/wait.ts";

const MiB = 1024 * 1024;
const contract = (name: string, fn: (f: Fixture) => Promise<void>) =>
  testEachKind(`blob store contract: ${name}`, fn);

/** `bytes` as a stream of `piece`-sized chunks (network-like, not aligned to any store chunk). */
function pieces(bytes: Uint8Array, piece: number): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    pull(c) {
      if (off >= bytes.byteLength) return c.close();
      c.enqueue(bytes.slice(off, off + piece));
      off += piece;
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

contract("a multi-chunk blob round-trips with its size and hash", async ({ store }) => {
  // Crosses the fs store's 1 MiB and the kv store's 63 KiB chunk boundaries at odd offsets.
  const bytes = testBytes(2 * MiB + 12_345, 11);
  const info = await store.write(pieces(bytes, 100_003));
  assert.equal(info.size, bytes.byteLength);
  assert.equal(info.sha256, sha(bytes));
  assert.match(info.blobId, /^[0-9a-f]{32}$/);
  assert.deepEqual(await readAll(await store.read(info.blobId)), bytes);
});

contract("an async iterable body works too", async ({ store }) => {
  const bytes = testBytes(70_000, 4);
  async function* gen() {
    yield bytes.subarray(0, 1);
    yield bytes.subarray(1, 65_000);
    yield bytes.subarray(65_000);
  }
  const info = await store.write(gen());
  assert.deepEqual(await readAll(await store.read(info.blobId)), bytes);
});

contract("ranges, including ones across chunk boundaries", async ({ store }) => {
  const bytes = testBytes(MiB + 200_000, 5);
  const { blobId } = await store.write(pieces(bytes, 65_536));
  const ranges: [number, number][] = [
    [0, 0],
    [0, 99],
    [KV_CHUNK - 10, KV_CHUNK + 10],
    [MiB - 1, MiB],
    [5, bytes.byteLength - 1],
    [bytes.byteLength - 1, bytes.byteLength - 1],
    [3 * KV_CHUNK, 3 * KV_CHUNK + KV_CHUNK - 1],
  ];
  for (const [start, end] of ranges) {
    const got = await readAll(await store.read(blobId, { start, end }));
    assert.deepEqual(got, bytes.subarray(start, end + 1), `${start}-${end}`);
  }
});

contract("the empty blob", async ({ store }) => {
  const info = await store.write(pieces(new Uint8Array(0), 1));
  assert.equal(info.size, 0);
  assert.equal(info.sha256, sha(new Uint8Array(0)));
  assert.equal((await readAll(await store.read(info.blobId))).byteLength, 0);
  // An empty range (a zero-length file's bytes for a download or a ZIP entry).
  const none = await store.read(info.blobId, { start: 0, end: -1 });
  assert.equal((await readAll(none)).byteLength, 0);
  const exact = await store.write(pieces(new Uint8Array(0), 1), { expectedSize: 0, maxBytes: 0 });
  assert.equal(exact.size, 0);
});

contract("copy is independent of the original; delete is idempotent", async (f) => {
  const bytes = testBytes(300_000, 8);
  const { blobId } = await f.store.write(pieces(bytes, 50_000));
  const copyId = await f.store.copy(blobId);
  assert.notEqual(copyId, blobId);
  await f.store.delete(blobId);
  await f.store.delete(blobId);
  await assert.rejects(() => f.store.read(blobId), BlobNotFoundError);
  assert.deepEqual(await readAll(await f.store.read(copyId)), bytes);
  await f.store.delete(copyId);
  assert.equal(await f.leftovers(), 0);
  await assert.rejects(() => f.store.copy(copyId), BlobNotFoundError);
  await assert.rejects(() => f.store.read("not-a-blob-id"), BlobNotFoundError);
});

contract("maxBytes and expectedSize failures leave nothing behind", async (f) => {
  const bytes = testBytes(500_000, 9);
  await assert.rejects(
    () => f.store.write(pieces(bytes, 64_000), { maxBytes: 499_999 }),
    BlobTooLargeError,
  );
  await assert.rejects(
    () => f.store.write(pieces(bytes, 64_000), { expectedSize: 400_000 }),
    BlobSizeMismatchError,
  );
  await assert.rejects(
    () => f.store.write(pieces(bytes, 64_000), { expectedSize: 600_000 }),
    BlobSizeMismatchError,
  );
  assert.equal(await f.leftovers(), 0);
  const exact = await f.store.write(pieces(bytes, 64_000), {
    maxBytes: 500_000,
    expectedSize: 500_000,
  });
  assert.equal(exact.size, 500_000);
});

contract("a body that fails midway leaves nothing behind", async (f) => {
  const bytes = testBytes(2 * MiB, 10);
  let sent = 0;
  const failing = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= 1.5 * MiB) return c.error(new Error("client went away"));
      c.enqueue(bytes.slice(sent, sent + 100_000));
      sent += 100_000;
    },
  });
  await assert.rejects(() => f.store.write(failing), /client went away/);
  assert.equal(await f.leftovers(), 0);
});

contract("list: every complete blob with its size and when it was stored", async (f) => {
  const start = Date.now();
  const a = await f.store.write(pieces(testBytes(200_000, 11), 70_000));
  const b = await f.store.write(pieces(new Uint8Array(0), 1));
  const c = await f.store.copy(a.blobId);
  await f.store.delete(b.blobId);
  const listed = [];
  for await (const blob of f.store.list()) listed.push(blob);
  listed.sort((x, y) => x.blobId.localeCompare(y.blobId));
  const want = [{ blobId: a.blobId, size: 200_000 }, { blobId: c, size: 200_000 }]
    .sort((x, y) => x.blobId.localeCompare(y.blobId));
  assert.deepEqual(listed.map(({ blobId, size }) => ({ blobId, size })), want);
  for (const blob of listed) {
    // File times may be truncated to the second, so allow the second the writes started in.
    assert.ok(blob.storedAt >= start - 1000 && blob.storedAt <= Date.now(), String(blob.storedAt));
  }
  assert.equal(
    await clearAbandonedWrites(f.store, { dryRun: true }),
    0,
    "finished writes leave none",
  );
});

/**
 * A body that sends `first` and then stalls until `finish()` sends `rest`: a write in progress
 * for as long as the test wants.
 */
function stalled(first: Uint8Array, rest: Uint8Array) {
  let finish!: () => void;
  const go = new Promise<void>((r) => (finish = r));
  let step = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (step++ === 0) return c.enqueue(first.slice());
      await go;
      c.enqueue(rest.slice());
      c.close();
    },
  });
  return { body, finish };
}

/**
 * A write of 2 MiB (`seed`'s bytes) to `f`'s store that sends its first MiB and then stalls until
 * `finish()`, returned once its first bytes are stored. `writing` is observed by the caller; a
 * failure meanwhile must fail that test, not the whole file.
 */
async function stalledWrite(f: Fixture, seed: number) {
  const bytes = testBytes(2 * MiB, seed);
  const { body, finish } = stalled(bytes.subarray(0, MiB), bytes.subarray(MiB));
  const writing = f.store.write(body);
  writing.catch(() => {});
  await until("the write's first bytes", async () => (await f.leftovers()) > 0);
  return { bytes, finish, writing };
}

/**
 * What a child process of `f`'s kind writes before it is killed: 2 MiB of a body that never
 * ends, under a lease renewed every 100 ms and promised for 3 s (long enough that a loaded machine
 * cannot make it lapse between the kill and the first sweep). The timer keeps it alive (the
 * lease's own timer is unref'd).
 */
function writerScript(f: Fixture): string {
  const url = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  return `
    import { openFsBlobStore } from ${url("./fs.ts")};
    import { openKvBlobStore } from ${url("./kv.ts")};
    import { openS3BlobStore } from ${url("./s3.ts")};
    import { openS3Client } from ${url("./s3_client.ts")};
    import { openWriteLeases } from ${url("./leases.ts")};
    import { blobStoreKeys, s3StoreKeys } from ${url("../kv/keys.ts")};
    const kv = await Deno.openKv(${JSON.stringify(f.kvPath)});
    const leases = openWriteLeases(kv, blobStoreKeys.lease, "${f.kind}", {
      renewMs: 100,
      expiryMs: 3000,
    });
    const s3 = ${JSON.stringify(f.s3 ?? null)};
    const store = "${f.kind}" === "fs"
      ? await openFsBlobStore(${JSON.stringify(f.dir)}, leases)
      : s3
      ? openS3BlobStore(kv, openS3Client(s3), s3StoreKeys, leases)
      : openKvBlobStore(kv, blobStoreKeys, leases);
    const body = new ReadableStream({ start(c) { c.enqueue(new Uint8Array(${2 * MiB})); } });
    store.write(body);
    setInterval(() => {}, 1000);
  `;
}

for (const kind of KINDS) {
  // s3: one server for the file outlives each test (store_fixtures.ts).
  const t = (name: string) =>
    kind === "s3" ? { name, sanitizeOps: false, sanitizeResources: false } : { name };
  Deno.test(
    t(`write leases: a write killed mid-way is abandoned once its lease lapses, not before; a dry run finds what the real run removes [${kind}]`),
    async () => {
      const f = await fixture(kind);
      try {
        const child = new Deno.Command(Deno.execPath(), {
          args: ["eval", "--unstable-kv", writerScript(f)],
          stdout: "null",
          stderr: "null",
        }).spawn();
        await until("the killed writer's first bytes", async () => (await f.leftovers()) > 0);
        child.kill("SIGKILL");
        await child.status;
        const left = await f.leftovers();

        // Its lease was renewed moments ago: it cannot be told from a live write yet.
        assert.equal(await clearAbandonedWrites(f.store, { dryRun: true }), 0);
        await until(
          "the lease to lapse",
          async () => (await clearAbandonedWrites(f.store, { dryRun: true })) > 0,
        );
        assert.equal(await clearAbandonedWrites(f.store, { dryRun: true }), 1);
        assert.equal(await f.leftovers(), left, "a dry run removes nothing");
        assert.equal(await clearAbandonedWrites(f.store, { dryRun: false }), 1);
        assert.equal(
          await f.leftovers(),
          0,
          "the temp file, or the chunks and their marker, are gone",
        );
        assert.equal(await clearAbandonedWrites(f.store, { dryRun: false }), 0);
      } finally {
        await f.close();
      }
    },
  );

  Deno.test(
    t(`write leases: a live write stalled far past its lease period is not touched by another instance, and completes [${kind}]`),
    async () => {
      // The writer promises its lease for 800 ms at a time (a renewal timer a loaded machine runs
      // late must not make it lapse); the write stalls until the lease was renewed a whole period
      // past where the first one reached.
      const f = await fixture(kind, { renewMs: 100, expiryMs: 800 });
      try {
        const other = await f.another();
        const { bytes, finish, writing } = await stalledWrite(f, 12);
        await outliveWriterLease(f.kv);
        assert.equal(await clearAbandonedWrites(other, { dryRun: true }), 0);
        assert.equal(await clearAbandonedWrites(other, { dryRun: false }), 0);
        finish();
        const info = await writing;
        assert.deepEqual(await readAll(await other.read(info.blobId)), bytes);
        assert.equal(await clearAbandonedWrites(other, { dryRun: true }), 0);
      } finally {
        await f.close();
      }
    },
  );

  Deno.test(
    t(`write leases: a write whose writer's lease lapsed (a paused process) is swept, then fails and publishes nothing [${kind}]`),
    async () => {
      // Renewals far apart, so the test can make the lease look lapsed between two of them (as a
      // process paused for longer than its lease reaches would).
      const f = await fixture(kind, { renewMs: 60_000, expiryMs: 180_000 });
      try {
        const other = await f.another();
        const { finish, writing } = await stalledWrite(f, 13);
        for await (const e of f.kv.list<{ expiresAt: number }>({ prefix: ["blob_lease"] })) {
          await f.kv.atomic().set(e.key, { ...e.value, expiresAt: Date.now() - 1 }).commit();
        }
        assert.equal(await clearAbandonedWrites(other, { dryRun: false }), 1);
        finish();
        await assert.rejects(writing, LeaseLostError);
        assert.equal(await f.leftovers(), 0);
        let blobs = 0;
        for await (const _ of other.list()) blobs++;
        assert.equal(blobs, 0, "no blob over removed bytes");
      } finally {
        await f.close();
      }
    },
  );
}

Deno.test("write leases: leftovers of versions before leases go by their age", async () => {
  const fs = await fixture("fs");
  const kvStore = await fixture("kv");
  try {
    // fs: temp files without a lease, judged by when they were last written.
    await Deno.mkdir(`${fs.dir}/tmp`, { recursive: true });
    const stale = `${fs.dir}/tmp/${"a".repeat(32)}.part`;
    const fresh = `${fs.dir}/tmp/${"b".repeat(32)}.part`;
    await Deno.writeFile(stale, new Uint8Array(10));
    await Deno.writeFile(fresh, new Uint8Array(10));
    const longAgo = new Date(Date.now() - 10 * 60_000);
    await Deno.utime(stale, longAgo, longAgo);
    assert.equal(await clearAbandonedWrites(fs.store, { dryRun: true }), 1);
    assert.equal(await clearAbandonedWrites(fs.store, { dryRun: false }), 1);
    assert.equal(await Deno.stat(stale).then(() => true, () => false), false);
    assert.equal(await Deno.stat(fresh).then(() => true, () => false), true);

    // kv: a blob_pending start time, abandoned after a day as those versions held.
    const kv = await Deno.openKv(kvStore.kvPath);
    try {
      await kv.set(["blob_chunk", "c".repeat(32), 0], new Uint8Array(10));
      await kv.set(["blob_pending", "c".repeat(32)], Date.now() - 25 * 3600_000);
      await kv.set(["blob_chunk", "d".repeat(32), 0], new Uint8Array(10));
      await kv.set(["blob_pending", "d".repeat(32)], Date.now() - 3600_000);
    } finally {
      kv.close();
    }
    assert.equal(await clearAbandonedWrites(kvStore.store, { dryRun: true }), 1);
    assert.equal(await clearAbandonedWrites(kvStore.store, { dryRun: false }), 1);
    assert.equal(await kvStore.leftovers(), 2, "the younger write's chunk and marker stay");
  } finally {
    await fs.close();
    await kvStore.close();
  }
});
