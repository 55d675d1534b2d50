/**
 * Tenants (organizations). A tenant's users share ORG_LINK shares and its share policy.
 *
 * Names are unique, compared case-insensitively: [tenant_by_name, folded name] -> tenantId is
 * set in the commit that creates or renames the tenant, checked absent there, so two requests
 * racing for one name cannot both win. Tenants created before that key existed have none; a
 * create or rename also scans the tenants for their names (tenants are few: organizations, not
 * users), so no migration is needed and the next rename of an old tenant writes its key.
 */
import { commit, commitWithRetry, CONFLICT, nextSeq } from "../db.ts";
import { fail } from "../errors.ts";
import { tenantByNameKey, tenantKey } from "../keys.ts";
import { bumpIdentityEpoch } from "./cache.ts";

export type ShareType = "SPECIFIC_USERS" | "ORG_LINK" | "PUBLIC_LINK";

/**
 * The permissions a policy speaks: the spec's values of `allowedPermissions` (share-types), in
 * display order. Upload (`cu`) has no value of its own: EDIT governs it (kv/sharing/shares.ts).
 */
export const SHARE_PERMISSIONS = ["VIEW", "EDIT", "DOWNLOAD", "SHARE"] as const;
export type SharePermission = typeof SHARE_PERMISSIONS[number];
const SHARE_TYPES: readonly ShareType[] = ["SPECIFIC_USERS", "ORG_LINK", "PUBLIC_LINK"];

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
  /**
   * When an administrator disabled the tenant (null: enabled). A disabled tenant's data is kept,
   * but its users' API keys, adapters and share links stop working (kv/identity/users.ts).
   */
  disabledAt: string | null;
}

function defaultSharePolicy(): SharePolicy {
  return {
    SPECIFIC_USERS: { allowed: true, maxPermissions: ["VIEW", "EDIT", "DOWNLOAD", "SHARE"] },
    ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "EDIT", "DOWNLOAD"] },
    PUBLIC_LINK: { allowed: true, maxPermissions: ["VIEW", "EDIT", "DOWNLOAD"] },
  };
}

/**
 * A policy as stored, made one this version speaks: migrated on read rather than by a start-up
 * rewrite, so records written before (which list UPLOAD, a permission of its own then) load in
 * every process at once with no KV write, and the next write of the tenant stores the clean
 * form. Values other than SHARE_PERMISSIONS are dropped, UPLOAD included, never mapped to EDIT:
 * a tenant that allowed UPLOAD without EDIT loses upload rather than gaining edit (see
 * docs/api.md). Duplicates go, and the order becomes SHARE_PERMISSIONS'.
 */
function normalizePolicy(stored: Partial<Record<ShareType, StoredTypePolicy>> | undefined) {
  const out = {} as SharePolicy;
  for (const type of SHARE_TYPES) {
    const p = stored?.[type];
    const listed = new Set<string>(Array.isArray(p?.maxPermissions) ? p.maxPermissions : []);
    out[type] = {
      allowed: p?.allowed === true,
      maxPermissions: SHARE_PERMISSIONS.filter((x) => listed.has(x)),
    };
  }
  return out;
}

/** A tenant record as KV may hold it (possibly written by an earlier version). */
interface StoredTypePolicy {
  allowed?: boolean;
  maxPermissions?: string[];
}
export interface StoredTenant extends Omit<Tenant, "sharePolicy" | "disabledAt"> {
  sharePolicy?: Partial<Record<ShareType, StoredTypePolicy>>;
  /** Absent on records written before tenants could be disabled: enabled. */
  disabledAt?: string | null;
}

/** A stored tenant as this version reads it (the policy normalized, disabledAt present). */
export function fromStored(t: StoredTenant): Tenant {
  return { ...t, sharePolicy: normalizePolicy(t.sharePolicy), disabledAt: t.disabledAt ?? null };
}

/** The form two names are compared in: NFC, lower case. */
const foldName = (name: string) => name.normalize("NFC").toLowerCase();

/**
 * Adds to `op` the claim of `name` for tenant `id`: refuses (TENANT_002) when another tenant
 * holds it, by its key or, for a tenant older than the key, by its record.
 */
