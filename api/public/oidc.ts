/**
 * Single sign-on for browsers, mounted at /auth/v1 (docs/authentication.md): the sign-in page's
 * list of providers, the redirect out to a tenant's identity provider, and the callback that
 * finishes the authorization code flow (kv/identity/oidc_flow.ts) and signs the user in exactly
 * as the password form does: startSession, then the one session cookie (api/http/
 * session_cookie.ts). The start and the callback are navigations, so they answer redirects:
 * a failed callback lands on the sign-in page with `?error=<code>`, never on a JSON body.
 * Its OpenAPI document is GET /auth/v1/openapi.json.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Deps } from "../../kv/deps.ts";
import { isDriveError } from "../../kv/errors.ts";
import { listOidcProviders, OIDC_CALLBACK_PATH, oidcRedirectUri } from "../../kv/identity/oidc.ts";
import { beginOidcSignIn, finishOidcSignIn } from "../../kv/identity/oidc_flow.ts";
import { startSession } from "../../kv/identity/sessions.ts";
import { driveLogger } from "../../lib/logger.ts";
import { recordAccountEvent } from "../http/account_events.ts";
import { clientOf } from "../http/client_address.ts";
import { sessionLabel } from "../http/session_auth.ts";
import { externalApiError } from "../http/errors.ts";
import { errorResponses, newOpenApiApp, queryParam, seqParam } from "../http/openapi.ts";
import { sessionIdOf, setSessionCookie } from "../http/session_cookie.ts";

export const AUTH_BASE = "/auth/v1";
/** Where a failed sign-in lands: the app's sign-in page, which explains the code. */
const SIGN_IN_PAGE = "/signin";

const ProviderSchema = z.object({
  tenantId: z.number().int().describe("The tenant whose provider this is").openapi({ example: 1 }),
  label: z.string().describe('The button\'s name: "Sign in with <label>"')
    .openapi({ example: "Acme SSO" }),
  startUrl: z.string().describe("Open this to sign in through the provider")
    .openapi({ example: "/auth/v1/oidc/1/start" }),
}).openapi("OidcProvider", { description: "A single sign-on the sign-in page offers" });

const ProvidersSchema = z.object({
  items: z.array(ProviderSchema).describe("The providers, by label"),
}).openapi("OidcProviders", { description: "Every tenant's single sign-on" });

const ReturnTo = z.string().max(2048).optional().describe(
  "A path of this service to open after signing in (anything else: /)",
).openapi({ ...queryParam("returnTo"), example: "/account" });

const redirectAnswer = (description: string) => ({
  302: {
    description,
    headers: z.object({
      Location: z.string().describe("Where the browser goes next").openapi({
        example: "https://sso.example.com/auth?client_id=drive",
      }),
    }),
  },
});

const providersRoute = createRoute({
  method: "get",
  path: "/oidc/providers",
  tags: ["Single sign-on"],
  operationId: "listOidcProviders",
  summary: "The single sign-on buttons of the sign-in page",
  responses: {
    200: {
      description: "Every enabled tenant with single sign-on",
      content: { "application/json": { schema: ProvidersSchema } },
    },
  },
});

const startRoute = createRoute({
  method: "get",
  path: "/oidc/{tenantId}/start",
  tags: ["Single sign-on"],
  operationId: "startOidcSignIn",
  summary: "Start signing in through a tenant's identity provider (redirects there)",
  request: {
    params: z.object({ tenantId: seqParam("tenantId").describe("The tenant") }),
    query: z.object({ returnTo: ReturnTo }),
  },
  responses: {
    ...redirectAnswer("To the provider's authorization endpoint (code, PKCE, state, nonce)"),
    ...errorResponses("REQUEST_001", "OIDC_001", "OIDC_004"),
  },
});

const callbackRoute = createRoute({
  method: "get",
  path: "/oidc/callback",
  tags: ["Single sign-on"],
  operationId: "finishOidcSignIn",
  summary: "Where the provider sends the browser back: signs in and redirects",
  description: "Register `<DRIVE_PUBLIC_URL>/auth/v1/oidc/callback` as the redirect URI. " +
    "Success sets the session cookie and redirects to the page the sign-in started from; " +
    "a refusal redirects to `/signin?error=<code>` (docs/errors.md, OIDC_*).",
  request: {
    query: z.object({
      code: z.string().max(4096).optional().describe("The authorization code")
        .openapi({ ...queryParam("code"), example: "Ixd4G0Hc" }),
      state: z.string().max(512).optional().describe("The state the sign-in started with")
        .openapi({ ...queryParam("state"), example: "q7C3Rz" }),
    }).passthrough(),
  },
  responses: redirectAnswer("Signed in (to the app), or refused (to /signin?error=<code>)"),
});

/** What the sign-in page is told: a catalog code, or SERVICE_001 for anything unexpected. */
function failureCode(err: unknown): string {
  if (isDriveError(err)) return err.code;
  driveLogger("oidc").error("sign-in failed unexpectedly", { error: String(err) });
  return "SERVICE_001";
}

async function callback(d: Deps, c: Context): Promise<Response> {
  const redirectUri = oidcRedirectUri(d.config.publicUrl);
  try {
    const signedIn = await finishOidcSignIn(d, new URL(c.req.url), redirectUri);
    const started = await startSession(d, signedIn.user.userSeq, {
      userAgent: c.req.header("user-agent") ?? "",
      address: clientOf(c, d.config.trustedProxies),
      via: "oidc",
      replaces: sessionIdOf(c, d.config),
    });
    setSessionCookie(c, d.config, started);
    await recordAccountEvent(d.kv, "signed_in", signedIn.user, {
      via: "oidc",
      created: signedIn.created,
      session: sessionLabel(started.session),
    });
    return c.redirect(signedIn.returnTo, 302);
  } catch (err) {
    const code = failureCode(err);
    // Who failed is unknown when the provider's answer was refused: the reason is the fact.
    await recordAccountEvent(d.kv, "sign_in_failed", null, { via: "oidc", reason: code });
    c.header("Cache-Control", "no-store");
    return c.redirect(`${SIGN_IN_PAGE}?error=${encodeURIComponent(code)}`, 302);
  }
}

export function oidcSignInApi(d: Deps) {
  const app = newOpenApiApp();
  app.onError(externalApiError);
  app.openapi(providersRoute, async (c) => {
    const items = (await listOidcProviders(d.kv)).map((p) => ({
      ...p,
      startUrl: `${AUTH_BASE}/oidc/${p.tenantId}/start`,
    }));
    return c.json({ items }, 200);
  });
  app.openapi(startRoute, async (c) => {
    const { tenantId } = c.req.valid("param");
    const redirectUri = oidcRedirectUri(d.config.publicUrl);
    const url = await beginOidcSignIn(d, tenantId, redirectUri, c.req.valid("query").returnTo);
    c.header("Cache-Control", "no-store");
    return c.redirect(url.href, 302);
  });
  app.openapi(callbackRoute, (c) => callback(d, c));
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Drive sign-in API (single sign-on)",
      version: "v1",
      description: "Browser navigations of the OpenID Connect sign-in. Errors of the JSON " +
        "route answer the drive API's envelope with a code of docs/errors.md.",
    },
    servers: [{ url: AUTH_BASE }],
    // Every operation is a step of signing in: nobody is signed in yet.
    security: [],
  });
  return app;
}

/** The callback path under AUTH_BASE must be the one kv/identity/oidc.ts tells administrators. */
if (`${AUTH_BASE}/oidc/callback` !== OIDC_CALLBACK_PATH) {
  throw new Error("OIDC_CALLBACK_PATH and the callback route disagree");
}
