/**
 * Account API: the signed-in user's own credentials. Their sessions (listed, revoked one by one
 * or all but this one) and their app passwords: API keys they make themselves for WebDAV, sync
 * tools and scripts (kv/identity/api_keys.ts, `createdBy: "user"`), shown once, revocable.
 */
import type { Deps } from "../../kv/deps.ts";
import {
  type ApiKey,
  createApiKey,
  listApiKeys,
  revokeApiKey,
} from "../../kv/identity/api_keys.ts";
import {
  listSessions,
  revokeSession,
  revokeSessionsOf,
  type SessionView as StoredSession,
} from "../../kv/identity/sessions.ts";
import { recordAccountEvent } from "../http/account_events.ts";
import { jsonBody, newOpenApiApp, tagRoutes } from "../http/openapi.ts";
import { requireSession } from "../http/session_auth.ts";
import { clearSessionCookie } from "../http/session_cookie.ts";
import {
  accountErrors,
  type AppPassword,
  AppPasswordSchema,
  BODY_ERRORS,
  CreateAppPasswordBody,
  CreatedAppPasswordSchema,
  DoneSchema,
  json,
  KeyParams,
  SESSION_ERRORS,
  sessionAnswers,
  SessionParams,
  SessionSchema,
  type SessionView,
} from "./schemas/account.ts";
import { z } from "@hono/zod-openapi";

const iso = (ms: number) => new Date(ms).toISOString();

const sessionView = (s: StoredSession, currentId: string): SessionView => ({
  id: s.id,
  via: s.via,
  userAgent: s.userAgent,
  address: s.address,
  createdAt: iso(s.createdAt),
  lastSeenAt: iso(s.lastSeenAt),
  expiresAt: iso(s.expiresAt),
  current: s.id === currentId,
});

const appPasswordView = (k: ApiKey): AppPassword => ({
  keyId: k.keyId,
  label: k.label,
  scope: k.scopes.includes("api:write") ? "read-write" : "read",
  createdBy: k.createdBy,
  createdAt: k.createdAt,
  expiresAt: k.expiresAt,
  revokedAt: k.revokedAt,
  disabledAt: k.disabledAt,
});

const sessionRoute = tagRoutes("Sessions");
const appPasswordRoute = tagRoutes("App passwords");

const listSessionsRoute = sessionRoute("get", "/sessions", "listSessions", {
  summary: "Your signed-in sessions: browser, address, last seen; newest first",
  responses: sessionAnswers(
    z.object({ items: z.array(SessionSchema).describe("Newest first") }),
    "Your live sessions",
  ),
});

const revokeSessionRoute = sessionRoute("delete", "/sessions/{id}", "revokeSession", {
  summary: "End one of your sessions (this one too: that is signing out)",
  request: { params: SessionParams },
  responses: sessionAnswers(
    DoneSchema,
    "Ended on every process from its next request",
    "SESSION_001",
  ),
});

const revokeOthersRoute = sessionRoute("delete", "/sessions", "revokeOtherSessions", {
  summary: "End all your sessions but this one",
  responses: sessionAnswers(DoneSchema, "Ended; count says how many"),
});

const listAppPasswordsRoute = appPasswordRoute("get", "/app-passwords", "listAppPasswords", {
  summary: "Your API keys: app passwords you made and keys an administrator issued for you",
  responses: sessionAnswers(
    z.object({ items: z.array(AppPasswordSchema).describe("Your keys, in key id order") }),
    "Never the secrets",
  ),
});

const createAppPasswordRoute = appPasswordRoute("post", "/app-passwords", "createAppPassword", {
  summary: "Make an app password (an API key of yours); it is shown this once",
  request: { body: jsonBody(CreateAppPasswordBody) },
  responses: {
    201: json(CreatedAppPasswordSchema, "The record and, this once, the app password"),
    ...accountErrors(...SESSION_ERRORS, ...BODY_ERRORS),
  },
});

const revokeAppPasswordRoute = appPasswordRoute(
  "delete",
  "/app-passwords/{keyId}",
  "revokeAppPassword",
  {
    summary: "Revoke one of your API keys for good",
    request: { params: KeyParams },
    responses: sessionAnswers(AppPasswordSchema, "The key as it is now", "KEY_001"),
  },
);

export function credentialsApi(d: Deps) {
  const app = newOpenApiApp();

  app.openapi(listSessionsRoute, async (c) => {
    const { user, session } = await requireSession(c, d);
    const items = await listSessions(d.kv, d.config, user);
    return c.json({ items: items.map((s) => sessionView(s, session.id)) }, 200);
  });

  app.openapi(revokeSessionRoute, async (c) => {
    const { user, session } = await requireSession(c, d);
    const { id } = c.req.valid("param");
    await revokeSession(d.kv, user.userSeq, id);
    await recordAccountEvent(d.kv, "session_revoked", user, { session: id.slice(0, 12) });
    if (id === session.id) clearSessionCookie(c, d.config);
    return c.json({ done: true as const }, 200);
  });

  app.openapi(revokeOthersRoute, async (c) => {
    const { user, session } = await requireSession(c, d);
    const count = await revokeSessionsOf(d.kv, user.userSeq, session.id);
    await recordAccountEvent(d.kv, "session_revoked", user, { count });
    return c.json({ done: true as const, count }, 200);
  });

  app.openapi(listAppPasswordsRoute, async (c) => {
    const { user } = await requireSession(c, d);
    const keys = await listApiKeys(d.kv, user.userSeq);
    return c.json({ items: keys.map(appPasswordView) }, 200);
  });

  app.openapi(createAppPasswordRoute, async (c) => {
    const { user } = await requireSession(c, d);
    const body = c.req.valid("json");
    const { key, apiKey } = await createApiKey(d.kv, {
      userSeq: user.userSeq,
      scopes: body.scope === "read-write" ? ["api:read", "api:write"] : ["api:read"],
      label: body.label,
      expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
      createdBy: "user",
    });
    await recordAccountEvent(d.kv, "app_password_created", user, {
      keyId: key.keyId,
      scope: body.scope,
    });
    c.header("Cache-Control", "no-store");
    return c.json({ ...appPasswordView(key), appPassword: apiKey }, 201);
  });

  app.openapi(revokeAppPasswordRoute, async (c) => {
    const { user } = await requireSession(c, d);
    const { keyId } = c.req.valid("param");
    const key = await revokeApiKey(d.kv, keyId, user.userSeq);
    await recordAccountEvent(d.kv, "app_password_revoked", user, { keyId });
    return c.json(appPasswordView(key), 200);
  });

  return app;
}
