/**
 * Passwords of share links and of users: hashing, and the policy a user's password must meet.
 *
 * Hashing: scrypt (N=2^15, r=8, p=1, 16-byte random salt), stored as
 * "scrypt$N$r$p$<salt b64url>$<hash b64url>" so the cost can be raised later without breaking
 * stored hashes. Verification recomputes with the stored parameters and compares in constant
 * time. The slow hash runs on libuv's thread pool, so it does not block the event loop.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { ZxcvbnFactory } from "@zxcvbn-ts/core";
import * as common from "@zxcvbn-ts/language-common";

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

/**
 * A stored hash of a random password nobody knows, in the format above. Checking a password of
 * an unknown account against it costs the same scrypt as a real check, so the answer and its
 * timing do not tell whether the account exists.
 */
export const DECOY_HASH = "scrypt$32768$8$1$6vrEcEHiAfreUesrc8bVvg$" +
  "S9M5pw6UA-gKBFPZdWRDiaiSaVq9yvBakhc3NnklEfM";

/** The shortest password a user may set. */
export const MIN_PASSWORD_LENGTH = 12;
/** Longer passwords are refused: scrypt's cost grows with the input, a megabyte is a lever. */
export const MAX_PASSWORD_LENGTH = 256;
/** zxcvbn's 0..4 score below which a password is one of the common or guessable ones. */
const MIN_SCORE = 3;

/**
 * zxcvbn-ts with its common-password and diceware dictionaries (the language-common package, a
 * maintained ranked list). Built once: its dictionaries are read-only after construction.
 */
const strength = new ZxcvbnFactory({
  dictionary: { ...common.dictionary },
  graphs: common.adjacencyGraphs,
});

/**
 * Why `password` may not be a user's password, or null: shorter than MIN_PASSWORD_LENGTH, longer
 * than MAX_PASSWORD_LENGTH, or common or guessable (zxcvbn below MIN_SCORE, which is what the
 * ranked common-password lists, keyboard walks, repeats and dates, and the user's own
 * `userInputs` such as their account id and e-mail give).
 */
export async function passwordProblem(
  password: string,
  userInputs: readonly string[] = [],
): Promise<string | null> {
  const length = [...password.normalize("NFC")].length;
  if (length < MIN_PASSWORD_LENGTH) {
    return `A password needs at least ${MIN_PASSWORD_LENGTH} characters`;
  }
  if (length > MAX_PASSWORD_LENGTH) {
    return `A password has at most ${MAX_PASSWORD_LENGTH} characters`;
  }
  const result = await strength.check(password, [...userInputs]);
  if (result.score < MIN_SCORE) {
    return "This password is too common or too easy to guess; choose a longer, less usual one";
  }
  return null;
}
