/** Admin API: tenants, users (with quota and usage) and API keys. */
import { Hono } from "hono";
import { z } from "zod";
import { createApiKey, listApiKeys, revokeApiKey } from "../../kv/identity/api_keys.ts";
import type { Deps } from "../../kv/deps.ts";
import {
  createTenant,
  listTenants,
  requireTenant,
  type SharePolicy,
  updateTenant,
} from "../../kv/identity/tenants.ts";
import { getUsage } from "../../kv/tree/usage.ts";
import {
  createUser,
  listUsers,
  requireUser,
  updateUser,
  type User,
} from "../../kv/identity/users.ts";
import { seqFromPath, validJson, validQuery } from "../http/validate.ts";

const Name = z.string().trim().min(1, "must not be empty").max(
  200,
  "must be at most 200 characters",
);
const Quota = z.number().int("must be an integer").nonnegative("must not be negative").max(
  Number.MAX_SAFE_INTEGER,
);
const Permission = z.enum(["VIEW", "EDIT", "DOWNLOAD", "UPLOAD", "SHARE"]);
const TypePolicy = z.object({ allowed: z.boolean(), maxPermissions: z.array(Permission) }).strict();
const SharePolicySchema = z.object({
  SPECIFIC_USERS: TypePolicy,
  ORG_LINK: TypePolicy,
  PUBLIC_LINK: TypePolicy,
}).partial().strict();

const CreateUser = z.object({
  tenantId: z.number().int().positive(),
  accountId: z.string().trim().min(1, "must not be empty").max(254).regex(
    /^[^\s/\\]+$/,
    "must not contain spaces or slashes",
  ),
  email: z.email("must be an e-mail address").max(254),
  name: Name,
  quotaBytes: Quota.optional(),
}).strict();

const PatchUser = z.object({
  name: Name.optional(),
  email: z.email("must be an e-mail address").max(254).optional(),
  quotaBytes: Quota.optional(),
}).strict();

const CreateKey = z.object({
  userSeq: z.number().int().positive(),
  scopes: z.array(z.enum(["api:read", "api:write"])).min(1, "must name at least one scope"),
  label: z.string().max(200).nullish(),
}).strict();

async function userView(d: Deps, user: User) {
  return { ...user, usedBytes: await getUsage(d.kv, user.userSeq) };
}

export function identityAdminApi(d: Deps) {
  const app = new Hono();

  app.post("/tenants", async (c) => {
    const body = await validJson(c, z.object({ name: Name }).strict());
    const t = await createTenant(d.kv, body.name);
    return c.json(t, 201);
  });
  app.get("/tenants", async (c) => c.json({ items: await listTenants(d.kv) }));
  app.get("/tenants/:id", async (c) => c.json(await requireTenant(d.kv, seqFromPath(c, "id"))));
  app.patch("/tenants/:id", async (c) => {
    const id = seqFromPath(c, "id");
    const body = await validJson(
      c,
      z.object({ name: Name.optional(), sharePolicy: SharePolicySchema.optional() }).strict(),
    );
    const cur = await requireTenant(d.kv, id);
    const sharePolicy = body.sharePolicy
      ? { ...cur.sharePolicy, ...body.sharePolicy } as SharePolicy
      : undefined;
    return c.json(
      await updateTenant(d.kv, id, {
        ...(body.name ? { name: body.name } : {}),
        ...(sharePolicy ? { sharePolicy } : {}),
      }),
    );
  });

  app.post("/users", async (c) => {
    const body = await validJson(c, CreateUser);
    const user = await createUser(d.kv, {
      ...body,
      quotaBytes: body.quotaBytes ?? d.config.defaultQuotaBytes,
    });
    return c.json(await userView(d, user), 201);
  });
  app.get("/users", async (c) => {
    const q = validQuery(c, z.object({ tenantId: z.coerce.number().int().positive().optional() }));
    const users = await listUsers(d.kv, q.tenantId);
    return c.json({ items: await Promise.all(users.map((u) => userView(d, u))) });
  });
  app.get(
    "/users/:userSeq",
    async (c) => c.json(await userView(d, await requireUser(d.kv, seqFromPath(c, "userSeq")))),
  );
  app.patch("/users/:userSeq", async (c) => {
    const seq = seqFromPath(c, "userSeq");
    const body = await validJson(c, PatchUser);
    return c.json(await userView(d, await updateUser(d.kv, seq, body)));
  });

  app.post("/keys", async (c) => {
    const body = await validJson(c, CreateKey);
    const { key, apiKey } = await createApiKey(d.kv, body);
    return c.json({ ...key, apiKey }, 201);
  });
  app.get("/keys", async (c) => {
    const q = validQuery(c, z.object({ userSeq: z.coerce.number().int().positive().optional() }));
    return c.json({ items: await listApiKeys(d.kv, q.userSeq) });
  });
  app.delete("/keys/:keyId", async (c) => {
    await revokeApiKey(d.kv, c.req.param("keyId"));
    return c.body(null, 204);
  });

  return app;
}
