/**
 * Authentication of the drive API: a bearer API key (or app password, the same thing), or a
 * signed-in session's cookie (api/http/session_auth.ts: CSRF token and Origin on unsafe
 * methods). A session acts as its user's read-write key: the same caller, the same decisions of
 * kv/sharing/authorize.ts. Also the api:write scope rule and the one resource check the file and
 * folder routes share.
 */
import type { MiddlewareHandler } from "hono";
import { type Scope, verifyApiKey } from "../../kv/identity/api_keys.ts";
import { type Action, authorizeResourceAccess, type Caller } from "../../kv/sharing/authorize.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import { fail } from "../../kv/errors.ts";
import type { User } from "../../kv/identity/users.ts";
import { setActor } from "../../lib/request_facts.ts";
import type { Deps } from "../../kv/deps.ts";
import { sessionLabel, sessionOf } from "./session_auth.ts";

export interface ApiCaller extends Caller {
  user: User;
  /** The API key's id, or `session:<session id hash>` for a signed-in browser. */
  keyId: string;
  scopes: Scope[];
}

/** A session's scopes: those of its user's read-write key. */
export const SESSION_SCOPES: readonly Scope[] = ["api:read", "api:write"];

export type ApiEnv = { Variables: { caller: ApiCaller } };

export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m ? m[1] : null;
}

/**
 * Requires a valid, unrevoked API key, or (without an Authorization header) a live session
 * cookie, and sets `caller`. With the process's identity cache (Deps.identity), one read per
 * request: the key or session record with the identity epoch.
 */
export function requireCaller(d: Deps): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    const signedIn = header === undefined ? await sessionOf(c, d) : null;
    if (signedIn) {
      const { user, session } = signedIn;
      c.set("caller", {
        userSeq: user.userSeq,
        tenantId: user.tenantId,
        user,
        keyId: `session:${session.id}`,
        scopes: [...SESSION_SCOPES],
      });
      setActor(c, {
        kind: "user",
        userSeq: user.userSeq,
        keyId: `session:${sessionLabel(session)}`,
      });
      return await next();
    }
    const token = bearerToken(header);
    if (!token) {
      fail("AUTH_001", "Send the API key as Authorization: Bearer <key>, or sign in");
    }
    const found = await verifyApiKey(d.kv, token, d.identity);
    if (!found) fail("AUTH_002", "The API key is unknown or revoked");
    c.set("caller", {
      userSeq: found.user.userSeq,
      tenantId: found.user.tenantId,
      user: found.user,
      keyId: found.key.keyId,
      scopes: found.key.scopes,
    });
    // For the request log and metrics (api/ops/): who, never the key itself.
    setActor(c, { kind: "user", userSeq: found.user.userSeq, keyId: found.key.keyId });
    await next();
  };
}

/** The api:write scope check; pinned folders and editor-session endpoints do not use it. */
export const requireWrite: MiddlewareHandler<ApiEnv> = async (c, next) => {
  if (!c.get("caller").scopes.includes("api:write")) {
    fail("AUTH_003", "This operation needs an API key with the api:write scope");
  }
  await next();
};

/**
 * The `type` resource `rs` that `caller` may `action` (`ss`: its owner, when it is shared with
 * the caller), or the catalog error saying why not.
 */
export async function authorizedResource(
  kv: Deno.Kv,
  caller: Caller,
  type: Resource["type"],
  rs: number,
  ss: number | null | undefined,
  action: Action,
): Promise<Resource> {
  return (await authorizeResourceAccess(kv, caller, { rs, ss, type }, action)).resource;
}
