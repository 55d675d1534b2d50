/**
 * What an admin API change is, for its activity entry (docs/changes.md "Admin actions"): a
 * stable action name (key_issued, quota_changed, webhook_created, ...), the tenant it concerns
 * and its targets (ids and names, never a secret or a body). api/admin/index.ts records one
 * entry per successful change with `describeAdminAction`.
 *
 * The names and targets are metadata of each route's declaration (its `x-audit` extension,
 * `audit()` below), read back from the app's OpenAPI registry, so a route is declared once and
 * the document shows each operation's action. The tenant is looked up from the targets before
 * the change runs (a deleted user or revoked key is still readable then) and, for creations,
 * from the answer's ids. A route that knows more (the quota before and after) says so with
 * `auditAdminAction`.
 */
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";
import { getApiKey } from "../../kv/identity/api_keys.ts";
import { getUser } from "../../kv/identity/users.ts";
import { getResource } from "../../kv/tree/resources.ts";
import { getShare } from "../../kv/sharing/shares.ts";
import { requireWebhook } from "../../kv/events/webhooks.ts";
import { getAdapter } from "../../kv/adapters/adapters.ts";

/** Small facts of an admin action (ids, names, numbers): the entry's `detail`. */
type AuditFacts = Record<string, string | number | boolean | null>;

interface AdminAudit {
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

/** The audit metadata of a declared change: the `x-audit` extension of its operation. */
export interface AuditMeta {
  action: string;
  /** Path parameters that name targets, with what each names. */
  targets?: Readonly<Record<string, TargetKind>>;
  /** Fields of a creation's JSON answer naming what was made, with their detail names. */
  created?: Readonly<Record<string, string>>;
  /** Other names the handler may give with auditAdminAction (quota_changed, ...). */
  also?: readonly string[];
}

/** The `x-audit` entry of a change's createRoute config. */
export const audit = (meta: AuditMeta) => ({ "x-audit": meta });

/** What an OpenAPIHono registry holds, as far as the audit reads it. */
interface RouteRegistry {
  definitions: readonly { type: string; route?: { method: string; path: string } }[];
}

/** Each declared change's metadata, by "METHOD /path/:param" (Hono's routing form). */
type AuditLookup = ReadonlyMap<string, AuditMeta>;

const routingPath = (openApiPath: string) => openApiPath.replaceAll(/\{(.+?)\}/g, ":$1");

/** Reads the audit metadata of every route declared in `registry` (paths under /admin/api). */
export function auditLookup(registry: RouteRegistry): AuditLookup {
  const out = new Map<string, AuditMeta>();
  for (const def of registry.definitions) {
    const meta = (def.route as { "x-audit"?: AuditMeta } | undefined)?.["x-audit"];
    if (def.route && meta) {
      out.set(`${def.route.method.toUpperCase()} ${routingPath(def.route.path)}`, meta);
    }
  }
  return out;
}

/** Every action name the activity log may show (the `action` filter checks against it). */
export function adminActions(lookup: AuditLookup): string[] {
  const names = [...lookup.values()].flatMap((m) => [m.action, ...(m.also ?? [])]);
  return [...new Set([...names, "other"])];
}

/** Where app.ts mounts the admin API: the declarations' paths are under it. */
const ADMIN_PREFIX = /^\/admin\/api/;

/** A path segment decoded; one that is not valid percent-encoded UTF-8 stays as sent. */
function decodedSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The declared change `c` reached, with its path parameters; null when none matched. */
function matchedChange(c: Context, lookup: AuditLookup) {
  for (const route of matchedRoutes(c)) {
    if (route.method !== c.req.method) continue;
    const path = route.path.replace(ADMIN_PREFIX, "");
    const meta = lookup.get(`${route.method} ${path}`);
    if (!meta) continue;
    const names = path.split("/");
    const values = c.req.path.replace(ADMIN_PREFIX, "").split("/");
    const params: Record<string, string> = {};
    names.forEach((n, i) => {
      if (n.startsWith(":")) params[n.slice(1)] = decodedSegment(values[i] ?? "");
    });
    return { meta, params };
  }
  return null;
}

/** A pending description: read what exists before the change, finish after it. */
interface AdminActionDraft {
  finish(c: Context): Promise<{ action: string; tenantId: number | null; detail: AuditFacts }>;
}

/** Starts describing the change `c` asks for, before it runs. */
export async function describeAdminAction(
  kv: Deno.Kv,
  c: Context,
  lookup: AuditLookup,
): Promise<AdminActionDraft> {
  const request = `${c.req.method} ${c.req.path.replace(ADMIN_PREFIX, "")}`;
  const known = matchedChange(c, lookup);
  const target: AuditFacts = {};
  for (const [param, kind] of Object.entries(known?.meta.targets ?? {})) {
    const raw = known!.params[param];
    target[kind] = /^\d+$/.test(raw) && kind !== "keyId" && kind !== "adapter" ? Number(raw) : raw;
  }
  const before = await tenantOf(kv, target).catch(() => null);
  return {
    async finish(c) {
      const told = (c as Context<AuditEnv>).get("adminAudit");
      if (known?.meta.created) Object.assign(target, await createdIds(c, known.meta.created));
      Object.assign(target, told?.target);
      const tenantId = told?.tenantId !== undefined
        ? told.tenantId
        : before ?? (await tenantOf(kv, target).catch(() => null));
      return {
        action: told?.action ?? known?.meta.action ?? "other",
        tenantId,
        detail: { request, ...target },
      };
    },
  };
}

/** The named ids of a creation's JSON answer. */
async function createdIds(
  c: Context,
  created: Readonly<Record<string, string>>,
): Promise<AuditFacts> {
  const out: AuditFacts = {};
  try {
    const body = await c.res.clone().json();
    for (const [field, kind] of Object.entries(created)) {
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
