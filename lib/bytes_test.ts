import assert from "node:assert/strict";
import { concatBytes, readHead } from "./bytes.ts";

/** A stream that sends [7, 8], then breaks off. */
function brokenStream(): ReadableStream<Uint8Array> {
  let sent = false;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent) return c.error(new Error("connection reset"));
      sent = true;
      c.enqueue(new Uint8Array([7, 8]));
    },
  });
}

Deno.test("concatBytes joins the parts in order", () => {
  const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array(0), new Uint8Array([3])]);
  assert.deepEqual([...joined], [1, 2, 3]);
  assert.equal(concatBytes([]).byteLength, 0);
});

Deno.test("readHead keeps the first bytes, cancels the rest, and keeps what came before a break", async () => {
  let cancelled = false;
  let pulls = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(c) {
      pulls++;
      c.enqueue(new Uint8Array(600).fill(pulls));
    },
    cancel() {
      cancelled = true;
    },
  });
  const head = await readHead(endless, 1000);
  assert.equal(head.byteLength, 1000);
  assert.equal(head[599], 1);
  assert.equal(head[600], 2);
  assert.ok(cancelled, "the stream is cancelled once the head is read");

  assert.deepEqual([...await readHead(brokenStream(), 10)], [7, 8]);
});

Deno.test("readHead with onBreak throw fails on a body that breaks off", async () => {
  await assert.rejects(readHead(brokenStream(), 10, { onBreak: "throw" }), /connection reset/);
});
