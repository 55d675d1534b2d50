/**
 * WebDAV sign-in. HTTP Basic with the account id or e-mail as the user name and an app password
 * or API key as the password (what Finder, Explorer, davfs2 and rclone can send), or
 * `Authorization: Bearer <key>`. Failed attempts are throttled per client and account by the one
 * guess throttle of the share-link passwords and the sign-in page (kv/identity/
 * guess_throttle.ts): a client that keeps failing waits, the rightful user on another client does
 * not. `api:read` is enough for the reading methods; every other method needs `api:write`.
 */
import { verifyApiKey } from "../kv/identity/api_keys.ts";
import {
  clearGuesses,
  countWrongGuess,
  guessCheck,
  type Guesser,
  takeGuess,
} from "../kv/identity/guess_throttle.ts";
import { isDriveError } from "../kv/errors.ts";
import type { Deps } from "../kv/deps.ts";
import { clientOf } from "../api/http/client_address.ts";
import type { Context } from "hono";
import { setActor } from "../lib/request_facts.ts";
import { type DavCaller, DavError } from "./context.ts";

/** The realm Basic clients show; charset tells them the user name and key are UTF-8. */
export const REALM = "Drive WebDAV";
export const CHALLENGE = `Basic realm="${REALM}", charset="UTF-8"`;

/** Methods that only read: api:read is enough. */
export const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PROPFIND"]);

interface Credentials {
  /** The Basic user name, or null for a Bearer key. */
  user: string | null;
  key: string;
}

function credentialsOf(header: string | undefined): Credentials | null {
  if (!header) return null;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return { user: null, key: bearer[1] };
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!basic) return null;
  let text: string;
  try {
    const bytes = Uint8Array.from(atob(basic[1]), (ch) => ch.charCodeAt(0));
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
  const colon = text.indexOf(":");
  if (colon < 0) return null;
  return { user: text.slice(0, colon), key: text.slice(colon + 1) };
}

const unauthorized = (message: string) =>
  new DavError(401, message, { code: "AUTH_002", headers: { "www-authenticate": CHALLENGE } });

/**
 * The caller of a WebDAV request, or a DavError: 401 with the Basic challenge (no or wrong
 * credentials), 429 with Retry-After (too many failures from this client for this account),
 * 403 (a read-only key on a writing method).
 */
export async function authenticate(d: Deps, c: Context): Promise<DavCaller> {
  const creds = credentialsOf(c.req.header("authorization"));
  if (!creds) {
    throw unauthorized("Sign in with your account id or e-mail and an app password or API key");
  }
  const name = (creds.user ?? "bearer").normalize("NFC").toLowerCase();
  const client = clientOf(c, d.config.trustedProxies);
  // The same subject as the sign-in page's: one budget per account, whichever door is knocked on.
  const guesser: Guesser = { subject: `account:${name}`, client, alsoBusy: [`client:${client}`] };
  // The key is read beside the throttle check (one round trip less per request); a throttled
  // client still gets its 429 whatever the key, so the answer tells it nothing more.
  const verified = verifyApiKey(d.kv, creds.key, d.identity);
  verified.catch(() => {}); // awaited below unless the throttle answers first
  const check = await guessCheck(d.kv, guesser);
  if (check.retryAfter > 0) {
    throw new DavError(429, `Too many failed sign-ins; retry in ${check.retryAfter} s`, {
      code: "AUTH_002",
      headers: { "retry-after": String(check.retryAfter) },
    });
  }
  let found: Awaited<ReturnType<typeof verifyApiKey>> = null;
  try {
    found = await verified;
  } catch (err) {
    // A disabled key or user: known, and refused at once on every process (the identity epoch).
    if (isDriveError(err)) throw unauthorized(err.message);
    throw err;
  }
  const matches = found !== null &&
    (creds.user === null || found.user.accountId.toLowerCase() === name ||
      (found.user.email ?? "").toLowerCase() === name);
  if (!found || !matches) {
    // Counted after the check (one read per request, no commit): concurrent failures can each
    // pass the check once before the first is counted, which bounds nothing but the first burst.
    await takeGuess(d.kv, guesser);
    await countWrongGuess(d.kv, [guesser.subject, `client:${client}`]);
    throw unauthorized("The user name or the API key is wrong, or the key is revoked");
  }
  if (check.tried) await clearGuesses(d.kv, guesser);
  const caller: DavCaller = {
    userSeq: found.user.userSeq,
    tenantId: found.user.tenantId,
    user: found.user,
    keyId: found.key.keyId,
    scopes: found.key.scopes,
  };
  setActor(c, { kind: "user", userSeq: caller.userSeq, keyId: caller.keyId });
  return caller;
}

/** The api:write rule: every method but the reading ones. */
export function assertScope(caller: DavCaller, method: string): void {
  if (READ_METHODS.has(method) || caller.scopes.includes("api:write")) return;
  throw new DavError(403, `${method} needs an API key with the api:write scope`, {
    code: "AUTH_003",
  });
}
