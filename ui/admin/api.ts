/**
 * Typed client of the admin API (/admin/api). Every call sends the session's admin token as a
 * bearer header; a 401 signs the session out, since the token is wrong or was rotated.
 */
import { adminToken, signOut } from "./session.ts";

export type Permission = "VIEW" | "EDIT" | "DOWNLOAD" | "UPLOAD" | "SHARE";
export type ShareType = "SPECIFIC_USERS" | "ORG_LINK" | "PUBLIC_LINK";
export const SHARE_TYPES: ShareType[] = ["SPECIFIC_USERS", "ORG_LINK", "PUBLIC_LINK"];
export const PERMISSIONS: Permission[] = ["VIEW", "EDIT", "DOWNLOAD", "UPLOAD", "SHARE"];
export type SharePolicy = Record<ShareType, { allowed: boolean; maxPermissions: Permission[] }>;

export interface Tenant {
  id: number;
  name: string;
  createdAt: string;
  sharePolicy: SharePolicy;
}

export interface User {
  userSeq: number;
  tenantId: number;
  accountId: string;
  email: string;
  name: string;
  quotaBytes: number;
  usedBytes: number;
  createdAt: string;
}

export type Scope = "api:read" | "api:write";

export interface ApiKey {
  keyId: string;
  userSeq: number;
  scopes: Scope[];
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export const ADAPTER_OPERATIONS = [
  "list",
  "put",
  "lock",
  "unlock",
  "mkdir",
  "rename",
  "delete",
] as const;
export type AdapterOperation = typeof ADAPTER_OPERATIONS[number];

export interface Adapter {
  name: string;
  userSeq: number;
  folderSeq?: number | null;
  operations: AdapterOperation[];
  readOnly: boolean;
  createdAt?: string | number;
  secretUpdatedAt?: string;
}

/** A problem of the connection test: a sentence, or an object that carries one. */
export type TestProblem = string | { message?: string; code?: string; path?: string };

export interface ConnectionTest {
  ok: boolean;
  status: number;
  durationMs: number;
  entries?: number | unknown[];
  problems: TestProblem[];
  /** Set when the provider validly answered that it does not support list. */
  unsupported?: boolean;
  notice?: string;
}

export interface ShareLink {
  shareSeq: number;
  resourceSeq: number;
  resourceName: string;
  ownerSeq: number;
  shareType: ShareType;
  url: string;
  expireDate: string | number | null;
  isPasswordEnabled: boolean;
  createdAt: string | number;
}

export interface DocumentLock {
  resourceSeq: number;
  resourceName: string | null;
  ownerSeq: number | null;
  owner: string;
  source: string;
  holder: string;
  lockedAt: string | number;
  expiresAt: string | number | null;
}

/** POST /blobs/sweep's answer (docs/api.md, orphan blob sweep). */
export interface BlobSweep {
  dryRun: boolean;
  blobs: number;
  tooYoung: number;
  orphans: number;
  orphanBytes: number;
  removed: number;
  abandonedWrites: number;
}

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
  updateTenant: (id: number, patch: { name?: string; sharePolicy?: Partial<SharePolicy> }) =>
    request<Tenant>("PATCH", `/tenants/${id}`, patch),

  listUsers: (tenantId?: number) =>
    request<{ items: User[] }>("GET", `/users${tenantId ? `?tenantId=${tenantId}` : ""}`)
      .then(items),
  createUser: (input: {
    tenantId: number;
    accountId: string;
    email: string;
    name: string;
    quotaBytes?: number;
  }) => request<User>("POST", "/users", input),
  updateUser: (userSeq: number, patch: { name?: string; email?: string; quotaBytes?: number }) =>
    request<User>("PATCH", `/users/${userSeq}`, patch),

  listKeys: (userSeq?: number) =>
    request<{ items: ApiKey[] }>("GET", `/keys${userSeq ? `?userSeq=${userSeq}` : ""}`)
      .then(items),
  issueKey: (input: { userSeq: number; scopes: Scope[]; label?: string | null }) =>
    request<ApiKey & { apiKey: string }>("POST", "/keys", input),
  revokeKey: (keyId: string) => request<null>("DELETE", `/keys/${seg(keyId)}`),

  listAdapters: () => request<{ items: Adapter[] }>("GET", "/adapters").then(items),
  registerAdapter: (input: {
    name: string;
    secret?: string;
    userSeq: number;
    folderSeq?: number;
    operations: AdapterOperation[];
    readOnly: boolean;
  }) => request<Adapter & { secret: string }>("POST", "/adapters", input),
  deleteAdapter: (name: string) => request<null>("DELETE", `/adapters/${seg(name)}`),
  rotateAdapterSecret: (name: string) =>
    request<{ name: string; secret: string }>("POST", `/adapters/${seg(name)}/rotate-secret`, {}),
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
    request<unknown>("DELETE", `/locks/${resourceSeq}`, { releasedBy: "admin console" }),

  sweepBlobs: (dryRun: boolean) => request<BlobSweep>("POST", "/blobs/sweep", { dryRun }),
};
