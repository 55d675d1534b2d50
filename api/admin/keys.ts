/**
 * Admin API: API keys, issued (the key shown once), listed, revoked, disabled and enabled
 * (disabling is undone by enabling; a revoked key stays revoked).
 */
import { z } from "@hono/zod-openapi";
import { createApiKey, revokeApiKey, setApiKeyDisabled } from "../../kv/identity/api_keys.ts";
import type { Deps } from "../../kv/deps.ts";
import { newOpenApiApp } from "../http/openapi.ts";
import { searchedPage } from "../http/cursor.ts";
import { listApiKeyPage } from "../../kv/identity/admin_lists.ts";
import {
  adminListRoute,
  adminPageQuery,
  BODY_ERRORS,
  creationRoute,
  deleteRoute,
  operation,
  optionalSeqQuery,
  type Paged,
  SWITCH_SUMMARY,
  switchRoute,
} from "./schemas/common.ts";
import {
  type ApiKey,
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
  for (const action of ["disable", "enable"] as const) {
    const disabled = action === "disable";
    const summary = SWITCH_SUMMARY[action];
    app.openapi(
      switchRoute(
        `/keys/{keyId}/${action}`,
        keyOp(`${action}ApiKey`, `${summary}: one API key (a revoked key stays revoked)`, {
          action: `key_${action}d`,
          ...ON_KEY,
        }),
        KeyParams,
        ApiKeySchema,
        "The key as it is now (disabledAt null when enabled)",
        "KEY_001",
      ),
      async (c) => {
        const key = await setApiKeyDisabled(d.kv, c.req.valid("param").keyId, disabled);
        return c.json(key satisfies ApiKey, 200);
      },
    );
  }
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
  app.openapi(
    adminListRoute(
      "/keys",
      keyOp(
        "listApiKeys",
        "List API keys (never the keys themselves), of one user or all, a page at a time " +
          "in key id order; searched: the keys whose id matches, then those of matching users",
      ),
      KeysQuery,
      ApiKeySchema,
      { items: "The keys", page: "A page of API keys" },
    ),
    async (c) => {
      const query = c.req.valid("query");
      const { userSeq } = query;
      const page = await searchedPage(d.kv, listApiKeyPage, "keys", query, { userSeq });
      return c.json(page satisfies Paged<ApiKey>, 200);
    },
  );
  app.openapi(
    deleteRoute(
      "/keys/{keyId}",
      keyOp("revokeApiKey", "Revoke an API key for good (its download tokens die with it)", {
        action: "key_revoked",
        ...ON_KEY,
      }),
      KeyParams,
      "Revoked",
      "KEY_001",
    ),
    async (c) => {
      await revokeApiKey(d.kv, c.req.valid("param").keyId);
      return c.body(null, 204);
    },
  );
  return app;
}
