/**
 * Short-lived download tokens for the two-request download flow (the second request carries
 * only `dt`). 256 random bits, stored in KV with expireIn; our own `expiresAt` decides because
 * KV expiry is lazy. A token stays usable until it expires so interrupted downloads can resume
 * with Range; access is re-checked when it is redeemed, and so is the API key that issued it:
 * revoking or disabling a key (or its user or tenant) stops the links it handed out, not only its
 * own requests.
 */
import { keyStillActive } from "../identity/api_keys.ts";
import type { Caller } from "../identity/users.ts";
import { fail } from "../errors.ts";
import { randomToken } from "../../lib/secrets.ts";
import { downloadTokenKey } from "../keys.ts";

export const DOWNLOAD_TOKEN_TTL_MS = 5 * 60 * 1000;

export interface DownloadToken {
  /** selection: several files and folders as one ZIP (`items`; `rs` is the first one's). */
  kind: "file" | "folder" | "selection";
  rs: number;
  /** Whose access the download uses. */
  caller: Caller;
  /** The owner seq given as `ss` when the token was issued. */
  ss: number | null;
  /** A selection's items with the `ss` each was named with, in the order given. */
  items?: { rs: number; ss: number | null }[];
  /**
   * The API key the token was issued with; the token works only while that key is active.
   * Absent on tokens issued before it was recorded, which are refused (they live 5 minutes).
   */
  keyId?: string;
  expiresAt: number;
}

export async function issueDownloadToken(
  kv: Deno.Kv,
  input: Omit<DownloadToken, "expiresAt" | "keyId"> & { keyId: string },
): Promise<string> {
  const token = randomToken(32);
  const record: DownloadToken = { ...input, expiresAt: Date.now() + DOWNLOAD_TOKEN_TTL_MS };
  await kv.set(downloadTokenKey(token), record, { expireIn: DOWNLOAD_TOKEN_TTL_MS });
  return token;
}

/**
 * The token's record, or RESOURCE_009 when it is unknown, expired, for the other kind, or its
 * API key has been revoked (or deleted, or now belongs to someone else) since it was issued.
 */
export async function redeemDownloadToken(
  kv: Deno.Kv,
  token: string | undefined,
  kind: DownloadToken["kind"],
): Promise<DownloadToken> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
    fail("RESOURCE_009", "dt is missing or malformed", "dt");
  }
  const record = (await kv.get<DownloadToken>(downloadTokenKey(token))).value;
  if (!record || record.kind !== kind || record.expiresAt <= Date.now()) {
    fail("RESOURCE_009", "The download token is unknown or expired", "dt");
  }
  if (!record.keyId || !await keyStillActive(kv, record.keyId, record.caller.userSeq)) {
    fail(
      "RESOURCE_009",
      "The API key that issued this download token has been revoked or disabled",
      "dt",
    );
  }
  return record;
}
