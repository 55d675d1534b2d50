/**
 * Test harness: the real app on a real Deno KV (`:memory:` or a temp file) served over HTTP on
 * 127.0.0.1, plus small clients for the admin and external APIs.
 */
import { boot } from "../../boot.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { type Config, readConfig } from "../../config.ts";
import type { Deps } from "../../kv/deps.ts";

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
  const service = await boot(config);
  const { kv, blobs, app } = service;
  const deps = { kv, blobs, config };
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
      service.close();
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

/** A hand-built multipart/form-data body (for uploads fetch's FormData cannot express). */
export function multipartBody(
  parts:
    ({ name: string; value: string } | { name: string; filename: string; bytes: Uint8Array })[],
  opts: { boundary?: string; close?: boolean } = {},
): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = opts.boundary ?? "----drive-test-boundary-7d1f";
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const p of parts) {
    const head = "filename" in p
      ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    chunks.push(
      enc.encode(head),
      "filename" in p ? p.bytes : enc.encode(p.value),
      enc.encode("\r\n"),
    );
  }
  if (opts.close !== false) chunks.push(enc.encode(`--${boundary}--\r\n`));
  const body = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let off = 0;
  for (const c of chunks) {
    body.set(c, off);
    off += c.byteLength;
  }
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Blob files of the fs blob store (finished ones and leftover temp parts). */
export async function fsBlobFiles(
  server: TestServer,
): Promise<{ blobs: string[]; temp: string[] }> {
  const root = `${server.config.dataDir}/blobs`;
  const out = { blobs: [] as string[], temp: [] as string[] };
  for await (const dir of Deno.readDir(root)) {
    if (!dir.isDirectory) continue;
    for await (const f of Deno.readDir(`${root}/${dir.name}`)) {
      (dir.name === "tmp" ? out.temp : out.blobs).push(f.name);
    }
  }
  return out;
}

/** Deterministic pseudo-random bytes (so range and hash checks see varied content). */
export function testBytes(size: number, seed = 1): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/**
 * Uploads a file into `owner`'s drive root over HTTP (POST /files) with a fresh api:write key of
 * that user, so it works for users whose own key is read-only. Returns the resourceSeq.
 */
export async function uploadAs(
  server: TestServer,
  owner: ApiUser,
  name: string,
  content: BlobPart,
): Promise<number> {
  const key = await server.admin.createKey(owner.userSeq);
  return fileOver(
    new ApiUser(server.url, owner.userSeq, owner.tenantId, key, owner.accountId),
    name,
    content,
  );
}

