/**
 * Admin API: tenants, users (with quota and usage) and API keys, and disabling and enabling each
 * (data kept; keys, adapters and links stop working while disabled).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createApiKey, revokeApiKey, setApiKeyDisabled } from "../../kv/identity/api_keys.ts";
import type { Deps } from "../../kv/deps.ts";
import {
  createTenant,
  requireTenant,
  setTenantDisabled,
  type SharePolicy,
  updateTenant,
} from "../../kv/identity/tenants.ts";
import { getUsage } from "../../kv/tree/usage.ts";
import {
  createUser,
  requireUser,
  setUserDisabled,
  updateUser,
  type User,
} from "../../kv/identity/users.ts";
import { jsonBody, newOpenApiApp, queryParam, seqParam } from "../http/openapi.ts";
import { idFromPath, seqFromPath, validJson, validQuery } from "../http/validate.ts";
import { auditAdminAction } from "../http/admin_audit.ts";
import { pageWithCursor } from "../http/cursor.ts";
import { listApiKeyPage, listTenantPage, listUserPage } from "../../kv/identity/admin_lists.ts";
import {
  adminErrors,
  adminJson,
  adminPageQuery,
  type ApiKey,
  ApiKeySchema,
  CreateKeyBody,
  CreateTenantBody,
  CreateUserBody,
  type IssuedApiKey,
  IssuedApiKeySchema,
  KEY_ID_PATTERN,
  KEY_ID_RULE,
  type Paged,
  pageOf,
  PatchTenantBody,
  PatchUserBody,
  type Tenant,
  TenantSchema,
  type User as UserView,
  UserSchema,
} from "./schemas.ts";

async function userView(d: Deps, user: User): Promise<UserView> {
  return {
    ...user,
    disabledAt: user.disabledAt ?? null,
    usedBytes: await getUsage(d.kv, user.userSeq),
  };
}

// ---------------------------------------------------------------- disable and enable

type Switch = "disable" | "enable";

const SWITCH_SUMMARY: Record<Switch, string> = {
  disable: "Disable (data kept; its API keys, adapters and share links stop working)",
  enable: "Enable again (a no-op when enabled)",
};

const tenantSwitchRoute = (action: Switch) =>
  createRoute({
    method: "post",
    path: `/tenants/{id}/${action}`,
    tags: ["Tenants"],
    operationId: `${action}Tenant`,
    summary: `${SWITCH_SUMMARY[action]}: a tenant and so all of its users`,
    request: { params: z.object({ id: seqParam("id").describe("The tenant id") }) },
    responses: {
      200: {
        description: "The tenant as it is now (disabledAt null when enabled)",
        content: { "application/json": { schema: TenantSchema } },
      },
      ...adminErrors("TENANT_001"),
    },
  });

const userSwitchRoute = (action: Switch) =>
  createRoute({
    method: "post",
    path: `/users/{userSeq}/${action}`,
    tags: ["Users"],
    operationId: `${action}User`,
    summary: `${SWITCH_SUMMARY[action]}: one user`,
    request: { params: z.object({ userSeq: seqParam("userSeq").describe("The user's seq") }) },
    responses: {
      200: {
        description: "The user as it is now (disabledAt null when enabled)",
        content: { "application/json": { schema: UserSchema } },
      },
      ...adminErrors("USER_001"),
    },
  });

const keySwitchRoute = (action: Switch) =>
  createRoute({
    method: "post",
    path: `/keys/{keyId}/${action}`,
    tags: ["API keys"],
    operationId: `${action}ApiKey`,
    summary: `${SWITCH_SUMMARY[action]}: one API key (a revoked key stays revoked)`,
    request: {
      params: z.object({
        keyId: z.string().regex(KEY_ID_PATTERN, `keyId must be ${KEY_ID_RULE}`).describe(
          "The key id: the part between drv_ and the second _ of the key",
        ).openapi({ example: "AbCdEf0123456789" }),
      }),
    },
    responses: {
      200: {
        description: "The key as it is now (disabledAt null when enabled)",
        content: { "application/json": { schema: ApiKeySchema } },
      },
      ...adminErrors("KEY_001"),
    },
  });

/** POST .../disable and .../enable for tenants, users and API keys. */
function lifecycleAdminApi(d: Deps) {
  const app = newOpenApiApp();
  for (const action of ["disable", "enable"] as const) {
    const disabled = action === "disable";
    app.openapi(tenantSwitchRoute(action), async (c) => {
      const tenant = await setTenantDisabled(d.kv, c.req.valid("param").id, disabled);
      return c.json(tenant satisfies Tenant, 200);
    });
    app.openapi(userSwitchRoute(action), async (c) => {
      const user = await setUserDisabled(d.kv, c.req.valid("param").userSeq, disabled);
      return c.json(await userView(d, user), 200);
    });
    app.openapi(keySwitchRoute(action), async (c) => {
      const key = await setApiKeyDisabled(d.kv, c.req.valid("param").keyId, disabled);
      return c.json(key satisfies ApiKey, 200);
    });
  }
  return app;
}

