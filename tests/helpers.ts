/**
 * Test harness: the real app on a real Deno KV (`:memory:` or a temp file) served over HTTP on
 * 127.0.0.1, plus small clients for the admin and external APIs.
 */
import { createApp } from "../app.ts";
import { openFsBlobStore } from "../blobs/fs.ts";
import { openKvBlobStore } from "../blobs/kv.ts";
import type { BlobStore } from "../blobs/store.ts";
import { type Config, readConfig } from "../config.ts";
import { initAdminToken } from "../kv/admin_token.ts";
import type { Deps } from "../kv/deps.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

export interface TestServer {
  url: string;
  deps: Deps;
  kv: Deno.Kv;
  blobs: BlobStore;
  config: Config;
  admin: AdminClient;
  close(): Promise<void>;
}

export interface ServerOptions {
  blobStore?: "fs" | "kv";
  /** A KV file path to share between two servers; default `:memory:`. */
  kvPath?: string;
  /** Extra environment variables for readConfig. */
  env?: Record<string, string>;
}

export async function startTestServer(opts: ServerOptions = {}): Promise<TestServer> {
  const dataDir = await Deno.makeTempDir({ prefix: "drive-test-" });
  const config = readConfig({
    DRIVE_DATA_DIR: dataDir,
    DRIVE_KV: opts.kvPath ?? ":memory:",
    DRIVE_BLOB_STORE: opts.blobStore ?? "fs",
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    ...opts.env,
  });
  const kv = await Deno.openKv(config.kvPath);
  const blobs = config.blobStore === "fs"
    ? await openFsBlobStore(`${dataDir}/blobs`)
    : openKvBlobStore(kv);
  const adminToken = await initAdminToken(kv, config.adminToken);
  const deps = { kv, blobs, config };
  const app = createApp({ ...deps, adminToken: adminToken.check });
  const ac = new AbortController();
  let resolvePort: (port: number) => void;
  const ready = new Promise<number>((r) => (resolvePort = r));
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: ({ port }) => resolvePort(port),
  }, app.fetch);
  const port = await ready;
  const url = `http://127.0.0.1:${port}`;
  // Links the service builds must point at this server.
  config.publicUrl = opts.env?.DRIVE_PUBLIC_URL ?? url;
  return {
    url,
    deps,
    kv,
    blobs,
    config,
    admin: new AdminClient(url),
    async close() {
      ac.abort();
      await server.finished;
      kv.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

// deno-lint-ignore no-explicit-any
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

async function readJson(res: Response): Promise<JsonResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch { /* not JSON: keep the text */ }
  return { status: res.status, body, headers: res.headers };
}

export class AdminClient {
  constructor(readonly url: string, readonly token = ADMIN_TOKEN) {}

  async call(method: string, path: string, body?: unknown): Promise<JsonResponse> {
    const res = await fetch(`${this.url}/admin/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return readJson(res);
  }

  async createTenant(name = "Acme"): Promise<{ id: number; name: string }> {
    const r = await this.call("POST", "/tenants", { name });
    if (r.status !== 201) throw new Error(`createTenant: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async createUser(
    tenantId: number,
    accountId: string,
    extra: { quotaBytes?: number; name?: string } = {},
  ) {
    const r = await this.call("POST", "/users", {
      tenantId,
      accountId,
      email: `${accountId}@example.com`,
      name: extra.name ?? accountId,
      ...(extra.quotaBytes !== undefined ? { quotaBytes: extra.quotaBytes } : {}),
    });
    if (r.status !== 201) throw new Error(`createUser: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as {
      userSeq: number;
      tenantId: number;
      accountId: string;
      email: string;
      quotaBytes: number;
    };
  }

  async createKey(userSeq: number, scopes: string[] = ["api:read", "api:write"]): Promise<string> {
    const r = await this.call("POST", "/keys", { userSeq, scopes });
    if (r.status !== 201) throw new Error(`createKey: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.apiKey;
  }
}

/** A user of the external API with one key. */
export class ApiUser {
  constructor(
    readonly url: string,
    readonly userSeq: number,
    readonly tenantId: number,
    readonly apiKey: string,
    readonly accountId: string,
  ) {}

  fetch(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has("authorization")) headers.set("authorization", `Bearer ${this.apiKey}`);
    return fetch(`${this.url}/api/external/v1${path}`, { ...init, headers });
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonResponse> {
    const res = await this.fetch(path, {
      method,
      headers: {
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return readJson(res);
  }

  /** Multipart upload; `fields` are sent before the file part. */
  async upload(
    name: string,
    content: BlobPart | Blob,
    fields: Record<string, string | number> = {},
  ): Promise<JsonResponse> {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
    form.append("file", content instanceof Blob ? content : new Blob([content]), name);
    return readJson(await this.fetch("/files", { method: "POST", body: form }));
  }
}

/** Creates a user with a key in `tenantId` (a new tenant when omitted). */
export async function newApiUser(
  server: TestServer,
  accountId: string,
  opts: { tenantId?: number; scopes?: string[]; quotaBytes?: number } = {},
): Promise<ApiUser> {
  const tenantId = opts.tenantId ?? (await server.admin.createTenant(`${accountId}-org`)).id;
  const user = await server.admin.createUser(tenantId, accountId, { quotaBytes: opts.quotaBytes });
  const key = await server.admin.createKey(user.userSeq, opts.scopes);
  return new ApiUser(server.url, user.userSeq, tenantId, key, accountId);
}

/** Runs `fn` against a fresh server per blob store, so both back ends are exercised. */
export function forEachBlobStore(
  name: string,
  fn: (server: TestServer) => Promise<void>,
): void {
  for (const blobStore of ["fs", "kv"] as const) {
    Deno.test(`${name} [${blobStore} blobs]`, async () => {
      const server = await startTestServer({ blobStore });
      try {
        await fn(server);
      } finally {
        await server.close();
      }
    });
  }
}

/** Runs `fn` with a fresh server (fs blobs) that is closed afterwards. */
export async function withServer<T>(
  fn: (server: TestServer) => Promise<T>,
  opts: ServerOptions = {},
): Promise<T> {
  const server = await startTestServer(opts);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}
