/**
 * Typed client of the admin API (/admin/api). Every call sends the session's admin token as a
 * bearer header; a 401 signs the session out, since the token is wrong or was rotated.
 */
import type {
  Adapter,
  AdapterOperation,
  ApiKey,
  BlobSweep,
  ConnectionTest,
  CreatedAdapter,
  DocumentLock,
  IssuedApiKey,
  LockRelease,
  NewAdapter,
  NewApiKey,
  NewUser,
  Permission,
  RotatedSecret,
  ShareLink,
  ShareType,
  Tenant,
  TenantPatch,
  User,
  UserPatch,
} from "../../api/admin/schemas.ts";
import { adminToken, signOut } from "./session.ts";

// The shapes of the admin API are the server's own (api/admin/schemas.ts). `import type` keeps
// server code out of the browser bundle; the pages take the types from here.
export type {
  Adapter,
  AdapterOperation,
  ApiKey,
  BlobSweep,
  ConnectionTest,
  DocumentLock,
  Permission,
  Scope,
  ShareLink,
  SharePolicy,
  ShareType,
  Tenant,
  User,
} from "../../api/admin/schemas.ts";

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

/**
 * A problem as the connection test's view accepts it. The server sends sentences
 * (ConnectionTest["problems"]); the object form is tolerated for robustness only.
 */
export type TestProblem =
  | ConnectionTest["problems"][number]
  | { message?: string; code?: string; path?: string };

/** An error answer of the admin API: {error, message, field?}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

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
      signOut("The admin token was not accepted. Sign in again.");
    }
    throw apiError;
  }
  return data as T;
}

const items = <T>(r: { items: T[] }) => r.items;
const seg = encodeURIComponent;

export const api = {
  /** Checks a token before it is kept: any authenticated read will do. */
  verifyToken: (token: string) => request<unknown>("GET", "/tenants", undefined, token),

  listTenants: () => request<{ items: Tenant[] }>("GET", "/tenants").then(items),
  createTenant: (name: string) => request<Tenant>("POST", "/tenants", { name }),
  updateTenant: (id: number, patch: TenantPatch) =>
    request<Tenant>("PATCH", `/tenants/${id}`, patch),

  listUsers: (tenantId?: number) =>
    request<{ items: User[] }>("GET", `/users${tenantId ? `?tenantId=${tenantId}` : ""}`)
      .then(items),
  createUser: (input: NewUser) => request<User>("POST", "/users", input),
  updateUser: (userSeq: number, patch: UserPatch) =>
    request<User>("PATCH", `/users/${userSeq}`, patch),

  listKeys: (userSeq?: number) =>
    request<{ items: ApiKey[] }>("GET", `/keys${userSeq ? `?userSeq=${userSeq}` : ""}`)
      .then(items),
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

  listShareLinks: () => request<{ items: ShareLink[] }>("GET", "/share-links").then(items),
  revokeShareLink: (shareSeq: number) => request<null>("DELETE", `/share-links/${shareSeq}`),

  listLocks: () => request<{ items: DocumentLock[] }>("GET", "/locks").then(items),
  releaseLock: (resourceSeq: number) =>
    request<LockRelease>("DELETE", `/locks/${resourceSeq}`, { releasedBy: "admin console" }),

  sweepBlobs: (dryRun: boolean) => request<BlobSweep>("POST", "/blobs/sweep", { dryRun }),
};