// ---------------------------------------------------------------- create, list, read, change

const optionalSeqQuery = (name: string, description: string) =>
  z.coerce.number().int().positive().optional().openapi({
    ...queryParam(name),
    description,
    example: 1,
  });

const TenantsQuery = adminPageQuery("the name or a word of it", "acme");
const UsersQuery = adminPageQuery(
  "the accountId, e-mail, display name or a word of the name",
  "ali",
).extend({ tenantId: optionalSeqQuery("tenantId", "Only this tenant's users") });
const KeysQuery = adminPageQuery(
  "the key id (exact case) or of the user's accountId, e-mail, name or a word of the name",
  "ali",
).extend({ userSeq: optionalSeqQuery("userSeq", "Only this user's keys") });

const TenantParams = z.object({ id: seqParam("id").describe("The tenant id") });
const UserParams = z.object({ userSeq: seqParam("userSeq").describe("The user's seq") });
const KeyParams = z.object({
  keyId: z.string().regex(KEY_ID_PATTERN, `keyId must be ${KEY_ID_RULE}`).openapi({
    param: { name: "keyId", in: "path" },
    description: "The key id: the part between drv_ and the second _ of the key",
    example: "AbCdEf0123456789",
  }),
});

const BODY_ERRORS = ["REQUEST_003", "REQUEST_005"] as const;

// The handlers below validate by hand (validJson, validQuery, seqFromPath) with these same
// schemas; the declarations document them.
const IDENTITY_ROUTES = [
  createRoute({
    method: "post",
    path: "/tenants",
    tags: ["Tenants"],
    operationId: "createTenant",
    summary: "Create a tenant (an organization) with the default share policy",
    request: { body: jsonBody(CreateTenantBody) },
    responses: { 201: adminJson(TenantSchema, "The new tenant"), ...adminErrors(...BODY_ERRORS) },
  }),
  createRoute({
    method: "get",
    path: "/tenants",
    tags: ["Tenants"],
    operationId: "listTenants",
    summary: "List the tenants a page at a time, in id order, optionally searched by name",
    request: { query: TenantsQuery },
    responses: {
      200: adminJson(pageOf(TenantSchema, "The tenants"), "A page of tenants"),
      ...adminErrors("RESOURCE_018"),
    },
  }),
  createRoute({
    method: "get",
    path: "/tenants/{id}",
    tags: ["Tenants"],
    operationId: "getTenant",
    summary: "Read one tenant with its share policy",
    request: { params: TenantParams },
    responses: { 200: adminJson(TenantSchema, "The tenant"), ...adminErrors("TENANT_001") },
  }),
  createRoute({
    method: "patch",
    path: "/tenants/{id}",
    tags: ["Tenants"],
    operationId: "updateTenant",
    summary: "Rename a tenant or change its share policy (types not named keep theirs)",
    request: { params: TenantParams, body: jsonBody(PatchTenantBody) },
    responses: {
      200: adminJson(TenantSchema, "The tenant as it is now"),
      ...adminErrors(...BODY_ERRORS, "TENANT_001"),
    },
  }),
  createRoute({
    method: "post",
    path: "/users",
    tags: ["Users"],
    operationId: "createUser",
    summary: "Create a user in a tenant (quota: DRIVE_DEFAULT_QUOTA_BYTES unless given)",
    request: { body: jsonBody(CreateUserBody) },
    responses: {
      201: adminJson(UserSchema, "The new user"),
      ...adminErrors(...BODY_ERRORS, "TENANT_001", "USER_002", "USER_003"),
    },
  }),
  createRoute({
    method: "get",
    path: "/users",
    tags: ["Users"],
    operationId: "listUsers",
    summary: "List the users (of one tenant or all) with their usage, a page at a time, in " +
      "userSeq order or, searched, by the matching term",
    request: { query: UsersQuery },
    responses: {
      200: adminJson(pageOf(UserSchema, "The users"), "A page of users"),
      ...adminErrors("RESOURCE_018"),
    },
  }),
  createRoute({
    method: "get",
    path: "/users/{userSeq}",
    tags: ["Users"],
    operationId: "getUser",
    summary: "Read one user with quota and usage",
    request: { params: UserParams },
    responses: { 200: adminJson(UserSchema, "The user"), ...adminErrors("USER_001") },
  }),
  createRoute({
    method: "patch",
    path: "/users/{userSeq}",
    tags: ["Users"],
    operationId: "updateUser",
    summary: "Change a user's name, e-mail or quota",
    request: { params: UserParams, body: jsonBody(PatchUserBody) },
    responses: {
      200: adminJson(UserSchema, "The user as it is now"),
      ...adminErrors(...BODY_ERRORS, "USER_001", "USER_003"),
    },
  }),
  createRoute({
    method: "post",
    path: "/keys",
    tags: ["API keys"],
    operationId: "createApiKey",
    summary: "Issue an API key for a user; the key itself is shown this once",
    request: { body: jsonBody(CreateKeyBody) },
    responses: {
      201: adminJson(IssuedApiKeySchema, "The key's record and the key"),
      ...adminErrors(...BODY_ERRORS, "USER_001"),
    },
  }),
  createRoute({
    method: "get",
    path: "/keys",
    tags: ["API keys"],
    operationId: "listApiKeys",
    summary: "List API keys (never the keys themselves), of one user or all, a page at a time " +
      "in key id order; searched: the keys whose id matches, then those of matching users",
    request: { query: KeysQuery },
    responses: {
      200: adminJson(pageOf(ApiKeySchema, "The keys"), "A page of API keys"),
      ...adminErrors("RESOURCE_018"),
    },
  }),
  createRoute({
    method: "delete",
    path: "/keys/{keyId}",
    tags: ["API keys"],
    operationId: "revokeApiKey",
    summary: "Revoke an API key for good (its download tokens die with it)",
    request: { params: KeyParams },
    responses: { 204: { description: "Revoked" }, ...adminErrors("KEY_001") },
  }),
];

