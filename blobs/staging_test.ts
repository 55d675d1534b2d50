/**
 * The stage contract, both blob stores: what resumable uploads (kv/tree/uploads.ts) rely on.
 * Appends at the committed offset drop what a failed append left past it, a body that fails
 * half-way keeps every byte read before the failure, another instance (process) continues a
 * stage, sealing makes the bytes a blob without a copy, and expired stages are cleared with the
 * abandoned writes while live ones never are.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { type Fixture, testEachKind } from "./store_fixtures.ts";
import { clearAbandonedWrites, StageAppendError, StageNotFoundError } from "./store.ts";
import { testBytes } from "../tests/helpers/bytes.ts";

const MiB = 1024 * 1024;
const HOUR = 3_600_000;

const contract = (name: string, fn: (f: Fixture) => Promise<void>) =>
  testEachKind(`blob stage contract: ${name}`, fn);

/** `bytes` in `piece`-sized chunks, then (with `failAfter`) an error instead of the rest. */
function body(bytes: Uint8Array, piece: number, failAfter?: number): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    pull(c) {
      if (failAfter !== undefined && off >= failAfter) return c.error(new Error("client gone"));
      if (off >= bytes.byteLength) return c.close();
      const end = Math.min(off + piece, bytes.byteLength, failAfter ?? Infinity);
      c.enqueue(bytes.slice(off, end));
      off = end;
    },
  });
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

contract("appends at odd offsets seal into the exact bytes", async ({ store, leftovers }) => {
  const bytes = testBytes(2 * MiB + 70_001, 3);
  const stageId = await store.stage(Date.now() + HOUR);
  const hash = createHash("sha256");
  // Boundaries off both stores' chunk sizes (1 MiB, 63 KiB).
  const cuts = [0, 1, 64_513, 1_100_000, bytes.byteLength];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const part = bytes.subarray(cuts[i], cuts[i + 1]);
    const stored = await store.appendStaged(stageId, cuts[i], body(part, 40_009), {
      onStored: (p) => hash.update(p),
    });
    assert.equal(stored, part.byteLength);
  }
  assert.equal(hash.digest("hex"), sha(bytes));
  const range = { start: 1_000_000, end: 1_200_000 };
  assert.deepEqual(
    await readAll(await store.readStaged(stageId, range)),
    bytes.subarray(range.start, range.end + 1),
  );
  const blob = await store.sealStaged(stageId, { size: bytes.byteLength, sha256: sha(bytes) });
  assert.deepEqual(await readAll(await store.read(blob.blobId)), bytes);
  assert.equal(blob.size, bytes.byteLength);
  await assert.rejects(store.appendStaged(stageId, 0, body(bytes, 10)), StageNotFoundError);
  // Nothing but the blob is left; deleting it leaves nothing.
  await store.delete(blob.blobId);
  assert.equal(await leftovers(), 0);
});

contract("a failed body keeps what was read; the next append drops the rest", async ({ store }) => {
  const bytes = testBytes(3 * MiB, 5);
  const stageId = await store.stage(Date.now() + HOUR);
  const seen: number[] = [];
  const err = await store.appendStaged(stageId, 0, body(bytes, 100_000, 1_500_000), {
    onStored: (p) => seen.push(p.byteLength),
  }).then(() => null, (e) => e);
  assert.ok(err instanceof StageAppendError, `got ${err}`);
  assert.equal(err.stored, 1_500_000);
  assert.equal(seen.reduce((a, b) => a + b, 0), 1_500_000);
  assert.deepEqual(
    await readAll(await store.readStaged(stageId, { start: 0, end: 1_499_999 })),
    bytes.subarray(0, 1_500_000),
  );
  // The caller committed only 1,000,000 (say a checksum failed): the rest is dropped.
  const other = testBytes(bytes.byteLength - 1_000_000, 9);
  await store.appendStaged(stageId, 1_000_000, body(other, 77_777));
  const expected = new Uint8Array(bytes.byteLength);
  expected.set(bytes.subarray(0, 1_000_000));
  expected.set(other, 1_000_000);
  const blob = await store.sealStaged(stageId, {
    size: expected.byteLength,
    sha256: sha(expected),
  });
  assert.deepEqual(await readAll(await store.read(blob.blobId)), expected);
});

contract("a refused check stops the append", async ({ store }) => {
  const bytes = testBytes(4 * MiB, 6);
  const stageId = await store.stage(Date.now() + HOUR);
  let checks = 0;
  const err = await store.appendStaged(stageId, 0, body(bytes, 65_536), {
    check() {
      if (++checks > 3) throw new Error("claim lapsed");
    },
  }).then(() => null, (e) => e);
  assert.ok(err instanceof StageAppendError);
  assert.ok(err.stored < bytes.byteLength, `stored ${err.stored}`);
});

contract("another instance continues a stage, and seals it", async ({ store, another }) => {
  const bytes = testBytes(MiB + 333, 8);
  const stageId = await store.stage(Date.now() + HOUR);
  await store.appendStaged(stageId, 0, body(bytes.subarray(0, 500_001), 30_000));
  const second = await another();
  await second.appendStaged(stageId, 500_001, body(bytes.subarray(500_001), 30_000));
  const blob = await second.sealStaged(stageId, { size: bytes.byteLength, sha256: sha(bytes) });
  assert.deepEqual(await readAll(await store.read(blob.blobId)), bytes);
});

contract("discard removes a stage; expiry makes it an abandoned write", async (f) => {
  const { store } = f;
  const discarded = await store.stage(Date.now() + HOUR);
  await store.appendStaged(discarded, 0, body(testBytes(200_000, 2), 50_000));
  await store.discardStaged(discarded);
  await store.discardStaged(discarded);
  assert.equal(await f.leftovers(), 0);

  const live = await store.stage(Date.now() + HOUR);
  const expired = await store.stage(Date.now() - 1);
  await store.appendStaged(live, 0, body(testBytes(100_000, 3), 50_000));
  await store.appendStaged(expired, 0, body(testBytes(100_000, 4), 50_000));
  assert.equal(await clearAbandonedWrites(store, { dryRun: true }), 1);
  assert.equal(await clearAbandonedWrites(store, { dryRun: false }), 1);
  await assert.rejects(store.readStaged(expired, { start: 0, end: 10 }), StageNotFoundError);
  assert.equal(
    (await readAll(await store.readStaged(live, { start: 0, end: 99_999 }))).length,
    100_000,
  );
});

contract("onDurable tells the synced bytes as they grow, all of them at the end", async (f) => {
  const { store } = f;
  const bytes = testBytes(3 * MiB + 11, 4);
  const stageId = await store.stage(Date.now() + HOUR);
  // Slow enough that the fs store syncs while the body streams (every 200 ms).
  let off = 0;
  const slow = new ReadableStream<Uint8Array>({
    async pull(c) {
      await new Promise((r) => setTimeout(r, 40));
      if (off >= bytes.byteLength) return c.close();
      c.enqueue(bytes.slice(off, off + 128 * 1024));
      off += 128 * 1024;
    },
  });
  const told: number[] = [];
  const options = { onDurable: (n: number) => told.push(n), onStored: () => {} };
  const stored = await store.appendStaged(stageId, 0, slow, options);
  assert.equal(stored, bytes.byteLength);
  assert.ok(told.length >= 2, `told ${told.join(", ")}`);
  assert.equal(told.at(-1), stored);
  assert.ok(told.every((n, i) => i === 0 || n >= told[i - 1]), "the count only grows");
});
