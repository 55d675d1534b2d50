/** Test data: deterministic bytes, free of any server code so unit tests can import it too. */

/** Deterministic pseudo-random bytes (so range and hash checks see varied content). */
export function testBytes(size: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
