/**
 * Admin API: API keys, issued (the key shown once), listed, revoked, disabled and enabled
 * (disabling is undone by enabling; a revoked key stays revoked).
 */
import { z } from "@hono/zod-openapi";
import { createApiKey, revokeApiKey, setApiKeyDisabled } from "../../kv/identity/api_keys.ts";
import type { Deps } from "../../kv/deps.ts";
import { newOpenApiApp } from "../http/openapi.ts";
import { listApiKeyPage } from "../../kv/identity/admin_lists.ts";
import {
  adminPageQuery,
  BODY_ERRORS,
  creationRoute,
  operation,
  optionalSeqQuery,
  serveDelete,
  serveSearchedList,
  serveSwitches,
  SWITCH_SUMMARY,
} from "./schemas/common.ts";
import {
  ApiKeySchema,
  CreateKeyBody,
  type IssuedApiKey,
  IssuedApiKeySchema,
  KEY_ID_PATTERN,
  KEY_ID_RULE,
} from "./schemas/identity.ts";

const keyOp = operation("API keys");
const ON_KEY = { targets: { keyId: "keyId" } } as const;

const KeyParams = z.object({
  keyId: z.string().regex(KEY_ID_PATTERN, `must be ${KEY_ID_RULE}`).openapi({
    param: { name: "keyId", in: "path" },
    description: "The key id: the part between drv_ and the second _ of the key",
    example: "AbCdEf0123456789",
  }),
});

const KeysQuery = adminPageQuery(
  "the key id (exact case) or of the user's accountId, e-mail, name or a word of the name",
  "ali",
).extend({ userSeq: optionalSeqQuery("userSeq", "Only this user's keys") });

export function keysAdminApi(d: Deps) {
  const app = newOpenApiApp();
  serveSwitches(app, {
    path: "/keys/{keyId}",
    name: (action) =>
      keyOp(
        `${action}ApiKey`,
        `${SWITCH_SUMMARY[action]}: one API key (a revoked key stays revoked)`,
        {
          action: `key_${action}d`,
          ...ON_KEY,
        },
      ),
    params: KeyParams,
    schema: ApiKeySchema,
    description: "The key as it is now (disabledAt null when enabled)",
    missing: "KEY_001",
  }, ({ keyId }, disabled) => setApiKeyDisabled(d.kv, keyId, disabled));
  app.openapi(
    creationRoute(
      "/keys",
      keyOp("createApiKey", "Issue an API key for a user; the key itself is shown this once", {
        action: "key_issued",
        created: { keyId: "keyId", userSeq: "userSeq" },
      }),
      CreateKeyBody,
      { record: IssuedApiKeySchema, description: "The key's record and the key" },
      ...BODY_ERRORS,
      "USER_001",
    ),
    async (c) => {
      const { key, apiKey } = await createApiKey(d.kv, c.req.valid("json"));
      return c.json({ ...key, apiKey } satisfies IssuedApiKey, 201);
    },
  );
  serveSearchedList(d.kv, app, {
    path: "/keys",
    name: keyOp(
      "listApiKeys",
      "List API keys (never the keys themselves), of one user or all, a page at a time " +
        "in key id order; searched: the keys whose id matches, then those of matching users",
    ),
    query: KeysQuery,
    item: ApiKeySchema,
    what: { items: "The keys", page: "A page of API keys" },
  }, { list: listApiKeyPage, filters: ({ userSeq }) => ({ userSeq }) });
  serveDelete(app, {
    path: "/keys/{keyId}",
    name: keyOp("revokeApiKey", "Revoke an API key for good (its download tokens die with it)", {
      action: "key_revoked",
      ...ON_KEY,
    }),
    params: KeyParams,
    done: "Revoked",
    missing: "KEY_001",
  }, ({ keyId }) => revokeApiKey(d.kv, keyId));
  return app;
}
