/** Tenants (organizations). A tenant's users share ORG_LINK shares and its share policy. */
import { commit, commitWithRetry, CONFLICT, nextSeq } from "../db.ts";
import { fail } from "../errors.ts";
import { tenantKey } from "../keys.ts";

export type ShareType = "SPECIFIC_USERS" | "ORG_LINK" | "PUBLIC_LINK";
export type SharePermission = "VIEW" | "EDIT" | "DOWNLOAD" | "UPLOAD" | "SHARE";

/** Per share type: whether it is allowed and the most it may grant. */
export type SharePolicy = Record<
  ShareType,
  { allowed: boolean; maxPermissions: SharePermission[] }
>;

export interface Tenant {
  id: number;
  name: string;
  createdAt: string;
  sharePolicy: SharePolicy;
}

export function defaultSharePolicy(): SharePolicy {
  return {
    SPECIFIC_USERS: {
      allowed: true,
      maxPermissions: ["VIEW", "EDIT", "DOWNLOAD", "UPLOAD", "SHARE"],
    },
    ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "EDIT", "DOWNLOAD", "UPLOAD"] },
    PUBLIC_LINK: { allowed: true, maxPermissions: ["VIEW", "EDIT", "DOWNLOAD", "UPLOAD"] },
  };
}

export async function createTenant(kv: Deno.Kv, name: string): Promise<Tenant> {
  const id = await nextSeq(kv, "tenant");
  const tenant: Tenant = {
    id,
    name,
    createdAt: new Date().toISOString(),
    sharePolicy: defaultSharePolicy(),
  };
  await kv.set(tenantKey(id), tenant);
  return tenant;
}

export async function getTenant(kv: Deno.Kv, id: number): Promise<Tenant | null> {
  return (await kv.get<Tenant>(tenantKey(id))).value;
}

export async function requireTenant(kv: Deno.Kv, id: number): Promise<Tenant> {
  return (await getTenant(kv, id)) ?? fail("TENANT_001", `No tenant with id ${id}`, "tenantId");
}

export async function listTenants(kv: Deno.Kv): Promise<Tenant[]> {
  const out: Tenant[] = [];
  for await (const e of kv.list<Tenant>({ prefix: tenantKey() })) out.push(e.value);
  return out;
}

export function updateTenant(
  kv: Deno.Kv,
  id: number,
  patch: Partial<Pick<Tenant, "name" | "sharePolicy">>,
): Promise<Tenant> {
  return commitWithRetry(async () => {
    const cur = await kv.get<Tenant>(tenantKey(id));
    if (!cur.value) fail("TENANT_001", `No tenant with id ${id}`);
    const next = { ...cur.value, ...patch };
    return (await commit(kv.atomic().check(cur).set(tenantKey(id), next))) === true
      ? next
      : CONFLICT;
  });
}
