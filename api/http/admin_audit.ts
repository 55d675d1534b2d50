/**
 * What an admin API change is, for its activity entry (docs/changes.md "Admin actions"): a
 * stable action name (key_issued, quota_changed, webhook_created, ...), the tenant it concerns
 * and its targets (ids and names, never a secret or a body). api/admin/index.ts records one
 * entry per successful change with `describeAdminAction`.
 *
 * The names and targets come from one table of the admin routes, so every change is named even
 * when its route module says nothing; the tenant is looked up from the targets before the
 * change runs (a deleted user or revoked key is still readable then) and, for creations, from
 * the answer's ids. A route that knows more (the quota before and after) says so with
 * `auditAdminAction`.
 */
import type { Context } from "hono";
import { getApiKey } from "../../kv/identity/api_keys.ts";
import { getUser } from "../../kv/identity/users.ts";
import { getResource } from "../../kv/tree/resources.ts";
import { getShare } from "../../kv/sharing/shares.ts";
import { requireWebhook } from "../../kv/events/webhooks.ts";
import { getAdapter } from "../../kv/adapters/adapters.ts";

/** Small facts of an admin action (ids, names, numbers): the entry's `detail`. */
export type AuditFacts = Record<string, string | number | boolean | null>;

export interface AdminAudit {
  /** Overrides the table's name (e.g. quota_changed for a user change that set the quota). */
  action?: string;
  tenantId?: number | null;
  target?: AuditFacts;
}

type AuditEnv = { Variables: { adminAudit?: AdminAudit } };

/** A route adds what it knows about its action (merged over what the table gives). */
export function auditAdminAction(c: Context, audit: AdminAudit): void {
  const typed = c as Context<AuditEnv>;
  const cur = typed.get("adminAudit") ?? {};
  typed.set("adminAudit", { ...cur, ...audit, target: { ...cur.target, ...audit.target } });
}

/** What a path parameter names, and so how its tenant is found. */
type TargetKind = "tenantId" | "userSeq" | "keyId" | "adapter" | "rs" | "shareSeq" | "webhookId";

interface AdminRoute {
  method: string;
  /** Over the path under /admin/api; its groups are the targets, named in `targets`. */
  pattern: RegExp;
  targets: TargetKind[];
  action: string;
}

const route = (method: string, pattern: RegExp, action: string, ...targets: TargetKind[]) => ({
  method,
  pattern,
  action,
  targets,
});

const SEQ = "(\\d+)";
const re = (path: string) => new RegExp(`^${path}$`);

/** Every admin API change, by method and path (GETs are reads, not recorded). */
const ADMIN_ROUTES: readonly AdminRoute[] = [
  route("POST", re("/tenants"), "tenant_created"),
  route("PATCH", re(`/tenants/${SEQ}`), "tenant_changed", "tenantId"),
  route("DELETE", re(`/tenants/${SEQ}`), "tenant_deleted", "tenantId"),
  route("POST", re(`/tenants/${SEQ}/disable`), "tenant_disabled", "tenantId"),
  route("POST", re(`/tenants/${SEQ}/enable`), "tenant_enabled", "tenantId"),
  route("POST", re("/users"), "user_created"),
  route("PATCH", re(`/users/${SEQ}`), "user_changed", "userSeq"),
  route("DELETE", re(`/users/${SEQ}`), "user_deleted", "userSeq"),
  route("POST", re(`/users/${SEQ}/disable`), "user_disabled", "userSeq"),
  route("POST", re(`/users/${SEQ}/enable`), "user_enabled", "userSeq"),
  route("POST", re(`/users/${SEQ}/transfer`), "drive_transferred", "userSeq"),
  route("POST", re("/keys"), "key_issued"),
  route("DELETE", re("/keys/([A-Za-z0-9]+)"), "key_revoked", "keyId"),
  route("POST", re("/keys/([A-Za-z0-9]+)/disable"), "key_disabled", "keyId"),
  route("POST", re("/keys/([A-Za-z0-9]+)/enable"), "key_enabled", "keyId"),
  route("POST", re("/adapters"), "adapter_created"),
  route("DELETE", re("/adapters/([^/]+)"), "adapter_deleted", "adapter"),
  route("POST", re("/adapters/([^/]+)/rotate-secret"), "adapter_secret_rotated", "adapter"),
  route("POST", re("/adapters/([^/]+)/test"), "adapter_tested", "adapter"),
  route("DELETE", re(`/locks/${SEQ}`), "lock_released", "rs"),
  route("DELETE", re(`/share-links/${SEQ}`), "link_revoked", "shareSeq"),
  route("POST", re("/blobs/sweep"), "blobs_swept"),
  route("POST", re("/webhooks"), "webhook_created"),
  route("DELETE", re("/webhooks/([^/]+)"), "webhook_deleted", "webhookId"),
  route("POST", re("/webhooks/([^/]+)/disable"), "webhook_disabled", "webhookId"),
  route("POST", re("/webhooks/([^/]+)/enable"), "webhook_enabled", "webhookId"),
  route("POST", re("/webhooks/([^/]+)/test"), "webhook_tested", "webhookId"),
  route(
    "POST",
    re("/webhooks/([^/]+)/deliveries/([^/]+)/retry"),
    "webhook_delivery_retried",
    "webhookId",
  ),
];

