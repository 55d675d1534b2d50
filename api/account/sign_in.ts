/**
 * Account API: signing in and out, who am I, changing the password, and invitation and reset
 * links. Every route that signs a browser in starts a fresh session (startSession with the
 * cookie it held before, which is deleted: a planted id is useless) and sets the one cookie
 * (api/http/session_cookie.ts).
 */
import type { Context } from "hono";
import type { Deps } from "../../kv/deps.ts";
import { fail, isDriveError } from "../../kv/errors.ts";
import { checkSignIn } from "../../kv/identity/sign_in.ts";
import { changePassword } from "../../kv/identity/passwords.ts";
import { acceptInvitation, describeInvitation } from "../../kv/identity/invitations.ts";
import { endSession, type Session, startSession } from "../../kv/identity/sessions.ts";
import { accountDisabledReason, type User, userIdentity } from "../../kv/identity/users.ts";
import { getUsage } from "../../kv/tree/usage.ts";
import { setActor } from "../../lib/request_facts.ts";
import { recordAccountEvent } from "../http/account_events.ts";
import { clientOf } from "../http/client_address.ts";
import { jsonBody, newOpenApiApp, tagRoutes } from "../http/openapi.ts";
import { assertSameOrigin, requireSession, sessionLabel } from "../http/session_auth.ts";
import { clearSessionCookie, sessionIdOf, setSessionCookie } from "../http/session_cookie.ts";
import {
  AcceptInvitationBody,
  answers,
  BODY_ERRORS,
  ChangePasswordBody,
  DoneSchema,
  InvitationLookupBody,
  InvitationSchema,
  MeSchema,
  sessionAnswers,
  type SignedIn,
  SignedInSchema,
  SignInBody,
} from "./schemas/account.ts";

const iso = (ms: number) => new Date(ms).toISOString();

/** The answer of every route that signs in, and of GET /me. */
export function signedInView(user: User, session: Session): SignedIn {
  return {
    user: { ...userIdentity(user), roles: user.roles ?? [] },
    csrfToken: session.csrfToken,
    session: { id: session.id, expiresAt: iso(session.expiresAt) },
  };
}

const route = tagRoutes("Sign-in");

const signInRoute = route("post", "/sign-in", "signIn", {
  summary: "Sign in with an account (accountId or e-mail) and a password; sets the session cookie",
  description: "Needs an Origin of the service. Wrong passwords are throttled per client and " +
    "account (429 with Retry-After); an unknown account answers exactly like a wrong password.",
  security: [],
  request: { body: jsonBody(SignInBody) },
  responses: answers(
    SignedInSchema,
    "Signed in: the session cookie is set",
    "AUTH_007",
    "AUTH_008",
    "AUTH_006",
    "AUTH_010",
    "OIDC_009",
    ...BODY_ERRORS,
  ),
});

const signOutRoute = route("post", "/sign-out", "signOut", {
  summary: "Sign out: the session ends on every process, the cookie is cleared",
  // Also without a session: signing out of one that ended is done.
  security: [],
  responses: answers(
    DoneSchema,
    "Signed out (also when the session had ended already)",
    "AUTH_006",
    "AUTH_010",
  ),
});

const meRoute = route("get", "/me", "getMe", {
  summary: "Who is signed in, the session's CSRF token, and the storage used and allowed",
  responses: sessionAnswers(MeSchema, "The signed-in user, session and usage"),
});

const passwordRoute = route("post", "/password", "changePassword", {
  summary: "Change your password with the current one; every other session ends",
  description: "This browser gets a new session (and CSRF token) in the answer.",
  request: { body: jsonBody(ChangePasswordBody) },
  responses: sessionAnswers(
    SignedInSchema,
    "Changed; this browser's new session",
    "AUTH_012",
    "AUTH_013",
    ...BODY_ERRORS,
  ),
});

const lookupRoute = route("post", "/invitations/lookup", "lookupInvitation", {
  summary: "What an invitation or reset link is for (the token stays out of URLs and logs)",
  security: [],
  request: { body: jsonBody(InvitationLookupBody) },
  responses: answers(InvitationSchema, "The link's account and kind", "AUTH_014", ...BODY_ERRORS),
});

const acceptRoute = route("post", "/invitations/accept", "acceptInvitation", {
  summary: "Use an invitation or reset link: set the password and sign in",
  description: "The link works once. Every earlier session of the user ends. Needs an Origin " +
    "of the service.",
  security: [],
  request: { body: jsonBody(AcceptInvitationBody) },
  responses: answers(
    SignedInSchema,
    "Password set and signed in",
    "AUTH_014",
    "AUTH_013",
    "AUTH_010",
    "AUTH_006",
    "OIDC_009",
    ...BODY_ERRORS,
  ),
});

