/**
 * Admin API: tenants and users (with quota and usage), and disabling and enabling each (data
 * kept; keys, adapters and links stop working while disabled). API keys are in keys.ts.
 */
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
import { jsonBody, newOpenApiApp } from "../http/openapi.ts";
import { auditAdminAction } from "../http/admin_audit.ts";
import { listTenantPage, listUserPage } from "../../kv/identity/admin_lists.ts";
import {
  adminAnswers,
  adminPageQuery,
  adminRoute,
  BODY_ERRORS,
  creationRoute,
  operation,
  optionalSeqQuery,
  serveSearchedList,
  serveSwitches,
  SWITCH_SUMMARY,
} from "./schemas/common.ts";
import {
  CreateTenantBody,
  CreateUserBody,
  ON_TENANT,
  ON_USER,
  PatchTenantBody,
  PatchUserBody,
  type Tenant,
  TenantParams,
  TenantSchema,
  type User as UserView,
  UserParams,
  UserSchema,
} from "./schemas/identity.ts";

async function userView(d: Deps, { signedOutAt: _, ...user }: User): Promise<UserView> {
  return {
    ...user,
    roles: user.roles ?? [],
    disabledAt: user.disabledAt ?? null,
    usedBytes: await getUsage(d.kv, user.userSeq),
  };
}

const tenantOp = operation("Tenants");
const userOp = operation("Users");

// ---------------------------------------------------------------- disable and enable

/** The answer of a switch: the record as it is now. */
const switched = (what: string) => `The ${what} as it is now (disabledAt null when enabled)`;

/** POST .../disable and .../enable for tenants and users (API keys: keys.ts). */
function lifecycleAdminApi(d: Deps) {
  const app = newOpenApiApp();
  serveSwitches(app, {
    path: "/tenants/{id}",
    name: (action) =>
      tenantOp(`${action}Tenant`, `${SWITCH_SUMMARY[action]}: a tenant and so all of its users`, {
        action: `tenant_${action}d`,
        ...ON_TENANT,
      }),
    params: TenantParams,
    schema: TenantSchema,
    description: switched("tenant"),
    missing: "TENANT_001",
  }, ({ id }, disabled) => setTenantDisabled(d.kv, id, disabled));
  serveSwitches(app, {
    path: "/users/{userSeq}",
    name: (action) =>
      userOp(`${action}User`, `${SWITCH_SUMMARY[action]}: one user`, {
        action: `user_${action}d`,
        ...ON_USER,
      }),
    params: UserParams,
    schema: UserSchema,
    description: switched("user"),
    missing: "USER_001",
  }, async ({ userSeq }, disabled) => userView(d, await setUserDisabled(d.kv, userSeq, disabled)));
  return app;
}

// ---------------------------------------------------------------- create, list, read, change

const TenantsQuery = adminPageQuery("the name or a word of it", "acme");
const UsersQuery = adminPageQuery(
  "the accountId, e-mail, display name or a word of the name",
  "ali",
).extend({ tenantId: optionalSeqQuery("tenantId", "Only this tenant's users") });

function tenantsAdminApi(d: Deps) {
  const app = newOpenApiApp();
  app.openapi(
    creationRoute(
      "/tenants",
      tenantOp("createTenant", "Create a tenant (an organization) with the default share policy", {
        action: "tenant_created",
        created: { id: "tenantId" },
      }),
      CreateTenantBody,
      { record: TenantSchema, description: "The new tenant" },
      ...BODY_ERRORS,
      "TENANT_002",
    ),
    async (c) => c.json(await createTenant(d.kv, c.req.valid("json").name) satisfies Tenant, 201),
  );
  serveSearchedList(d.kv, app, {
    path: "/tenants",
    name: tenantOp(
      "listTenants",
      "List the tenants a page at a time, in id order, optionally searched by name",
    ),
    query: TenantsQuery,
    item: TenantSchema,
    what: { items: "The tenants", page: "A page of tenants" },
  }, { list: listTenantPage, filters: () => ({}) });
  app.openapi(
    adminRoute(
      "get",
      "/tenants/{id}",
      tenantOp("getTenant", "Read one tenant with its share policy"),
      {
        request: { params: TenantParams },
        responses: adminAnswers(TenantSchema, "The tenant", "TENANT_001"),
      },
    ),
    async (c) => c.json(await requireTenant(d.kv, c.req.valid("param").id) satisfies Tenant, 200),
  );
  app.openapi(
    adminRoute(
      "patch",
      "/tenants/{id}",
      tenantOp(
        "updateTenant",
        "Rename a tenant or change its share policy (types not named keep theirs)",
        { action: "tenant_changed", ...ON_TENANT },
      ),
      {
        request: { params: TenantParams, body: jsonBody(PatchTenantBody) },
        responses: adminAnswers(
          TenantSchema,
          "The tenant as it is now",
          ...BODY_ERRORS,
          "TENANT_001",
          "TENANT_002",
        ),
      },
    ),
    async (c) => {
      const { id } = c.req.valid("param");
      const body = c.req.valid("json");
      const cur = await requireTenant(d.kv, id);
      const sharePolicy = body.sharePolicy
        ? { ...cur.sharePolicy, ...body.sharePolicy } as SharePolicy
        : undefined;
      const updated = await updateTenant(d.kv, id, {
        ...(body.name ? { name: body.name } : {}),
        ...(sharePolicy ? { sharePolicy } : {}),
      });
      return c.json(updated satisfies Tenant, 200);
    },
  );
  return app;
}

