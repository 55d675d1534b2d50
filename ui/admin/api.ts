/**
 * Typed client of the admin API (/admin/api). Every call sends the session's admin token as a
 * bearer header; a 401 signs the session out, since the token is wrong or was rotated.
 */
import type {
  Adapter,
  AdapterOperation,
  ConnectionTest,
  CreatedAdapter,
  NewAdapter,
  RotatedSecret,
} from "../../api/admin/schemas/adapters.ts";
import type { Paged } from "../../api/admin/schemas/common.ts";
import type {
  ApiKey,
  IssuedApiKey,
  NewApiKey,
  NewUser,
  Permission,
  ShareType,
  Tenant,
  TenantPatch,
  User,
  UserPatch,
} from "../../api/admin/schemas/identity.ts";
import type {
  BlobSweep,
  DocumentLock,
  LockRelease,
  ShareLink,
} from "../../api/admin/schemas/storage.ts";
import type {
  ActivityPage,
  CreatedWebhook,
  EventKind,
  NewWebhook,
  Webhook,
  WebhookDelivery,
  WebhookDeliveryPage,
} from "../../api/admin/schemas/events.ts";
import type { TenantDeletion, UserDeletion } from "../../api/admin/schemas/lifecycle.ts";
import type { OidcSettingsAnswer, OidcSettingsRequest } from "../../api/admin/schemas/oidc.ts";
import type { AdminRole, CreatedInvitation } from "../../api/admin/schemas/accounts.ts";
import { adminSession, adminToken, signOut } from "./session.ts";
import { ApiError } from "../shared/api_error.ts";

// The shapes of the admin API are the server's own (api/admin/schemas/).
// `import type` keeps server code out of the browser bundle; the pages take the types from here.
export type {
  Adapter,
  AdapterOperation,
  ConnectionTest,
  CreatedAdapter,
} from "../../api/admin/schemas/adapters.ts";
export type { Paged } from "../../api/admin/schemas/common.ts";
export type {
  IssuedApiKey,
  Permission,
  Scope,
  SharePolicy,
  ShareType,
  Tenant,
  User,
} from "../../api/admin/schemas/identity.ts";
export type { BlobSweep, DocumentLock, ShareLink } from "../../api/admin/schemas/storage.ts";
export type { OidcSettingsAnswer, OidcSettingsRequest } from "../../api/admin/schemas/oidc.ts";
export type {
  ActivityEntry,
  CreatedWebhook,
  Webhook,
  WebhookDelivery,
  WebhookEventFilter,
} from "../../api/admin/schemas/events.ts";

/**
 * Every member of a string union, in the order written, for the browser, which cannot import
 * the server's lists: the Record makes the type check fail when a member is missing or unknown.
 */
function allOf<T extends string>(members: Record<T, true>): T[] {
  return Object.keys(members) as T[];
}

export const SHARE_TYPES = allOf<ShareType>({
  SPECIFIC_USERS: true,
  ORG_LINK: true,
  PUBLIC_LINK: true,
});
export const PERMISSIONS = allOf<Permission>({
  VIEW: true,
  EDIT: true,
  DOWNLOAD: true,
  SHARE: true,
});
export const ADAPTER_OPERATIONS = allOf<AdapterOperation>({
  list: true,
  put: true,
  lock: true,
  unlock: true,
  mkdir: true,
  rename: true,
  delete: true,
});
/** Every event kind (docs/changes.md): the activity filter, and what a webhook subscribes to. */
export const EVENT_KINDS = allOf<EventKind>({
  created: true,
  copied: true,
  content_changed: true,
  renamed: true,
  moved: true,
  trashed: true,
  restored: true,
  purged: true,
  locked: true,
  unlocked: true,
  share_created: true,
  share_changed: true,
  share_removed: true,
  recipients_changed: true,
  link_created: true,
  link_removed: true,
  link_joined: true,
  link_visitors_removed: true,
  pin_added: true,
  pin_removed: true,
  downloaded: true,
  link_opened: true,
  admin_action: true,
  account: true,
});

/**
 * A problem as the connection test's view accepts it. The server sends sentences
 * (ConnectionTest["problems"]); the object form is tolerated for robustness only.
 */
