/** Byte arrays and streams read into them. */

/** The parts joined into one array. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.byteLength;
  }
  return out;
}

/**
 * The first `limit` bytes of `body`, or fewer when it ends or breaks off first. A body that breaks
 * off keeps what arrived, or with `onBreak: "throw"` throws (for a caller to whom a cut answer is
 * a failure). The rest is never read: the stream is cancelled.
 */
export async function readHead(
  body: ReadableStream<Uint8Array>,
  limit: number,
  { onBreak = "keep" }: { onBreak?: "keep" | "throw" } = {},
): Promise<Uint8Array> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
    }
  } catch (err) {
    if (onBreak === "throw") throw err;
    // What arrived before the break is still the head.
  } finally {
    reader.cancel().catch(() => {});
  }
  return concatBytes(parts).subarray(0, limit);
}
