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
import { idFromPath, seqFromPath, validJson, validQuery } from "../http/validate.ts";
import {
  type ApiKey,
  CreateKeyBody,
  CreateTenantBody,
  CreateUserBody,
  type IssuedApiKey,
  KEY_ID_PATTERN,
  KEY_ID_RULE,
  PatchTenantBody,
  PatchUserBody,
  type Tenant,
  type User as UserView,
} from "./schemas.ts";

async function userView(d: Deps, user: User): Promise<UserView> {
  return { ...user, usedBytes: await getUsage(d.kv, user.userSeq) };
}

export function identityAdminApi(d: Deps) {
  const app = new Hono();

  app.post("/tenants", async (c) => {
    const body = await validJson(c, CreateTenantBody);
    const t = await createTenant(d.kv, body.name);
    return c.json(t satisfies Tenant, 201);
  });
  app.get("/tenants", async (c) => c.json({ items: await listTenants(d.kv) satisfies Tenant[] }));
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
    const body = await validJson(c, PatchUserBody);
    return c.json(await userView(d, await updateUser(d.kv, seq, body)));
  });

  app.post("/keys", async (c) => {
    const body = await validJson(c, CreateKeyBody);
    const { key, apiKey } = await createApiKey(d.kv, body);
    return c.json({ ...key, apiKey } satisfies IssuedApiKey, 201);
  });
  app.get("/keys", async (c) => {
    const q = validQuery(c, z.object({ userSeq: z.coerce.number().int().positive().optional() }));
    return c.json({ items: await listApiKeys(d.kv, q.userSeq) satisfies ApiKey[] });
  });
  app.delete("/keys/:keyId", async (c) => {
    await revokeApiKey(d.kv, idFromPath(c, "keyId", KEY_ID_PATTERN, KEY_ID_RULE));
    return c.body(null, 204);
  });

  return app;
}