export type TestProblem =
  | ConnectionTest["problems"][number]
  | { message?: string; code?: string; path?: string };

/** An error answer of the admin API: {error, message, field?}. */
export { ApiError };

const BASE = "/admin/api";

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  token = adminToken.value,
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${BASE}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        // An administrator by name: the cookie rides along, changes carry the CSRF token.
        ...(!token && adminSession.value ? { "x-csrf-token": adminSession.value.csrfToken } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "NETWORK", "The server cannot be reached. Check that it is running.");
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text === "" ? null : JSON.parse(text);
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = (data ?? {}) as { error?: string; message?: string; field?: string };
    const apiError = new ApiError(
      res.status,
      err.error ?? `HTTP_${res.status}`,
      err.message ?? `The server answered ${res.status} ${res.statusText}`,
      err.field,
    );
    if (res.status === 401 && token === adminToken.value) {
      signOut(
        token ? "The admin token was not accepted. Sign in again." : "Your session ended.",
      );
    }
    throw apiError;
  }
  return data as T;
}

const items = <T>(r: { items: T[] }) => r.items;
const seg = encodeURIComponent;

/** q, cursor and limit of a paged list (api/admin/schemas/common.ts adminPageQuery). */
export interface PageParams {
  q?: string;
  cursor?: string;
  limit?: number;
}

/** The query string of `params`, leaving out what is unset or empty. */
function queryOf(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const text = q.toString();
  return text ? `?${text}` : "";
}

/** Every item of the paged list at `path`, for the choices and names a page needs from it. */
async function allPages<T>(path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  // Bounded: 100 pages of the largest size.
  for (let i = 0; i < 100; i++) {
    const got = await request<Paged<T>>("GET", `${path}${queryOf({ cursor, limit: 1000 })}`);
    out.push(...got.items);
    if (got.nextCursor === null) break;
    cursor = got.nextCursor;
  }
  return out;
}

/** Disables (or enables again) the tenant, user or webhook at `path`. */
function setDisabled<T>(path: string, disabled: boolean): Promise<T> {
  return request<T>("POST", `${path}/${disabled ? "disable" : "enable"}`);
}

/** Deletes for good; `confirm` repeats the target's name, which the server checks. */
function deleteConfirmed<T>(path: string, confirm: string): Promise<T> {
  return request<T>("DELETE", `${path}?confirm=${seg(confirm)}`);
}

/** The edit, disable and delete calls of a resource with a lifecycle, at `${base}/${id}`. */
function lifecycleClient<T, Patch, Deletion>(base: string) {
  return {
    update: (id: number, patch: Patch) => request<T>("PATCH", `${base}/${id}`, patch),
    setDisabled: (id: number, disabled: boolean) => setDisabled<T>(`${base}/${id}`, disabled),
    remove: (id: number, confirm: string) => deleteConfirmed<Deletion>(`${base}/${id}`, confirm),
  };
}

const tenants = lifecycleClient<Tenant, TenantPatch, TenantDeletion>("/tenants");
const users = lifecycleClient<User, UserPatch, UserDeletion>("/users");

