/**
 * Bearer API-key authentication and the api:write scope rule of the external API, and the one
 * resource check its file and folder routes share.
 */
import type { MiddlewareHandler } from "hono";
import { type Scope, verifyApiKey } from "../../kv/identity/api_keys.ts";
import { type Action, authorizeResourceAccess, type Caller } from "../../kv/sharing/authorize.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import { fail } from "../../kv/errors.ts";
import type { User } from "../../kv/identity/users.ts";
import { setActor } from "../../lib/request_facts.ts";
import type { FactCache } from "../../kv/deps.ts";

export interface ApiCaller extends Caller {
  user: User;
  keyId: string;
  scopes: Scope[];
}

export type ApiEnv = { Variables: { caller: ApiCaller } };

export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m ? m[1] : null;
}

/**
 * Requires a valid, unrevoked API key and sets `caller`. With the process's identity cache
 * (Deps.identity), one read per request: the key record with the identity epoch.
 */
export function requireApiKey(kv: Deno.Kv, cache?: FactCache): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (!token) fail("AUTH_001", "Send the API key as Authorization: Bearer <key>");
    const found = await verifyApiKey(kv, token, cache);
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
