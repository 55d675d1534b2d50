/**
 * A request authenticated by its session cookie: the session, its user, and the CSRF rule every
 * area applies to it (the drive API, the account API, the admin API for administrators by name).
 *
 * A cookie rides along with requests other sites make the browser send, so a request that
 * changes something (any method but GET, HEAD, OPTIONS) carried by a session cookie needs both:
 * - `X-CSRF-Token`, the token bound to the session (answered at sign-in and by GET /me; another
 *   site cannot read it), compared in constant time;
 * - an `Origin` header equal to DRIVE_PUBLIC_URL's origin (browsers send it on every unsafe
 *   request; a missing one is refused too).
 * Bearer credentials (API keys, app passwords, the admin token) are not sent by browsers on their
 * own, so they need neither.
 */
import type { Context } from "hono";
import { fail } from "../../kv/errors.ts";
import type { Deps } from "../../kv/deps.ts";
import { type Session, verifySession } from "../../kv/identity/sessions.ts";
import type { User } from "../../kv/identity/users.ts";
import { digestsEqual, sha256Hex } from "../../lib/secrets.ts";
import { sessionIdOf } from "./session_cookie.ts";

export const CSRF_HEADER = "X-CSRF-Token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const isUnsafe = (c: Context) => !SAFE_METHODS.has(c.req.method);

/** Fails with AUTH_010 unless the request's Origin is DRIVE_PUBLIC_URL's. */
export function assertSameOrigin(c: Context, publicUrl: string): void {
  const origin = c.req.header("origin");
  if (!origin || origin !== new URL(publicUrl).origin) {
    fail("AUTH_010", `Send this from ${new URL(publicUrl).origin} (Origin header)`);
  }
}

/** The request's session, or null when it carries no session cookie. */
export interface SignedIn {
  /** The session id from the cookie (to end it at sign-out; never logged). */
  sessionId: string;
  session: Session;
  user: User;
}

/**
 * The live session the request's cookie names, with its user; null when there is no cookie.
 * A cookie naming no live session is AUTH_009, a disabled user or tenant AUTH_006. An unsafe
 * request must pass the CSRF rule (AUTH_010).
 */
export async function sessionOf(c: Context, d: Deps): Promise<SignedIn | null> {
  const sessionId = sessionIdOf(c, d.config);
  if (sessionId === null) return null;
  const found = await verifySession(d, sessionId);
  if (!found) fail("AUTH_009", "Your session ended: sign in again");
  if (found.disabled) fail("AUTH_006", `You cannot act now: ${found.disabled}`);
  if (isUnsafe(c)) {
    assertSameOrigin(c, d.config.publicUrl);
    const sent = c.req.header(CSRF_HEADER) ?? "";
    // Hashes first: digestsEqual compares equal-length hex in constant time.
    if (!digestsEqual(sha256Hex(sent), sha256Hex(found.session.csrfToken))) {
      fail("AUTH_010", `Send the session's CSRF token as ${CSRF_HEADER}`);
    }
  }
  return { sessionId, session: found.session, user: found.user };
}

/** Like sessionOf, but a request without a session cookie is AUTH_009. */
export async function requireSession(c: Context, d: Deps): Promise<SignedIn> {
  return (await sessionOf(c, d)) ?? fail("AUTH_009", "Sign in first");
}

/** The session's short name in logs and the activity log: 12 hex digits of its public id. */
export const sessionLabel = (s: Pick<Session, "id">) => s.id.slice(0, 12);
