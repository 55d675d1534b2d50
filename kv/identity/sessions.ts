/**
 * Server-side sessions of signed-in people (browsers).
 *   ["session", sha256(sessionId)]                  -> Session (expireIn: the sooner of the idle
 *                                                      timeout and the absolute lifetime)
 *   ["session_by_user", userSeq, sha256(sessionId)] -> true (listing and revoking)
 * The session id is 32 random bytes, only ever in the cookie; KV holds its SHA-256, which is also
 * the session's public `id` in listings (it names the session, it does not open it).
 *
 * Every request reads its session record from KV (never cached), so a sign-out or revocation is
 * in force on every process at the next request. A user's standing comes with the identity
 * epoch read in the same snapshot (kv/identity/cache.ts): disabling the user, deleting them or
 * setting their password (User.signedOutAt) voids their sessions everywhere at once too.
 *
 * Idle timeout and absolute lifetime: `lastSeenAt` moves at most once a TOUCH_EVERY_MS, so an
 * active session costs one write a minute, not one per request.
 */
import { commit, commitWithRetry, CONFLICT, getManyValues } from "../db.ts";
import { fail } from "../errors.ts";
import type { FactCache } from "../deps.ts";
import { randomToken, sha256Hex } from "../../lib/secrets.ts";
import { sessionByUserKey, sessionKey } from "../keys.ts";
import { accountDisabledReason, getUser, requireUser, type User, userStanding } from "./users.ts";

export interface Session {
  /** SHA-256 of the session id (hex): the key and the public name of the session. */
  id: string;
  userSeq: number;
  /** The CSRF token the browser sends as X-CSRF-Token on unsafe requests. */
  csrfToken: string;
  via: "password" | "oidc";
  userAgent: string;
  address: string;
  createdAt: number;
  lastSeenAt: number;
  /** The absolute end (createdAt + lifetime). */
  expiresAt: number;
}

/** How long a session lives: DRIVE_SESSION_IDLE_S and DRIVE_SESSION_LIFETIME_S. */
export interface SessionTimes {
  sessionIdleMs: number;
  sessionLifetimeMs: number;
}

/** What startSession hands the edge: the id for the cookie, once, and the record. */
export interface StartedSession {
  sessionId: string;
  csrfToken: string;
  session: Session;
}

const TOUCH_EVERY_MS = 60_000;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Free text shown back to the user: bounded so a header cannot grow a record. */
const MAX_AGENT = 256;

/** When a session ends if nothing happens: idle timeout from `lastSeenAt`, capped by its end. */
const endOf = (s: Session, t: SessionTimes) =>
  Math.min(s.lastSeenAt + t.sessionIdleMs, s.expiresAt);

/**
 * Starts a session for `userSeq` (a password or OIDC sign-in). `replaces` is the session id the
 * browser presented before signing in, if any: it is deleted, so whatever id a browser held
 * before (possibly planted by someone else) is useless afterwards (session fixation).
 */
export async function startSession(
  d: { kv: Deno.Kv; config: SessionTimes },
  userSeq: number,
  info: { userAgent: string; address: string; via: Session["via"]; replaces?: string | null },
): Promise<StartedSession> {
  const user = await requireUser(d.kv, userSeq);
  const sessionId = randomToken(32);
  const id = sha256Hex(sessionId);
  // Strictly after any signedOutAt, so a session started right after a password change counts.
  const now = Math.max(Date.now(), (user.signedOutAt ?? 0) + 1);
  const session: Session = {
    id,
    userSeq,
    csrfToken: randomToken(32),
    via: info.via,
    userAgent: info.userAgent.slice(0, MAX_AGENT),
    address: info.address.slice(0, MAX_AGENT),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + d.config.sessionLifetimeMs,
  };
  const op = d.kv.atomic()
    .check({ key: sessionKey(id), versionstamp: null })
    .set(sessionKey(id), session, { expireIn: endOf(session, d.config) - Date.now() })
    .set(sessionByUserKey(userSeq, id), true, { expireIn: d.config.sessionLifetimeMs });
  if (!(await op.commit()).ok) throw new Error("session id collision");
  if (info.replaces) await endSession(d.kv, info.replaces);
  return { sessionId, csrfToken: session.csrfToken, session };
}

/**
 * The live session of `sessionId` and its user, or null: unknown, signed out, idle too long,
 * past its lifetime, voided by a password change or by disabling, or its user gone. Reads the
 * record with the identity epoch in one snapshot (`cache`), and moves `lastSeenAt` when it is
 * older than a minute.
 */