/** A raw HTTP/1.1 exchange over TCP: the request target and headers go out byte for byte. */
export interface RawHttpResponse {
  status: number;
  /** Header lines as received (names lowercased), duplicates kept. */
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * Sends one request on a fresh connection (Connection: close) and reads the whole answer.
 * `abortAfter`: send only that many body bytes, then close the connection (an aborted upload).
 * `endAfter`: send only that many body bytes, then end the sending side and read the answer.
 */
export async function rawHttp(
  baseUrl: string,
  req: {
    method: string;
    target: string;
    headers?: [string, string][];
    body?: Uint8Array;
    abortAfter?: number;
    endAfter?: number;
  },
): Promise<RawHttpResponse | null> {
  const { hostname, port } = new URL(baseUrl);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const lines = [`${req.method} ${req.target} HTTP/1.1`, `host: ${hostname}:${port}`];
  for (const [k, v] of req.headers ?? []) lines.push(`${k}: ${v}`);
  lines.push("connection: close", "", "");
  const writeAll = async (bytes: Uint8Array) => {
    for (let off = 0; off < bytes.byteLength;) off += await conn.write(bytes.subarray(off));
  };
  try {
    await writeAll(new TextEncoder().encode(lines.join("\r\n")));
    const sent = req.abortAfter ?? req.endAfter ?? req.body?.byteLength ?? 0;
    if (req.body) await writeAll(req.body.subarray(0, sent));
    if (req.abortAfter !== undefined) return null;
    if (req.endAfter !== undefined) await conn.closeWrite();
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(64 * 1024);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      chunks.push(buf.slice(0, n));
    }
    const all = new Uint8Array(chunks.reduce((s, c) => s + c.byteLength, 0));
    let off = 0;
    for (const c of chunks) {
      all.set(c, off);
      off += c.byteLength;
    }
    const text = new TextDecoder("latin1").decode(all);
    const end = text.indexOf("\r\n\r\n");
    const [statusLine, ...headerLines] = text.slice(0, end).split("\r\n");
    return {
      status: Number(statusLine.split(" ")[1]),
      headers: headerLines.map((l) => {
        const i = l.indexOf(":");
        return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
      }),
      body: all.slice(end + 4),
    };
  } finally {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

/**
 * Registers a storage provider adapter through the admin API (for a new user unless `userSeq`
 * is given) and returns a host client signed for it.
 */
export async function newProviderAdapter(
  server: TestServer,
  name: string,
  opts: {
    userSeq?: number;
    folderSeq?: number;
    operations?: string[];
    readOnly?: boolean;
    quotaBytes?: number;
  } = {},
) {
  const { ProviderHostClient } = await import("../../provider/host_client.ts");
  let userSeq = opts.userSeq;
  if (userSeq === undefined) {
    const tenant = await server.admin.createTenant(`${name}-org`);
    userSeq = (await server.admin.createUser(tenant.id, `${name}-user`, {
      quotaBytes: opts.quotaBytes,
    })).userSeq;
  }
  const r = await server.admin.call("POST", "/adapters", {
    name,
    userSeq,
    ...(opts.folderSeq !== undefined ? { folderSeq: opts.folderSeq } : {}),
    ...(opts.operations ? { operations: opts.operations } : {}),
    ...(opts.readOnly !== undefined ? { readOnly: opts.readOnly } : {}),
  });
  if (r.status !== 201) throw new Error(`createAdapter: ${r.status} ${JSON.stringify(r.body)}`);
  const secret: string = r.body.secret;
  const client = new ProviderHostClient({ baseUrl: server.url, adapter: name, secret });
  return { name, secret, userSeq, client };
}

/** Share flags for POST/PATCH /shares and `ts[]` entries: cv plus the named permissions. */
export function shareFlags(...on: ("ce" | "cd" | "cu" | "cs")[]) {
  return {
    cv: true,
    ce: on.includes("ce"),
    cd: on.includes("cd"),
    cu: on.includes("cu"),
    cs: on.includes("cs"),
  };
}

/** POST /shares as `owner`; throws unless 201. Returns the share (envelope data). */
// deno-lint-ignore no-explicit-any
export async function createShareOver(owner: ApiUser, body: Record<string, unknown>): Promise<any> {
  const res = await owner.call("POST", "/shares", body);
  if (res.status !== 201) throw new Error(`share: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** POST /folders as `owner`; throws unless 201. Returns the resourceSeq. */
export async function folderOver(owner: ApiUser, fn: string, pfs?: number): Promise<number> {
  const res = await owner.call("POST", "/folders", { fn, ...(pfs ? { pfs } : {}) });
  if (res.status !== 201) throw new Error(`folder: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.resourceSeq;
}

/**
 * A provider request sent raw (any target, method, headers) and signed for `adapter` unless
 * `jwt` is given; `edit` may change the claims before signing, to tamper with one field.
 */
export async function providerRawRequest(
  baseUrl: string,
  adapter: { name: string; secret: string },
  req: {
    method: string;
    target: string;
    contentType?: string;
    body?: Uint8Array;
    headers?: [string, string][];
    jwt?: string;
    // deno-lint-ignore no-explicit-any
    edit?: (claims: any, header: any) => void;
    abortAfter?: number;
    endAfter?: number;
  },
): Promise<RawHttpResponse | null> {
  const { signJwt } = await import("../../provider/jwt.ts");
  const { createHash } = await import("node:crypto");
  const body = req.body ?? new Uint8Array();
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: "HS256", typ: "doc-storage-request+jwt" };
  const claims = {
    iss: "doc-office",
    aud: "doc-http-storage-provider",
    iat: now,
    exp: now + 60,
    jti: crypto.randomUUID(),
    request: {
      adapter: adapter.name,
      method: req.method,
      path: req.target.split("?")[0],
      ...(req.contentType !== undefined ? { content_type: req.contentType } : {}),
      content_length: body.byteLength,
      content_sha256: createHash("sha256").update(body).digest("hex"),
    },
  };
  req.edit?.(claims, header);
  const headers: [string, string][] = [
    ["x-doc-storage-adapter", adapter.name],
    ["x-doc-storage-request-jwt", req.jwt ?? signJwt(header, claims, adapter.secret)],
  ];
  if (req.contentType !== undefined) headers.push(["content-type", req.contentType]);
  const chunked = (req.headers ?? []).some(([k]) => k.toLowerCase() === "transfer-encoding");
  if (req.body && !chunked) headers.push(["content-length", String(body.byteLength)]);
  return rawHttp(baseUrl, {
    method: req.method,
    target: req.target,
    // Headers given in `req.headers` replace the defaults of the same name.
    headers: [
      ...headers.filter(([k]) => !(req.headers ?? []).some(([n]) => n.toLowerCase() === k)),
      ...(req.headers ?? []),
    ],
    body: req.body,
    abortAfter: req.abortAfter,
    endAfter: req.endAfter,
  });
}

/** POST /files as `user` into folder `pfs` (or the root); throws unless 201. Returns the seq. */
export async function fileOver(
  user: ApiUser,
  name: string,
  content: BlobPart,
  pfs?: number,
): Promise<number> {
  const res = await user.upload(name, content, pfs ? { pfs } : {});
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.resourceSeq;
}

/** The same user through a second key that has only the api:read scope. */
export async function readOnlyKeyOf(server: TestServer, user: ApiUser): Promise<ApiUser> {
  const key = await server.admin.createKey(user.userSeq, ["api:read"]);
  return new ApiUser(server.url, user.userSeq, user.tenantId, key, user.accountId);
}