function usersAdminApi(d: Deps) {
  const app = newOpenApiApp();
  app.openapi(
    creationRoute(
      "/users",
      userOp(
        "createUser",
        "Create a user in a tenant (quota: DRIVE_DEFAULT_QUOTA_BYTES unless given)",
        {
          action: "user_created",
          created: { userSeq: "userSeq", tenantId: "tenantId", quotaBytes: "quotaBytes" },
        },
      ),
      CreateUserBody,
      { record: UserSchema, description: "The new user" },
      ...BODY_ERRORS,
      "TENANT_001",
      "USER_002",
      "USER_003",
    ),
    async (c) => {
      const body = c.req.valid("json");
      const quotaBytes = body.quotaBytes ?? d.config.defaultQuotaBytes;
      return c.json(await userView(d, await createUser(d.kv, { ...body, quotaBytes })), 201);
    },
  );
  serveSearchedList(d.kv, app, {
    path: "/users",
    name: userOp(
      "listUsers",
      "List the users (of one tenant or all) with their usage, a page at a time, in " +
        "userSeq order or, searched, by the matching term",
    ),
    query: UsersQuery,
    item: UserSchema,
    what: { items: "The users", page: "A page of users" },
  }, {
    list: listUserPage,
    filters: ({ tenantId }) => ({ tenantId }),
    view: (users) => Promise.all(users.map((u) => userView(d, u))),
  });
  app.openapi(
    adminRoute("get", "/users/{userSeq}", userOp("getUser", "Read one user with quota and usage"), {
      request: { params: UserParams },
      responses: adminAnswers(UserSchema, "The user", "USER_001"),
    }),
    async (c) => {
      return c.json(await userView(d, await requireUser(d.kv, c.req.valid("param").userSeq)), 200);
    },
  );
  app.openapi(
    adminRoute(
      "patch",
      "/users/{userSeq}",
      userOp("updateUser", "Change a user's name, e-mail or quota", {
        action: "user_changed",
        ...ON_USER,
        also: ["quota_changed"],
      }),
      {
        request: { params: UserParams, body: jsonBody(PatchUserBody) },
        responses: adminAnswers(
          UserSchema,
          "The user as it is now",
          ...BODY_ERRORS,
          "USER_001",
          "USER_003",
        ),
      },
    ),
    async (c) => {
      const seq = c.req.valid("param").userSeq;
      const before = await requireUser(d.kv, seq);
      const updated = await updateUser(d.kv, seq, c.req.valid("json"));
      // A new quota is what an auditor looks for: its own action name, with before and after.
      if (updated.quotaBytes !== before.quotaBytes) {
        auditAdminAction(c, {
          action: "quota_changed",
          target: { quotaBytesBefore: before.quotaBytes, quotaBytes: updated.quotaBytes },
        });
      }
      return c.json(await userView(d, updated), 200);
    },
  );
  return app;
}

export function identityAdminApi(d: Deps) {
  const app = newOpenApiApp();
  app.route("/", lifecycleAdminApi(d));
  app.route("/", tenantsAdminApi(d));
  app.route("/", usersAdminApi(d));
  return app;
}