export async function verifySession(
  d: { kv: Deno.Kv; config: SessionTimes; identity: FactCache },
  sessionId: string,
): Promise<{ session: Session; user: User; disabled: string | null } | null> {
  if (!SESSION_ID_PATTERN.test(sessionId)) return null;
  const id = sha256Hex(sessionId);
  const read = await d.identity.read([sessionKey(id)]);
  const entry = read.entries[0] as Deno.KvEntryMaybe<Session>;
  const session = entry.value;
  const now = Date.now();
  if (!session || now >= endOf(session, d.config)) return null;
  const standing = await userStanding(d.kv, session.userSeq, {
    cache: d.identity,
    epoch: read.epoch,
  });
  if (!standing) return null;
  if (standing.user.signedOutAt != null && session.createdAt <= standing.user.signedOutAt) {
    return null;
  }
  if (now - session.lastSeenAt >= TOUCH_EVERY_MS) {
    const next: Session = { ...session, lastSeenAt: now };
    // A lost race is another request of the same session touching it: nothing to redo.
    await d.kv.atomic().check(entry).set(sessionKey(id), next, {
      expireIn: endOf(next, d.config) - now,
    }).commit();
  }
  return { session, user: standing.user, disabled: standing.disabled };
}

/**
 * Whether session `id` (its public id) still acts for `userSeq`: for credentials derived from
 * a session (download tokens, kv/identity/api_keys.ts keyStillActive).
 */
export async function sessionStillActive(
  kv: Deno.Kv,
  id: string,
  userSeq: number,
): Promise<boolean> {
  const s = (await kv.get<Session>(sessionKey(/^[0-9a-f]{64}$/.test(id) ? id : "-"))).value;
  if (!s || s.userSeq !== userSeq || Date.now() >= s.expiresAt) return false;
  const user = await getUser(kv, userSeq);
  if (!user || (user.signedOutAt != null && s.createdAt <= user.signedOutAt)) return false;
  return (await accountDisabledReason(kv, user)) === null;
}

/** Sign-out: the session is gone on every process from the next request. */
export async function endSession(kv: Deno.Kv, sessionId: string): Promise<void> {
  if (!SESSION_ID_PATTERN.test(sessionId)) return;
  await dropSession(kv, sha256Hex(sessionId));
}

async function dropSession(kv: Deno.Kv, id: string): Promise<boolean> {
  const cur = await kv.get<Session>(sessionKey(id));
  if (!cur.value) return false;
  await kv.atomic().delete(sessionKey(id)).delete(sessionByUserKey(cur.value.userSeq, id))
    .commit();
  return true;
}

/** A session as its user sees it in "My account": never the CSRF token. */
export type SessionView = Omit<Session, "csrfToken">;

/**
 * The live sessions of `user`, newest first. Index entries of sessions that ended are removed on
 * the way (their records already expired or were voided).
 */
export async function listSessions(
  kv: Deno.Kv,
  config: SessionTimes,
  user: Pick<User, "userSeq" | "signedOutAt">,
): Promise<SessionView[]> {
  const ids: string[] = [];
  for await (const e of kv.list({ prefix: sessionByUserKey(user.userSeq) })) {
    ids.push(e.key[2] as string);
  }
  const now = Date.now();
  const out: SessionView[] = [];
  const records = await getManyValues<Session>(kv, ids.map((id) => sessionKey(id)));
  for (const [i, s] of records.entries()) {
    const voided = s && user.signedOutAt != null && s.createdAt <= user.signedOutAt;
    if (!s || now >= endOf(s, config) || voided) {
      await kv.atomic().delete(sessionKey(ids[i])).delete(sessionByUserKey(user.userSeq, ids[i]))
        .commit();
      continue;
    }
    const { csrfToken: _, ...view } = s;
    out.push(view);
  }
  return out.sort((a, b) => b.createdAt - a.createdAt);
}

/** Revokes the user's own session `id` (SESSION_001 when they have no such session). */
export function revokeSession(kv: Deno.Kv, userSeq: number, id: string): Promise<void> {
  return commitWithRetry(async () => {
    const cur = await kv.get<Session>(sessionKey(/^[0-9a-f]{64}$/.test(id) ? id : "-"));
    if (!cur.value || cur.value.userSeq !== userSeq) {
      fail("SESSION_001", `You have no session ${id}`, "id");
    }
    const op = kv.atomic().check(cur).delete(sessionKey(id)).delete(sessionByUserKey(userSeq, id));
    return (await commit(op)) === true ? undefined : CONFLICT;
  });
}

/** Revokes every session of the user but `keep` (an id); answers how many ended. */
export async function revokeSessionsOf(
  kv: Deno.Kv,
  userSeq: number,
  keep: string | null = null,
): Promise<number> {
  let ended = 0;
  for await (const e of kv.list({ prefix: sessionByUserKey(userSeq) })) {
    const id = e.key[2] as string;
    if (id !== keep && await dropSession(kv, id)) ended++;
    else if (id !== keep) await kv.delete(e.key);
  }
  return ended;
}
