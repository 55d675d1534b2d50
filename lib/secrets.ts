/** Hashing and comparison of secrets: stored hashed, compared in constant time, never logged. */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export function sha256Hex(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Constant-time comparison of two hex digests (different lengths compare unequal). */
export function digestsEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  if (x.byteLength !== y.byteLength) return false;
  return timingSafeEqual(x, y);
}

/** `bytes` of randomness, base64url without padding (32 bytes = 256 bits). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString("base64url");
}
