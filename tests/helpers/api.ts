/**
 * Test harness, drive external API side: a user with an API key (`ApiUser`), whose `new…`
 * methods create folders, files and shares over HTTP and throw unless that worked, and helpers
 * that create such users and keys.
 */
import { type JsonResponse, readJson } from "./http.ts";
import type { TestServer } from "./server.ts";

/** A permission a share may grant on top of view (edit, download, upload, re-share). */
export type SharePermission = "ce" | "cd" | "cu" | "cs";

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

  /** POST /folders into folder `pfs` (or the root); throws unless 201. Returns the resourceSeq. */
  async newFolder(fn: string, pfs?: number): Promise<number> {
    const res = await this.call("POST", "/folders", { fn, ...(pfs ? { pfs } : {}) });
    if (res.status !== 201) throw new Error(`folder: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.resourceSeq;
  }

  /** Folders each inside the one before, from the root: ("Team", "Sub") is /Team/Sub. */
  async newFolderPath(...names: string[]): Promise<number[]> {
    const seqs: number[] = [];
    for (const name of names) seqs.push(await this.newFolder(name, seqs.at(-1)));
    return seqs;
  }

  /** POST /files into folder `pfs` (or the root); throws unless 201. Returns the resourceSeq. */
  async newFile(name: string, content: BlobPart, pfs?: number): Promise<number> {
    const res = await this.upload(name, content, pfs ? { pfs } : {});
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.resourceSeq;
  }

  /** POST /shares; throws unless 201. Returns the share (envelope data). */
  // deno-lint-ignore no-explicit-any
  async newShare(body: Record<string, unknown>): Promise<any> {
    const res = await this.call("POST", "/shares", body);
    if (res.status !== 201) throw new Error(`share: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data;
  }

  /** Shares `rs` with one user (SPECIFIC_USERS): view plus the named permissions. */
  // deno-lint-ignore no-explicit-any
  shareWith(rs: number, to: ApiUser, ...perms: SharePermission[]): Promise<any> {
    return this.newShare({
      rs,
      st: "SPECIFIC_USERS",
      ts: [{ us: to.userSeq, ...shareFlags(...perms) }],
    });
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

/** The same user through a second key that has only the api:read scope. */
export async function readOnlyKeyOf(server: TestServer, user: ApiUser): Promise<ApiUser> {
  const key = await server.admin.createKey(user.userSeq, ["api:read"]);
  return new ApiUser(server.url, user.userSeq, user.tenantId, key, user.accountId);
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
  return await new ApiUser(server.url, owner.userSeq, owner.tenantId, key, owner.accountId)
    .newFile(name, content);
}

/** Share flags for POST/PATCH /shares and `ts[]` entries: cv plus the named permissions. */
export function shareFlags(...on: SharePermission[]) {
  return {
    cv: true,
    ce: on.includes("ce"),
    cd: on.includes("cd"),
    cu: on.includes("cu"),
    cs: on.includes("cs"),
  };
}
