/**
 * What a document host does against a storage provider: sign each request for an adapter (fresh
 * iat/exp/jti, SHA-256 of the exact body bytes), send it, and validate the response with every
 * host-side rule of the protocol (answers.ts: framing, media types, sizes, unsupported bodies;
 * schemas.ts: entry, list and docId). Each call returns a typed value or the precise list of
 * problems. The admin connection test and the provider's tests use it.
 */
import { type SignedRequest, signRequestJwt } from "../jwt.ts";
import type { Entry } from "../entries.ts";
import { MAX_DOC_BYTES, MAX_RESULT_TEXT_BYTES } from "../limits.ts";
import { encodeProviderPath, OPERATION_METHOD, PROVIDER_BASE } from "../paths.ts";
import type { Operation } from "../../kv/adapters/operations.ts";
import { sha256Hex } from "../../lib/secrets.ts";
import { parseHttpUrl } from "../../lib/http_url.ts";
import {
  failedAnswer,
  type Failure,
  failure,
  framingOf,
  type HostResult,
  jsonBody,
  mediaType,
  readErrorText,
  readExact,
} from "./answers.ts";
import { docIdProblems, entryProblems, listProblems } from "./schemas.ts";

interface GetResult {
  size: number;
  sha256: string;
  /** The bytes, unless a sink consumed them. */
  bytes: Uint8Array | null;
}

interface HostClientOptions {
  baseUrl: string;
  adapter: string;
  secret: string;
  timeoutMs?: number;
  /** The host's own document limit for get (at most the protocol's 314,572,800). */
  maxGetBytes?: number;
}

interface RequestExtras {
  saveType?: string;
  officeConnectionId?: string;
  clientMetadata?: Record<string, unknown>;
}

type RequestBody = { bytes: Uint8Array | null; contentType?: string };

/**
 * Checks a provider base URL (http/https, optional path prefix, no user info, query, fragment
 * or dot segments) and returns it without a trailing slash, or the problem.
 */
export function normalizeBaseUrl(baseUrl: string): { url: string } | { problem: string } {
  const parsed = parseHttpUrl(baseUrl, {
    unparsable: "the base URL is not a URL",
    scheme: () => "the base URL must be http or https",
    userInfo: "the base URL must not contain user info",
  });
  if ("problem" in parsed) return parsed;
  const u = parsed.url;
  if (baseUrl.includes("?") || baseUrl.includes("#")) {
    return { problem: "the base URL must not have a query or fragment" };
  }
  // The URL parser drops tabs and newlines and reads "\\" as "/", which could hide a dot segment.
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f\\]/.test(baseUrl)) {
    return { problem: "the base URL must not contain control characters or backslashes" };
  }
  const rawPath = baseUrl.replace(/^[a-z]+:\/\/[^/]*/i, "");
  if (rawPath.split("/").some((s) => /^(?:\.|%2e){1,2}$/i.test(s))) {
    return { problem: "the base URL must not contain '.' or '..' segments" };
  }
  return { url: `${u.origin}${u.pathname.replace(/\/+$/, "")}` };
}

/**
 * Why a request got no answer. Deno's fetch says only "fetch failed" and keeps the reason
 * (connection refused, DNS, TLS) in `cause`, which repeats the URL; the reasons are joined.
 */
function networkProblem(err: unknown, url: string, timeoutMs: number): string {
  if (err instanceof DOMException && err.name === "TimeoutError") {
    return `request failed: no answer within ${timeoutMs} ms`;
  }
  const reasons: string[] = [];
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const text = e instanceof Error ? e.message : String(e);
    reasons.push(text.replace(`error sending request for url (${url}): `, ""));
    e = e instanceof Error ? e.cause : undefined;
  }
  return `request failed: ${reasons.join(": ")}`;
}

export class ProviderHostClient {
  readonly base: string | null;
  private readonly basePath: string;
  private readonly baseProblem: string | null;

  constructor(readonly opts: HostClientOptions) {
    const n = normalizeBaseUrl(opts.baseUrl);
    this.base = "url" in n ? n.url : null;
    this.baseProblem = "problem" in n ? n.problem : null;
    this.basePath = this.base ? new URL(this.base).pathname.replace(/\/+$/, "") : "";
  }