/** Every action name the activity log may show (the `action` filter checks against it). */
export const ADMIN_ACTIONS: readonly string[] = [
  ...new Set([...ADMIN_ROUTES.map((r) => r.action), "quota_changed", "other"]),
];

/** Fields of a creation's answer that name what was made, as detail names (never a secret). */
const CREATED_IDS: Record<string, readonly [string, string][]> = {
  tenant_created: [["id", "tenantId"]],
  user_created: [["userSeq", "userSeq"], ["tenantId", "tenantId"], ["quotaBytes", "quotaBytes"]],
  key_issued: [["keyId", "keyId"], ["userSeq", "userSeq"]],
  adapter_created: [["name", "adapter"], ["userSeq", "userSeq"]],
  webhook_created: [["id", "webhookId"], ["tenantId", "tenantId"]],
};

/** A pending description: read what exists before the change, finish after it. */
export interface AdminActionDraft {
  finish(c: Context): Promise<{ action: string; tenantId: number | null; detail: AuditFacts }>;
}

/** Starts describing the change `method path` (path under /admin/api), before it runs. */
export async function describeAdminAction(
  kv: Deno.Kv,
  method: string,
  path: string,
): Promise<AdminActionDraft> {
  const known = ADMIN_ROUTES.find((r) => r.method === method && r.pattern.test(path));
  const target: AuditFacts = {};
  const groups = known ? path.match(known.pattern)!.slice(1) : [];
  known?.targets.forEach((kind, i) => {
    target[kind] = /^\d+$/.test(groups[i]) && kind !== "keyId" && kind !== "adapter"
      ? Number(groups[i])
      : groups[i];
  });
  const before = await tenantOf(kv, target).catch(() => null);
  return {
    async finish(c) {
      const told = (c as Context<AuditEnv>).get("adminAudit");
      if (known && CREATED_IDS[known.action]) Object.assign(target, await createdIds(c, known));
      Object.assign(target, told?.target);
      const tenantId = told?.tenantId !== undefined
        ? told.tenantId
        : before ?? (await tenantOf(kv, target).catch(() => null));
      return {
        action: told?.action ?? known?.action ?? "other",
        tenantId,
        detail: { request: `${method} ${path}`, ...target },
      };
    },
  };
}

/** The named ids of a creation's JSON answer. */
async function createdIds(c: Context, known: AdminRoute): Promise<AuditFacts> {
  const out: AuditFacts = {};
  try {
    const body = await c.res.clone().json();
    for (const [field, kind] of CREATED_IDS[known.action]) {
      const v = body?.[field];
      if (typeof v === "string" || typeof v === "number") out[kind] = v;
    }
  } catch {
    // Not JSON: nothing more to name.
  }
  return out;
}

/** The tenant that targets belong to, as far as they still exist; null when none. */
async function tenantOf(kv: Deno.Kv, t: AuditFacts): Promise<number | null> {
  const num = (v: unknown) => typeof v === "number" ? v : null;
  if (num(t.tenantId) !== null) return num(t.tenantId);
  const userTenant = async (seq: number | null | undefined) =>
    seq == null ? null : (await getUser(kv, seq))?.tenantId ?? null;
  if (num(t.userSeq) !== null) return await userTenant(num(t.userSeq));
  if (typeof t.keyId === "string") return await userTenant((await getApiKey(kv, t.keyId))?.userSeq);
  if (typeof t.adapter === "string") {
    return await userTenant((await getAdapter(kv, t.adapter))?.userSeq);
  }
  if (num(t.rs) !== null) return (await getResource(kv, num(t.rs)!))?.tenantId ?? null;
  if (num(t.shareSeq) !== null) return (await getShare(kv, num(t.shareSeq)!))?.tenantId ?? null;
  if (typeof t.webhookId === "string") {
    return await requireWebhook(kv, t.webhookId).then((w) => w.tenantId, () => null);
  }
  return null;
}
