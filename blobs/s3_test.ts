/**
 * What only the s3 store has, beyond the contract every store passes (store_test.ts): bodies
 * larger than a part go up as multipart uploads with a bounded number of parts in flight, a
 * failure or a sweep mid-upload aborts the upload (no unfinished upload, object or marker stays),
 * and objects of running writes are not listed as blobs. Against a real SeaweedFS.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openWriteLeases } from "./leases.ts";
import { openS3BlobStore, PART_SIZE } from "./s3.ts";
import { openS3Client, type S3Client, S3Error } from "./s3_client.ts";
import { type Fixture, fixture } from "./store_fixtures.ts";
import { clearAbandonedWrites } from "./store.ts";
import { LeaseLostError } from "./leases.ts";
import { blobStoreKeys, s3StoreKeys } from "../kv/keys.ts";
import { testBytes } from "../tests/helpers/bytes.ts";
import { until } from "../tests/helpers/wait.ts";

const MiB = 1024 * 1024;

/** The s3 fixture (one shared server for the file: sanitizers off, as store_fixtures.ts says). */
function s3Test(name: string, fn: (f: Fixture) => Promise<void>) {
  Deno.test({ name, sanitizeOps: false, sanitizeResources: false }, async () => {
    const f = await fixture("s3");
    try {
      await fn(f);
    } finally {
      await f.close();
    }
  });
}

/** The fixture's client, counting the parts in flight at once. */
function countingClient(f: Fixture) {
  const inner = openS3Client(f.s3!);
  const seen = { inflight: 0, most: 0, parts: 0 };
  const client: S3Client = {
    ...inner,
    async uploadPart(key, uploadId, n, body) {
      seen.parts++;
      seen.most = Math.max(seen.most, ++seen.inflight);
      try {
        return await inner.uploadPart(key, uploadId, n, body);
      } finally {
        seen.inflight--;
      }
    },
  };
  return { client, seen };
}

function pieces(bytes: Uint8Array, piece: number, failAt = Infinity): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    pull(c) {
      if (off >= failAt) return c.error(new Error("client went away"));
      if (off >= bytes.byteLength) return c.close();
      c.enqueue(bytes.slice(off, off + piece));
      off += piece;
    },
  });
}

const readAll = async (s: ReadableStream<Uint8Array>) =>
  new Uint8Array(await new Response(s).arrayBuffer());

s3Test(
  "s3: a body of several parts is a multipart upload, at most two parts in flight",
  async (f) => {
    const { client, seen } = countingClient(f);
    const store = openS3BlobStore(
      f.kv,
      client,
      s3StoreKeys,
      openWriteLeases(f.kv, blobStoreKeys.lease, "s3"),
    );
    const bytes = testBytes(4 * PART_SIZE + 12_345, 21);
    const info = await store.write(pieces(bytes, 256 * 1024));
    assert.equal(info.sha256, createHash("sha256").update(bytes).digest("hex"));
    assert.equal(seen.parts, 5);
    assert.ok(seen.most <= 2, `${seen.most} parts in flight`);
    assert.deepEqual(await readAll(await store.read(info.blobId)), bytes);
    // Ranges across a part boundary and the last part.
    for (
      const [start, end] of [[PART_SIZE - 5, PART_SIZE + 5], [4 * PART_SIZE, bytes.length - 1]]
    ) {
      const got = await readAll(await store.read(info.blobId, { start, end }));
      assert.deepEqual(got, bytes.subarray(start, end + 1));
    }
    await store.delete(info.blobId);
    assert.equal(await f.leftovers(), 0);
  },
);

s3Test("s3: a body failing after two parts aborts its upload and leaves nothing", async (f) => {
  const bytes = testBytes(3 * PART_SIZE, 22);
  await assert.rejects(
    () => f.store.write(pieces(bytes, MiB, 2 * PART_SIZE + MiB)),
    /client went away/,
  );
  assert.equal(await f.leftovers(), 0, "no object, unfinished upload or marker");
});

s3Test(
  "s3: a multipart write swept as abandoned loses its upload and publishes nothing",
  async (f) => {
    // Renewals far apart: the test makes the lease look lapsed between two (a paused process).
    const timing = { renewMs: 60_000, expiryMs: 180_000 };
    const writer = await f.another(timing);
    const other = await f.another();
    const bytes = testBytes(3 * PART_SIZE, 23);
    let finish!: () => void;
    const go = new Promise<void>((r) => (finish = r));
    let off = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(c) {
        if (off >= 2 * PART_SIZE + MiB) await go;
        if (off >= bytes.length) return c.close();
        c.enqueue(bytes.slice(off, off + MiB));
        off += MiB;
      },
    });
    const writing = writer.write(body);
    writing.catch(() => {});
    // The marker names the multipart upload once one was begun.
    await until("the write's multipart upload", async () => {
      for await (const e of f.kv.list<{ uploadId?: string }>({ prefix: s3StoreKeys.pending() })) {
        if (e.value.uploadId) return true;
      }
      return false;
    });
    assert.deepEqual(await Array.fromAsync(other.list()), [], "a running write is no blob");
    for await (const e of f.kv.list<{ expiresAt: number }>({ prefix: blobStoreKeys.lease() })) {
      await f.kv.atomic().set(e.key, { ...e.value, expiresAt: Date.now() - 1 }).commit();
    }
    assert.equal(await clearAbandonedWrites(other, { dryRun: false }), 1);
    finish();
    await assert.rejects(writing, LeaseLostError);
    assert.equal(await f.leftovers(), 0, "upload aborted, no object, marker gone");
  },
);

s3Test(
  "s3: bodies are written from the store's part buffers, never through fetch (which copies each)",
  async (f) => {
    // fetch copies a Uint8Array body twice: 16 MiB of late garbage per part, and a 1 GiB upload
    // grew the server by ~100 MiB (docs/benchmarks.md). Parts and small objects bypass it.
    const puts: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      const method = init?.method ?? (input instanceof Request ? input.method : "GET");
      if (method === "PUT") puts.push(String(input instanceof Request ? input.url : input));
      return realFetch(input, init);
    };
    try {
      const big = testBytes(2 * PART_SIZE + 5, 24);
      const small = testBytes(1000, 25);
      const a = await f.store.write(pieces(big, MiB));
      const b = await f.store.write(pieces(small, 100));
      assert.deepEqual(puts, [], "no PUT body went through fetch");
      assert.deepEqual(await readAll(await f.store.read(a.blobId)), big);
      assert.deepEqual(await readAll(await f.store.read(b.blobId)), small);
    } finally {
      globalThis.fetch = realFetch;
    }
  },
);

s3Test("s3: an S3 error answer to a part PUT is an S3Error with its code", async (f) => {
  const client = openS3Client(f.s3!);
  const err = await client.uploadPart("blobs/nope", "no-such-upload", 1, new Uint8Array(10))
    .then(() => null, (e) => e);
  assert.ok(err instanceof S3Error, `not an S3Error: ${err}`);
  assert.equal(err.status, 404);
  assert.equal(err.code, "NoSuchUpload");
});