  /** The raw encoded request path of an operation (what the JWT signs). */
  pathFor(op: Operation, segments: readonly string[]): string {
    const doc = encodeProviderPath(segments);
    return `${this.basePath}${PROVIDER_BASE}/${doc === "" ? "" : `${doc}/`}${op}`;
  }

  /** Headers of a signed request (exported for tests that then tamper with the request). */
  signedHeaders(
    op: Operation,
    segments: readonly string[],
    body: RequestBody,
    extras: RequestExtras = {},
  ): Record<string, string> {
    const request: SignedRequest = {
      adapter: this.opts.adapter,
      method: OPERATION_METHOD[op],
      path: this.pathFor(op, segments),
      ...(body.contentType ? { content_type: body.contentType } : {}),
      content_length: body.bytes?.byteLength ?? 0,
      content_sha256: sha256Hex(body.bytes ?? new Uint8Array()),
      ...(extras.officeConnectionId ? { office_connection_id: extras.officeConnectionId } : {}),
      ...(extras.saveType ? { arguments: { save_type: extras.saveType } } : {}),
      ...(extras.clientMetadata ? { client_metadata: extras.clientMetadata } : {}),
    };
    return {
      "x-doc-storage-adapter": this.opts.adapter,
      "x-doc-storage-request-jwt": signRequestJwt(this.opts.secret, request),
      ...(body.contentType ? { "content-type": body.contentType } : {}),
    };
  }