/** A browser signs in as `user`: the new session, its cookie, its activity entry. */
async function signInBrowser(c: Context, d: Deps, user: User, detail: Record<string, string>) {
  const disabled = await accountDisabledReason(d.kv, user);
  if (disabled) fail("AUTH_006", `You cannot sign in: ${disabled}`);
  const started = await startSession(d, user.userSeq, {
    userAgent: c.req.header("user-agent") ?? "",
    address: clientOf(c, d.config.trustedProxies),
    via: "password",
    replaces: sessionIdOf(c, d.config),
  });
  setSessionCookie(c, d.config, started);
  setActor(c, {
    kind: "user",
    userSeq: user.userSeq,
    keyId: `session:${sessionLabel(started.session)}`,
  });
  await recordAccountEvent(d.kv, "signed_in", user, {
    session: sessionLabel(started.session),
    ...detail,
  });
  return started.session;
}

export function signInApi(d: Deps) {
  const app = newOpenApiApp();

  app.openapi(signInRoute, async (c) => {
    // A foreign page must not sign a browser into someone else's account (login CSRF).
    assertSameOrigin(c, d.config.publicUrl);
    const body = c.req.valid("json");
    const client = clientOf(c, d.config.trustedProxies);
    const result = await checkSignIn(d, body.login, body.password, client);
    if (!result.ok) {
      const wait = result.retryAfter;
      await recordAccountEvent(d.kv, "sign_in_failed", result.user, {
        reason: wait > 0 ? "throttled" : "wrong password",
      });
      if (wait > 0) {
        return c.json(
          { error: "AUTH_008", message: `Too many wrong passwords; retry in ${wait} s` },
          429,
          { "Retry-After": String(wait) },
        ) as never;
      }
      return c.json(
        { error: "AUTH_007", message: "Wrong account or password", field: "password" },
        401,
      ) as never;
    }
    const session = await signInBrowser(c, d, result.user, { via: "password" });
    return c.json(signedInView(result.user, session), 200);
  });

  app.openapi(signOutRoute, async (c) => {
    try {
      const signedIn = await requireSession(c, d);
      await endSession(d.kv, signedIn.sessionId);
      await recordAccountEvent(d.kv, "signed_out", signedIn.user, {
        session: sessionLabel(signedIn.session),
      });
    } catch (err) {
      // Signing out of a session that already ended is done; anything else is an error.
      if (!isDriveError(err) || err.code !== "AUTH_009") throw err;
    }
    clearSessionCookie(c, d.config);
    return c.json({ done: true as const }, 200);
  });

  app.openapi(meRoute, async (c) => {
    const { user, session } = await requireSession(c, d);
    c.header("Cache-Control", "no-store");
    const usage = {
      usedBytes: await getUsage(d.kv, user.userSeq),
      // No quota is stored as unlimited today; a value past exact integers would mean one.
      quotaBytes: Number.isSafeInteger(user.quotaBytes) ? user.quotaBytes : null,
    };
    return c.json({ ...signedInView(user, session), usage }, 200);
  });

  app.openapi(passwordRoute, async (c) => {
    const signedIn = await requireSession(c, d);
    const body = c.req.valid("json");
    const user = await changePassword(
      d.kv,
      signedIn.user.userSeq,
      body.currentPassword,
      body.newPassword,
    );
    await recordAccountEvent(d.kv, "password_changed", user);
    const session = await signInBrowser(c, d, user, { via: "password change" });
    return c.json(signedInView(user, session), 200);
  });

  app.openapi(lookupRoute, async (c) => {
    const found = await describeInvitation(d.kv, c.req.valid("json").token);
    c.header("Cache-Control", "no-store");
    return c.json({
      kind: found.kind,
      accountId: found.user.accountId,
      name: found.user.name,
      expiresAt: iso(found.expiresAt),
    }, 200);
  });

  app.openapi(acceptRoute, async (c) => {
    assertSameOrigin(c, d.config.publicUrl);
    const body = c.req.valid("json");
    const { user, kind } = await acceptInvitation(d.kv, body.token, body.password);
    await recordAccountEvent(d.kv, kind === "reset" ? "password_reset" : "invitation_used", user);
    const session = await signInBrowser(c, d, user, { via: kind });
    return c.json(signedInView(user, session), 200);
  });

  return app;
}