export function identityAdminApi(d: Deps) {
  const app = newOpenApiApp();
  for (const route of IDENTITY_ROUTES) app.openAPIRegistry.registerPath(route);
  app.route("/", lifecycleAdminApi(d));

  app.post("/tenants", async (c) => {
    const body = await validJson(c, CreateTenantBody);
    const t = await createTenant(d.kv, body.name);
    return c.json(t satisfies Tenant, 201);
  });
  app.get("/tenants", async (c) => {
    const { q, limit, cursor } = validQuery(c, TenantsQuery);
    const page = await pageWithCursor(
      JSON.stringify(["tenants", q ?? ""]),
      cursor,
      (inner) => listTenantPage(d.kv, { q }, { cursor: inner, limit }),
    );
    return c.json(page satisfies Paged<Tenant>);
  });
  app.get("/tenants/:id", async (c) => {
    return c.json(await requireTenant(d.kv, seqFromPath(c, "id")) satisfies Tenant);
  });
  app.patch("/tenants/:id", async (c) => {
    const id = seqFromPath(c, "id");
    const body = await validJson(c, PatchTenantBody);
    const cur = await requireTenant(d.kv, id);
    const sharePolicy = body.sharePolicy
      ? { ...cur.sharePolicy, ...body.sharePolicy } as SharePolicy
      : undefined;
    const updated = await updateTenant(d.kv, id, {
      ...(body.name ? { name: body.name } : {}),
      ...(sharePolicy ? { sharePolicy } : {}),
    });
    return c.json(updated satisfies Tenant);
  });

  app.post("/users", async (c) => {
    const body = await validJson(c, CreateUserBody);
    const user = await createUser(d.kv, {
      ...body,
      quotaBytes: body.quotaBytes ?? d.config.defaultQuotaBytes,
    });
    return c.json(await userView(d, user), 201);
  });
  app.get("/users", async (c) => {
    const { q, tenantId, limit, cursor } = validQuery(c, UsersQuery);
    const page = await pageWithCursor(
      JSON.stringify(["users", q ?? "", tenantId ?? null]),
      cursor,
      (inner) => listUserPage(d.kv, { q, tenantId }, { cursor: inner, limit }),
    );
    const items = await Promise.all(page.items.map((u) => userView(d, u)));
    return c.json({ items, nextCursor: page.nextCursor } satisfies Paged<UserView>);
  });
  app.get(
    "/users/:userSeq",
    async (c) => c.json(await userView(d, await requireUser(d.kv, seqFromPath(c, "userSeq")))),
  );
  app.patch("/users/:userSeq", async (c) => {
    const seq = seqFromPath(c, "userSeq");
    const body = await validJson(c, PatchUserBody);
    const before = await requireUser(d.kv, seq);
    const updated = await updateUser(d.kv, seq, body);
    // A new quota is what an auditor looks for: its own action name, with before and after.
    if (updated.quotaBytes !== before.quotaBytes) {
      auditAdminAction(c, {
        action: "quota_changed",
        target: { quotaBytesBefore: before.quotaBytes, quotaBytes: updated.quotaBytes },
      });
    }
    return c.json(await userView(d, updated));
  });

  app.post("/keys", async (c) => {
    const body = await validJson(c, CreateKeyBody);
    const { key, apiKey } = await createApiKey(d.kv, body);
    return c.json({ ...key, apiKey } satisfies IssuedApiKey, 201);
  });
  app.get("/keys", async (c) => {
    const { q, userSeq, limit, cursor } = validQuery(c, KeysQuery);
    const page = await pageWithCursor(
      JSON.stringify(["keys", q ?? "", userSeq ?? null]),
      cursor,
      (inner) => listApiKeyPage(d.kv, { q, userSeq }, { cursor: inner, limit }),
    );
    return c.json(page satisfies Paged<ApiKey>);
  });
  app.delete("/keys/:keyId", async (c) => {
    await revokeApiKey(d.kv, idFromPath(c, "keyId", KEY_ID_PATTERN, KEY_ID_RULE));
    return c.body(null, 204);
  });

  return app;
}
