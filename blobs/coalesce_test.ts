/** `coalesce` (blobs/store.ts): piece sizes, the buffer a small body costs, and a shared pool. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { BlobSizeMismatchError, coalesce } from "./store.ts";

const MiB = 1024 * 1024;

function body(total: number, chunk: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(chunk, total - sent);
      c.enqueue(Uint8Array.from({ length: n }, (_, i) => (sent + i) % 251));
      sent += n;
    },
  });
}

/** Pieces as copies (a piece is valid only until the next ones are asked for), and the info. */
async function pieces(
  total: number,
  opts: { expectedSize?: number; maxBytes?: number },
  pool = 2,
  buffers?: Uint8Array[],
) {
  const out: { bytes: Uint8Array; bufferBytes: number }[] = [];
  let info = { size: -1, sha256: "" };
  for await (
    const p of coalesce(body(total, 64 * 1024 + 7), MiB, opts, (i) => (info = i), pool, {
      buffers,
    })
  ) out.push({ bytes: p.slice(), bufferBytes: p.buffer.byteLength });
  return { out, info };
}

const sha = (n: number) => createHash("sha256").update(body0(n)).digest("hex");
const body0 = (n: number) => Uint8Array.from({ length: n }, (_, i) => i % 251);

Deno.test("coalesce: a body of announced size under a piece costs a buffer of that size", async () => {
  const { out, info } = await pieces(5, { expectedSize: 5 });
  assert.equal(out.length, 1);
  assert.deepEqual(out[0].bytes, body0(5));
  assert.equal(out[0].bufferBytes, 5);
  assert.deepEqual(info, { size: 5, sha256: sha(5) });
});

Deno.test("coalesce: a limit under a piece bounds the buffer too; an empty body allocates none", async () => {
  const small = await pieces(300, { maxBytes: 1000 });
  assert.equal(small.out[0].bufferBytes, 1000);
  assert.deepEqual(small.out[0].bytes, body0(300));
  const empty = await pieces(0, { expectedSize: 0 });
  assert.deepEqual(empty, { out: [], info: { size: 0, sha256: sha(0) } });
});

Deno.test("coalesce: unknown sizes are cut into full pieces and a shorter last one", async () => {
  const total = 2 * MiB + 123;
  const { out, info } = await pieces(total, {});
  assert.deepEqual(out.map((p) => p.bytes.byteLength), [MiB, MiB, 123]);
  assert.deepEqual(out.map((p) => p.bufferBytes), [MiB, MiB, MiB]);
  const joined = new Uint8Array(total);
  let off = 0;
  for (const p of out) joined.set(p.bytes, (off += p.bytes.byteLength) - p.bytes.byteLength);
  assert.deepEqual(joined, body0(total));
  assert.equal(info.sha256, sha(total));
});

Deno.test("coalesce: a small body keeps its small buffer out of a shared pool", async () => {
  const pool: Uint8Array[] = [];
  await pieces(5, { expectedSize: 5 }, 2, pool);
  assert.equal(pool.length, 0);
  const big = await pieces(2 * MiB, {}, 2, pool);
  assert.deepEqual(big.out.map((p) => p.bytes.byteLength), [MiB, MiB]);
  assert.deepEqual(pool.map((b) => b.byteLength), [MiB, MiB]);
  // A later small body reuses the pool's buffer and still gets exactly its bytes.
  const again = await pieces(5, { expectedSize: 5 }, 2, pool);
  assert.deepEqual(again.out.map((p) => p.bytes), [body0(5)]);
});

Deno.test("coalesce: more bytes than announced fail before any is copied past the buffer", async () => {
  await assert.rejects(pieces(10, { expectedSize: 5 }), BlobSizeMismatchError);
  await assert.rejects(pieces(3, { expectedSize: 5 }), BlobSizeMismatchError);
});
