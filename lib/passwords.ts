/**
 * Password hashing for share links: scrypt (N=2^15, r=8, p=1, 16-byte random salt), stored as
 * "scrypt$N$r$p$<salt b64url>$<hash b64url>" so the cost can be raised later without breaking
 * stored hashes. Verification recomputes with the stored parameters and compares in constant
 * time. The slow hash runs on libuv's thread pool, so it does not block the event loop.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

const N = 32768;
const R = 8;
const P = 1;
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; allow twice that.
  const maxmem = 256 * n * r;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, KEY_BYTES, { N: n, r, p, maxmem }, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    })
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], "base64url");
  const expected = Buffer.from(parts[5], "base64url");
  const key = await derive(password, salt, n, r, p);
  return key.byteLength === expected.byteLength && timingSafeEqual(key, expected);
}
