/**
 * Test harness, storage provider side: an adapter registered through the admin API with a host
 * client signed for it, and raw provider requests signed (or tampered with) by hand.
 */
import { createHash } from "node:crypto";
import { ProviderHostClient } from "../../provider/host/client.ts";
import { signJwt } from "../../provider/jwt.ts";
import { rawHttp, type RawHttpResponse } from "./http.ts";
import type { TestServer } from "./server.ts";

/**
 * Registers a storage provider adapter through the admin API (for a new user unless `userSeq`
 * is given) and returns a host client signed for it. `server` may be any running service with
 * an admin client (the provider benchmark passes its own server process).
 */
export async function newProviderAdapter(
  server: Pick<TestServer, "url" | "admin">,
  name: string,
  opts: {
    userSeq?: number;
    folderSeq?: number;
    operations?: string[];
    readOnly?: boolean;
    quotaBytes?: number;
    /** The host client's request timeout (its default when omitted). */
    timeoutMs?: number;
  } = {},
) {
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
  const client = new ProviderHostClient({
    baseUrl: server.url,
    adapter: name,
    secret,
    timeoutMs: opts.timeoutMs,
  });
  return { name, secret, userSeq, client };
}

/** The JWT header a conforming host signs provider requests with. */
export const PROVIDER_JWT_HEADER = { alg: "HS256", typ: "doc-storage-request+jwt" };

/** Claims for one provider request (`path` without its query), as a conforming host signs them. */
export function providerClaims(
  adapter: string,
  req: { method: string; path: string; contentType?: string; length: number; sha256: string },
) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: "doc-office",
    aud: "doc-http-storage-provider",
    iat: now,
    exp: now + 60,
    jti: crypto.randomUUID(),
    request: {
      adapter,
      method: req.method,
      path: req.path,
      ...(req.contentType !== undefined ? { content_type: req.contentType } : {}),
      content_length: req.length,
      content_sha256: req.sha256,
    },
  };
}

/** The spec's required fields of a provider entry: a 3-byte file `a.txt`, writable, unlocked. */
export const FILE_ENTRY = {
  path: "a.txt",
  name: "a.txt",
  type: "file",
  size: 3,
  readable: true,
  writable: true,
  locked: false,
};

/** A JSON body for providerRawRequest, with its content type. */
export function jsonBody(text: string): { contentType: string; body: Uint8Array } {
  return { contentType: "application/json", body: new TextEncoder().encode(text) };
}

/** A file's bytes as a providerRawRequest body, with their content type. */
export function octetBody(body: Uint8Array): { contentType: string; body: Uint8Array } {
  return { contentType: "application/octet-stream", body };
}

/**
 * A provider request sent raw (any target, method, headers) and signed for `adapter` unless
 * `jwt` is given; `edit` may change the claims before signing, to tamper with one field.
 */
export function providerRawRequest(
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
  const body = req.body ?? new Uint8Array();
  const header = { ...PROVIDER_JWT_HEADER };
  const claims = providerClaims(adapter.name, {
    method: req.method,
    path: req.target.split("?")[0],
    contentType: req.contentType,
    length: body.byteLength,
    sha256: createHash("sha256").update(body).digest("hex"),
  });
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
