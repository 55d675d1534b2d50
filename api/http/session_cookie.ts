/**
 * The session cookie: its name and attributes in one place, so a password sign-in
 * (api/account/) and an OIDC callback set exactly the same cookie.
 *
 * `__Host-drive_session`, HttpOnly, SameSite=Lax, Path=/, no Domain, Secure. Browsers accept a
 * `__Host-` cookie only with Secure, so when DRIVE_PUBLIC_URL is plain http (a development
 * set-up on localhost) the cookie is `drive_session` with the same attributes minus Secure;
 * docs/authentication.md says so. Max-Age is the absolute lifetime: the idle timeout is the
 * server's to enforce (kv/identity/sessions.ts), a cookie cannot know about it.
 */
import type { Context } from "hono";
import type { StartedSession } from "../../kv/identity/sessions.ts";

/** What the cookie depends on (Config's fields). */
interface CookieConfig {
  publicUrl: string;
  sessionLifetimeMs: number;
}

export const SECURE_COOKIE_NAME = "__Host-drive_session";
export const PLAIN_COOKIE_NAME = "drive_session";

const isHttps = (config: Pick<CookieConfig, "publicUrl">) =>
  new URL(config.publicUrl).protocol === "https:";

/** The cookie's name under this configuration. */
export function sessionCookieName(config: Pick<CookieConfig, "publicUrl">): string {
  return isHttps(config) ? SECURE_COOKIE_NAME : PLAIN_COOKIE_NAME;
}

function cookie(config: CookieConfig, value: string, maxAgeS: number): string {
  const parts = [
    `${sessionCookieName(config)}=${value}`,
    "Path=/",
    `Max-Age=${maxAgeS}`,
    "HttpOnly",
    "SameSite=Lax",
  ];
  if (isHttps(config)) parts.push("Secure");
  return parts.join("; ");
}

/** Sets the cookie of a session just started (startSession in kv/identity/sessions.ts). */
export function setSessionCookie(c: Context, config: CookieConfig, started: StartedSession) {
  const maxAge = Math.max(0, Math.floor((started.session.expiresAt - Date.now()) / 1000));
  c.header("Set-Cookie", cookie(config, started.sessionId, maxAge), { append: true });
  // Never cached: the answer carries a credential.
  c.header("Cache-Control", "no-store");
}

/** Tells the browser to forget the cookie (sign-out, or a session that no longer works). */
export function clearSessionCookie(c: Context, config: CookieConfig) {
  c.header("Set-Cookie", cookie(config, "", 0), { append: true });
}

/** The session id the request's cookie carries, or null. */
export function sessionIdOf(c: Context, config: Pick<CookieConfig, "publicUrl">): string | null {
  const name = sessionCookieName(config);
  for (const part of (c.req.header("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}
