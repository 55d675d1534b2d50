/** One contract, both blob stores: what kv/tree/content.ts relies on from `BlobStore`. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { openFsBlobStore } from "./fs.ts";
import { KV_CHUNK, openKvBlobStore } from "./kv.ts";
import {
  BlobNotFoundError,
  BlobSizeMismatchError,
  type BlobStore,
  BlobTooLargeError,
} from "./store.ts";
import { testBytes } from "../tests/helpers/bytes.ts";
import { blobStoreKeys } from "../kv/keys.ts";

const MiB = 1024 * 1024;

interface Fixture {
  store: BlobStore;
  /** How many stored things (files, KV entries) exist, temp files included. */
  leftovers(): Promise<number>;
  close(): Promise<void>;
}

async function countFiles(dir: string): Promise<number> {
  let n = 0;
  for await (const e of Deno.readDir(dir)) {
    n += e.isDirectory ? await countFiles(`${dir}/${e.name}`) : 1;
  }
  return n;
}

const FIXTURES: Record<"fs" | "kv", () => Promise<Fixture>> = {
  async fs() {
    const dir = await Deno.makeTempDir({ prefix: "blob-contract-" });
    return {
      store: await openFsBlobStore(dir),
      leftovers: () => countFiles(dir),
      close: () => Deno.remove(dir, { recursive: true }),
    };
  },
  async kv() {
    const kv = await Deno.openKv(":memory:");
    return {
      store: openKvBlobStore(kv, blobStoreKeys),
      async leftovers() {
        let n = 0;
        for (const prefix of [["blob"], ["blob_chunk"], ["blob_pending"]]) {
          for await (const _ of kv.list({ prefix })) n++;
        }
        return n;
      },
      close: () => Promise.resolve(kv.close()),
    };
  },
};

function contract(name: string, fn: (f: Fixture) => Promise<void>) {
  for (const kind of ["fs", "kv"] as const) {
    Deno.test(`blob store contract: ${name} [${kind}]`, async () => {
      const f = await FIXTURES[kind]();
      try {
        await fn(f);
      } finally {
        await f.close();
      }
    });
  }
}

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
  assert.equal(await f.store.removeAbandonedWrites(Date.now()), 0, "finished writes leave none");
});

Deno.test("fs store: opening it removes temp files a crash left, not live ones", async () => {
  const dir = await Deno.makeTempDir({ prefix: "blob-temps-" });
  try {
    await Deno.mkdir(`${dir}/tmp`);
    const stale = `${dir}/tmp/${"a".repeat(32)}.part`;
    const live = `${dir}/tmp/${"b".repeat(32)}.part`;
    await Deno.writeFile(stale, new Uint8Array(10));
    await Deno.writeFile(live, new Uint8Array(10));
    const twoDaysAgo = new Date(Date.now() - 48 * 3600_000);
    await Deno.utime(stale, twoDaysAgo, twoDaysAgo);
    await openFsBlobStore(dir);
    assert.equal(await Deno.stat(stale).then(() => true, () => false), false);
    assert.equal(await Deno.stat(live).then(() => true, () => false), true);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