export const api = {
  /** Checks a token before it is kept: any authenticated read will do. */
  verifyToken: (token: string) => request<unknown>("GET", "/tenants", undefined, token),

  /** Every tenant (the server pages them; tenants are few). */
  listTenants: () => allPages<Tenant>("/tenants"),
  createTenant: (name: string) => request<Tenant>("POST", "/tenants", { name }),
  updateTenant: tenants.update,
  setTenantDisabled: tenants.setDisabled,
  /** `confirm` repeats the tenant's name. */
  deleteTenant: tenants.remove,

  /** One page of users: searched (q) and of one tenant when given. */
  listUsersPage: (params: PageParams & { tenantId?: number }) =>
    request<Paged<User>>("GET", `/users${queryOf({ ...params })}`),
  /** Every user, for choosing one and naming them by account id. */
  listUsers: () => allPages<User>("/users"),
  createUser: (input: NewUser) => request<User>("POST", "/users", input),
  updateUser: users.update,
  setUserDisabled: users.setDisabled,
  /** `confirm` repeats the user's accountId. */
  deleteUser: users.remove,

  /** One page of API keys: searched (q) and of one user when given. */
  listKeysPage: (params: PageParams & { userSeq?: number }) =>
    request<Paged<ApiKey>>("GET", `/keys${queryOf({ ...params })}`),
  issueKey: (input: NewApiKey) => request<IssuedApiKey>("POST", "/keys", input),
  revokeKey: (keyId: string) => request<null>("DELETE", `/keys/${seg(keyId)}`),

  listAdapters: () => request<{ items: Adapter[] }>("GET", "/adapters").then(items),
  registerAdapter: (input: NewAdapter) => request<CreatedAdapter>("POST", "/adapters", input),
  deleteAdapter: (name: string) => request<null>("DELETE", `/adapters/${seg(name)}`),
  rotateAdapterSecret: (name: string) =>
    request<RotatedSecret>("POST", `/adapters/${seg(name)}/rotate-secret`, {}),
  testAdapter: (name: string, baseUrl?: string) =>
    request<ConnectionTest>(
      "POST",
      `/adapters/${seg(name)}/test`,
      baseUrl ? { baseUrl } : {},
    ),

  /** One page of link shares: searched (q), only those that still open when `active`. */
  listShareLinksPage: (params: PageParams & { active?: boolean }) =>
    request<Paged<ShareLink>>("GET", `/share-links${queryOf({ ...params })}`),
  revokeShareLink: (shareSeq: number) => request<null>("DELETE", `/share-links/${shareSeq}`),

  listLocks: () => request<{ items: DocumentLock[] }>("GET", "/locks").then(items),
  releaseLock: (resourceSeq: number) =>
    request<LockRelease>("DELETE", `/locks/${resourceSeq}`, { releasedBy: "admin console" }),

  sweepBlobs: (dryRun: boolean) => request<BlobSweep>("POST", "/blobs/sweep", { dryRun }),

  listWebhooks: () => request<{ items: Webhook[] }>("GET", "/webhooks").then(items),
  createWebhook: (input: NewWebhook) => request<CreatedWebhook>("POST", "/webhooks", input),
  deleteWebhook: (id: string) => request<null>("DELETE", `/webhooks/${seg(id)}`),
  setWebhookDisabled: (id: string, disabled: boolean) =>
    setDisabled<Webhook>(`/webhooks/${seg(id)}`, disabled),
  testWebhook: (id: string) => request<WebhookDelivery>("POST", `/webhooks/${seg(id)}/test`),
  listWebhookDeliveries: (id: string, cursor?: string) =>
    request<WebhookDeliveryPage>("GET", `/webhooks/${seg(id)}/deliveries${queryOf({ cursor })}`),
  retryWebhookDelivery: (id: string, deliveryId: string) =>
    request<WebhookDelivery>(
      "POST",
      `/webhooks/${seg(id)}/deliveries/${seg(deliveryId)}/retry`,
    ),

  getTenantOidc: (tenantId: number) =>
    request<OidcSettingsAnswer>("GET", `/tenants/${tenantId}/oidc`),
  setTenantOidc: (tenantId: number, input: OidcSettingsRequest) =>
    request<OidcSettingsAnswer>("PUT", `/tenants/${tenantId}/oidc`, input),
  deleteTenantOidc: (tenantId: number) => request<null>("DELETE", `/tenants/${tenantId}/oidc`),

  /** A one-time invitation or password-reset link for a user, shown once. */
  createInvitation: (userSeq: number, kind: "invitation" | "reset") =>
    request<CreatedInvitation>("POST", `/users/${userSeq}/invitations`, { kind }),
  setAdminRole: (userSeq: number, admin: boolean) =>
    request<AdminRole>(admin ? "PUT" : "DELETE", `/users/${userSeq}/admin-role`),

  listActivity: (filter: ActivityFilter, cursor?: string) =>
    request<ActivityPage>("GET", `/activity${queryOf({ ...filter, cursor })}`),
};

/** The activity filters as typed into the console (sent as query parameters). */
export type ActivityFilter = Partial<
  Record<"tenantId" | "userSeq" | "rs" | "kind" | "from" | "to", string>
>;
