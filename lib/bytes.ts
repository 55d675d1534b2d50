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
 * The first `limit` bytes of `body`, or fewer when it ends or breaks off first (a body cut short
 * keeps what arrived). The rest is never read: the stream is cancelled.
 */
export async function readHead(
  body: ReadableStream<Uint8Array>,
  limit: number,
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
  } catch {
    // What arrived before the break is still the head.
  } finally {
    reader.cancel().catch(() => {});
  }
  return concatBytes(parts).subarray(0, limit);
}
