/**
 * One single sign-on, start to end (docs/authentication.md): the authorization code flow with
 * PKCE, `state` and `nonce`, through panva's openid-client (a certified relying party). Every
 * check of the provider's answer is the library's: the ID token's signature against the
 * provider's JWKS (fetched at each sign-in, so a rotated key is found), `iss`, `aud`, `exp`,
 * `iat`, `nonce`, and the state and PKCE verifier of the code exchange.
 *
 * What a sign-in must remember between the redirect out and the callback (nonce, PKCE verifier,
 * tenant, where to go after) lives in KV under the SHA-256 of `state`, with expireIn, and is
 * deleted by the callback in the same commit that reads it: any process of the service can
 * finish a sign-in another started, and a state works once.
 */
import * as oidc from "openid-client";
import { commit } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail, isDriveError } from "../errors.ts";
import { oidcFlowKey } from "../keys.ts";
import {
  emailDomainAllowed,
  oidcClientSecret,
  type OidcSettings,
  requireOidcSettings,
} from "./oidc.ts";
import { createUser, findUserByAccountId, findUserByEmail, type User } from "./users.ts";
import { sha256Hex } from "../../lib/secrets.ts";
import { driveLogger } from "../../lib/logger.ts";

/** How long a started sign-in may take at the provider (login, consent, MFA). */
export const FLOW_TTL_MS = 10 * 60_000;
/** Longest wait for the provider's discovery, JWKS or token answer. */
const PROVIDER_TIMEOUT_S = 15;

interface OidcFlow {
  tenantId: number;
  nonce: string;
  codeVerifier: string;
  /** A path of this service to open after signing in. */
  returnTo: string;
  createdAt: number;
}

export interface OidcSignIn {
  user: User;
  /** The user was created by this sign-in (just in time). */
  created: boolean;
  tenantId: number;
}

/** https, or http to a loopback address (a provider on the same machine, as in the tests). */
export function issuerProblem(issuer: string): string | null {
  if (!URL.canParse(issuer)) return "is not a URL";
  const url = new URL(issuer);
  if (url.username || url.password || url.search || url.hash) {
    return "must have no credentials, query or fragment";
  }
  if (url.protocol === "https:") return null;
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" ||
    /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  return url.protocol === "http:" && loopback ? null : "must be https (http only to loopback)";
}

/** Only a path of this service: no scheme, no host, no `//` (an open redirect otherwise). */
export function safeReturnTo(returnTo: string | undefined): string {
  if (!returnTo || !returnTo.startsWith("/") || returnTo.startsWith("//")) return "/";
  return /[\\\s]/.test(returnTo) ? "/" : returnTo;
}

async function clientConfig(d: Deps, settings: OidcSettings): Promise<oidc.Configuration> {
  const secret = await oidcClientSecret(d, settings.tenantId);
  const insecure = new URL(settings.issuer).protocol === "http:";
  try {
    return await oidc.discovery(
      new URL(settings.issuer),
      settings.clientId,
      secret,
      oidc.ClientSecretPost(secret),
      { timeout: PROVIDER_TIMEOUT_S, execute: insecure ? [oidc.allowInsecureRequests] : [] },
    );
  } catch (err) {
    driveLogger("oidc").warn("discovery failed", { tenantId: settings.tenantId, error: `${err}` });
    return fail("OIDC_004", `The identity provider at ${settings.issuer} did not answer discovery`);
  }
}

/** Starts a sign-in: remembers its state and returns the provider's authorization URL. */
export async function beginOidcSignIn(
  d: Deps,
  tenantId: number,
  redirectUri: string,
  returnTo?: string,
): Promise<URL> {
  const settings = await requireOidcSettings(d.kv, tenantId);
  const config = await clientConfig(d, settings);
  const state = oidc.randomState();
  const flow: OidcFlow = {
    tenantId,
    nonce: oidc.randomNonce(),
    codeVerifier: oidc.randomPKCECodeVerifier(),
    returnTo: safeReturnTo(returnTo),
    createdAt: Date.now(),
  };
  await d.kv.set(oidcFlowKey(sha256Hex(state)), flow, { expireIn: FLOW_TTL_MS });
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: "openid email profile",
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.codeVerifier),
    code_challenge_method: "S256",
    state,
    nonce: flow.nonce,
  });
}