async function claimName(kv: Deno.Kv, op: Deno.AtomicOperation, name: string, id: number) {
  const key = tenantByNameKey(foldName(name));
  const held = await kv.get<number>(key);
  const taken = () => fail("TENANT_002", `A tenant named "${name}" exists already`, "name");
  if (held.value !== null && held.value !== id) taken();
  for await (const e of kv.list<StoredTenant>({ prefix: tenantKey() })) {
    if (e.value.id !== id && foldName(e.value.name) === foldName(name)) taken();
  }
  op.check(held).set(key, id);
}

export async function createTenant(kv: Deno.Kv, name: string): Promise<Tenant> {
  const id = await nextSeq(kv, "tenant");
  return await commitWithRetry(async () => {
    const tenant: Tenant = {
      id,
      name,
      createdAt: new Date().toISOString(),
      sharePolicy: defaultSharePolicy(),
      disabledAt: null,
    };
    const op = kv.atomic().check({ key: tenantKey(id), versionstamp: null });
    await claimName(kv, op, name, id);
    op.set(tenantKey(id), tenant);
    return (await commit(op)) === true ? tenant : CONFLICT;
  });
}

export async function getTenant(kv: Deno.Kv, id: number): Promise<Tenant | null> {
  const stored = (await kv.get<StoredTenant>(tenantKey(id))).value;
  return stored && fromStored(stored);
}

export async function requireTenant(kv: Deno.Kv, id: number): Promise<Tenant> {
  return (await getTenant(kv, id)) ?? fail("TENANT_001", `No tenant with id ${id}`, "tenantId");
}

export async function listTenants(kv: Deno.Kv): Promise<Tenant[]> {
  const out: Tenant[] = [];
  for await (const e of kv.list<StoredTenant>({ prefix: tenantKey() })) {
    out.push(fromStored(e.value));
  }
  return out;
}

export function updateTenant(
  kv: Deno.Kv,
  id: number,
  patch: Partial<Pick<Tenant, "name" | "sharePolicy">>,
): Promise<Tenant> {
  return commitWithRetry(async () => {
    const cur = await kv.get<StoredTenant>(tenantKey(id));
    if (!cur.value) fail("TENANT_001", `No tenant with id ${id}`);
    const next = fromStored({ ...cur.value, ...patch });
    // Every change of a tenant record moves the identity epoch: cached facts go (cache.ts).
    const op = bumpIdentityEpoch(kv.atomic().check(cur).set(tenantKey(id), next));
    if (foldName(next.name) !== foldName(cur.value.name)) {
      await claimName(kv, op, next.name, id);
      op.delete(tenantByNameKey(foldName(cur.value.name)));
    }
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/**
 * Disables (keeping the data) or enables a tenant. Idempotent: disabling a disabled tenant keeps
 * its first disabledAt.
 */
export function setTenantDisabled(kv: Deno.Kv, id: number, disabled: boolean): Promise<Tenant> {
  return commitWithRetry(async () => {
    const cur = await kv.get<StoredTenant>(tenantKey(id));
    if (!cur.value) fail("TENANT_001", `No tenant with id ${id}`, "tenantId");
    const was = fromStored(cur.value);
    const next: Tenant = {
      ...was,
      disabledAt: disabled ? (was.disabledAt ?? new Date().toISOString()) : null,
    };
    const op = bumpIdentityEpoch(kv.atomic().check(cur).set(tenantKey(id), next));
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/** Adds to `op` removing a tenant's record (its users are gone first: kv/lifecycle/). */
export function dropTenantRecord(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntryMaybe<unknown>,
  id: number,
) {
  bumpIdentityEpoch(op.check(entry).delete(tenantKey(id)));
  const name = (entry.value as StoredTenant | null)?.name;
  if (name !== undefined) op.delete(tenantByNameKey(foldName(name)));
}

/** The tenant's stored entry (for a versionstamp check). */
export function getTenantEntry(kv: Deno.Kv, id: number) {
  return kv.get<unknown>(tenantKey(id));
}