  private async send(
    op: Operation,
    segments: readonly string[],
    body: RequestBody,
    extras?: RequestExtras,
  ): Promise<Response | Failure> {
    if (!this.base) return failure(null, [this.baseProblem ?? "invalid base URL"]);
    const url = `${new URL(this.base).origin}${this.pathFor(op, segments)}`;
    const timeoutMs = this.opts.timeoutMs ?? 30_000;
    try {
      const res = await fetch(url, {
        method: OPERATION_METHOD[op],
        headers: this.signedHeaders(op, segments, body, extras),
        body: body.bytes as BodyInit | null,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        return failure(res.status, [
          `redirect (${res.status}) instead of an answer; redirects are not followed`,
        ]);
      }
      return res;
    } catch (err) {
      return failure(null, [networkProblem(err, url, timeoutMs)]);
    }
  }

  /** info: the entry, or null when the provider answers 404 (the entry is absent). */
  async info(segments: readonly string[]): Promise<HostResult<Entry | null>> {
    const res = await this.send("info", segments, { bytes: null });
    if (!(res instanceof Response)) return res;
    if (res.status === 404) {
      await readErrorText(res);
      return { ok: true, status: 404, value: null };
    }
    if (res.status !== 200) return await failedAnswer("info", res);
    const body = await jsonBody(res, "info");
    if (!("value" in body)) return body;
    const path = segments.join("/");
    const problems = entryProblems(body.value, "info");
    if (!problems.length) {
      const e = body.value as unknown as Entry;
      if (e.path !== path) {
        problems.push(`info.path "${e.path}" is not the requested path "${path}"`);
      }
      if (path === "" && (e.type !== "directory" || e.size !== 0)) {
        problems.push("info: the root must be a directory of size 0");
      }
    }
    return problems.length
      ? failure(200, problems)
      : { ok: true, status: 200, value: body.value as Entry };
  }

  async list(segments: readonly string[]): Promise<HostResult<Entry[]>> {
    const res = await this.send("list", segments, { bytes: null });
    if (!(res instanceof Response)) return res;
    if (res.status !== 200) {
      const failed = await failedAnswer("list", res);
      // The root always exists on a provider: nothing there means the wrong place was asked.
      if (res.status === 404 && segments.length === 0) {
        failed.problems.push(
          `nothing answers the root listing at ${res.url}: the base URL or its path prefix ` +
            "may be wrong",
        );
      }
      return failed;
    }
    const body = await jsonBody(res, "list");
    if (!("value" in body)) return body;
    const problems = listProblems(body.value, segments.join("/"));
    return problems.length
      ? failure(200, problems)
      : { ok: true, status: 200, value: (body.value as { entries: Entry[] }).entries };
  }

  /** get: exactly Content-Length bytes of application/octet-stream, hashed on the way. */
  async get(
    segments: readonly string[],
    opts: { sink?: (chunk: Uint8Array) => void | Promise<void> } = {},
  ): Promise<HostResult<GetResult>> {
    const res = await this.send("get", segments, { bytes: null });
    if (!(res instanceof Response)) return res;
    if (res.status !== 200) return await failedAnswer("get", res);
    const limit = Math.min(this.opts.maxGetBytes ?? MAX_DOC_BYTES, MAX_DOC_BYTES);
    const framing = framingOf(res, limit);
    if (mediaType(res).type !== "application/octet-stream") {
      framing.problems.push(
        `get: Content-Type "${res.headers.get("content-type")}" is not application/octet-stream`,
      );
    }
    if (framing.length === null || framing.problems.length) {
      await res.body?.cancel().catch(() => {});
      return failure(200, framing.problems);
    }
    const read = await readExact(res, framing.length, opts.sink);
    if (read.problems.length) return failure(200, read.problems);
    return {
      ok: true,
      status: 200,
      value: { size: framing.length, sha256: read.sha256, bytes: read.bytes },
    };
  }

  /** put: the whole document; the answer must be 2xx (not 204) JSON with only a valid docId. */
  async put(
    segments: readonly string[],
    bytes: Uint8Array,
    extras: RequestExtras = {},
  ): Promise<HostResult<{ docId: string }>> {
    const res = await this.send(
      "put",
      segments,
      { bytes, contentType: "application/octet-stream" },
      extras,
    );
    if (!(res instanceof Response)) return res;
    if (res.status < 200 || res.status > 299) return await failedAnswer("put", res);
    if (res.status === 204) return failure(204, ["put: 204 is not allowed; the docId is required"]);
    const body = await jsonBody(res, "put");
    if (!("value" in body)) return body;
    const problems = docIdProblems(body.value);
    return problems.length
      ? failure(res.status, problems)
      : { ok: true, status: res.status, value: body.value as { docId: string } };
  }

  lock(segments: readonly string[], owner: string, extras?: RequestExtras) {
    return this.noContentOp("lock", segments, { owner }, extras);
  }

  unlock(segments: readonly string[], owner: string, extras?: RequestExtras) {
    return this.noContentOp("unlock", segments, { owner }, extras);
  }

  mkdir(parent: readonly string[], name: string, extras?: RequestExtras) {
    return this.noContentOp("mkdir", parent, { name }, extras);
  }

  rename(segments: readonly string[], name: string, extras?: RequestExtras) {
    return this.noContentOp("rename", segments, { name }, extras);
  }

  delete(segments: readonly string[], extras?: RequestExtras) {
    return this.noContentOp("delete", segments, null, extras);
  }

  /** 204 without a body, or another 2xx (a 200 text result is plain UTF-8 text of <= 10 MiB). */
  private async noContentOp(
    op: Operation,
    segments: readonly string[],
    json: Record<string, string> | null,
    extras?: RequestExtras,
  ): Promise<HostResult<{ text: string | null }>> {
    const body = json
      ? { bytes: new TextEncoder().encode(JSON.stringify(json)), contentType: "application/json" }
      : { bytes: null };
    const res = await this.send(op, segments, body, extras);
    if (!(res instanceof Response)) return res;
    if (res.status < 200 || res.status > 299) return await failedAnswer(op, res);
    if (res.status === 204) {
      const cl = res.headers.get("content-length");
      const text = await readErrorText(res, 1);
      const problems = (cl !== null && cl !== "0") || text !== ""
        ? [`${op}: a 204 answer must not have a body`]
        : [];
      return problems.length
        ? failure(204, problems)
        : { ok: true, status: 204, value: { text: null } };
    }
    const framing = framingOf(res, MAX_RESULT_TEXT_BYTES);
    if (framing.length === null || framing.length === 0) {
      await res.body?.cancel().catch(() => {});
      return framing.problems.length
        ? failure(res.status, framing.problems)
        : { ok: true, status: res.status, value: { text: null } };
    }
    const m = mediaType(res);
    if (m.type !== "text/plain" || m.charset !== "utf-8") {
      framing.problems.push(`${op}: a result text must be text/plain; charset=utf-8`);
    }
    if (framing.problems.length) {
      await res.body?.cancel().catch(() => {});
      return failure(res.status, framing.problems);
    }
    const read = await readExact(res, framing.length);
    if (read.problems.length) return failure(res.status, read.problems);
    return { ok: true, status: res.status, value: { text: new TextDecoder().decode(read.bytes!) } };
  }
}