/** Reads and deletes the flow of `state` in one commit: a state is good for one callback. */
async function takeFlow(kv: Deno.Kv, state: string | null): Promise<OidcFlow> {
  if (!state || state.length > 512) return fail("OIDC_003", "The callback carries no state");
  const key = oidcFlowKey(sha256Hex(state));
  const entry = await kv.get<OidcFlow>(key);
  // expireIn deletes late, so the age is checked too.
  if (!entry.value || Date.now() - entry.value.createdAt > FLOW_TTL_MS) {
    return fail("OIDC_003", "This sign-in attempt is unknown, used or expired");
  }
  if (!(await commit(kv.atomic().check(entry).delete(key)))) {
    return fail("OIDC_003", "This sign-in attempt was used already");
  }
  return entry.value;
}

function claimText(claims: Record<string, unknown>, name: string): string {
  const value = claims[name];
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (typeof value === "number") return String(value);
  return fail("OIDC_006", `The ID token has no claim "${name}" (the tenant's claim mapping)`);
}

/** The user the claims name in the tenant: found by e-mail, or created with the default quota. */
async function matchUser(
  d: Deps,
  settings: OidcSettings,
  claims: Record<string, unknown>,
): Promise<{ user: User; created: boolean }> {
  const email = claimText(claims, settings.claims.email).toLowerCase();
  if (claims.email_verified === false) {
    fail("OIDC_005", "The identity provider says the e-mail address is not verified");
  }
  if (!emailDomainAllowed(settings, email)) {
    fail("OIDC_007", `Addresses of ${email.slice(email.lastIndexOf("@") + 1)} may not sign in`);
  }
  const existing = await findUserByEmail(d.kv, email);
  if (existing) {
    if (existing.tenantId !== settings.tenantId) {
      fail("OIDC_008", "This e-mail address belongs to a user of another tenant");
    }
    return { user: existing, created: false };
  }
  const accountId = claimText(claims, settings.claims.accountId);
  const name = claimText(claims, settings.claims.name).slice(0, 200);
  if (/[\s/\\]/.test(accountId) || accountId.length > 254) {
    fail("OIDC_006", `The account id claim "${settings.claims.accountId}" is not a valid id`);
  }
  if (await findUserByAccountId(d.kv, accountId)) {
    fail("OIDC_008", `The account id "${accountId}" is taken by another user`);
  }
  try {
    const user = await createUser(d.kv, {
      tenantId: settings.tenantId,
      accountId,
      email,
      name,
      quotaBytes: d.config.defaultQuotaBytes,
    });
    return { user, created: true };
  } catch (err) {
    // A sign-in of the same new user on another tab or process won the race: use that user.
    if (isDriveError(err) && (err.code === "USER_002" || err.code === "USER_003")) {
      const raced = await findUserByEmail(d.kv, email);
      if (raced?.tenantId === settings.tenantId) return { user: raced, created: false };
      fail("OIDC_008", "The e-mail address or account id was taken meanwhile");
    }
    throw err;
  }
}

/**
 * Finishes a sign-in at the callback (`callbackUrl`: the full URL the provider redirected to):
 * exchanges the code, has the library validate the ID token, and returns the matched user.
 */
export async function finishOidcSignIn(
  d: Deps,
  callbackUrl: URL,
  redirectUri: string,
): Promise<OidcSignIn & { returnTo: string }> {
  const flow = await takeFlow(d.kv, callbackUrl.searchParams.get("state"));
  const settings = await requireOidcSettings(d.kv, flow.tenantId);
  const config = await clientConfig(d, settings);
  // The library compares the redirect URI it sends with what the provider saw: give it the
  // registered one, whatever host or proxy the request came through.
  const current = new URL(redirectUri);
  current.search = callbackUrl.search;
  let claims: Record<string, unknown>;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.codeVerifier,
      expectedState: callbackUrl.searchParams.get("state")!,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims()!;
    claims = { ...idClaims };
    const mapped = Object.values(settings.claims);
    // Providers may keep profile claims out of the ID token (oidc-provider does, Entra ID without
    // optional claims): then they come from userinfo, which the library ties to the same `sub`.
    if (mapped.some((name) => claims[name] === undefined) && tokens.access_token) {
      const info = await oidc.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      claims = { ...info, ...idClaims };
    }
  } catch (err) {
    const why = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    driveLogger("oidc").warn("sign-in refused", { tenantId: flow.tenantId, error: why });
    const unreachable = err instanceof TypeError || (err as Error)?.name === "TimeoutError";
    return fail(unreachable ? "OIDC_004" : "OIDC_005", `The identity provider's answer: ${why}`);
  }
  const { user, created } = await matchUser(d, settings, claims);
  return { user, created, tenantId: flow.tenantId, returnTo: flow.returnTo };
}
