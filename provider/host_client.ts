/**
 * What a document host does against a storage provider: sign each request for an adapter (fresh
 * iat/exp/jti, SHA-256 of the exact body bytes), send it, and validate the response with every
 * host-side rule of the protocol (framing, media types, entry/list/docId schemas with no unknown
 * or duplicate fields, exact unsupported bodies, size limits). Each call returns a typed value
 * or the precise list of problems. The admin connection test and the provider's tests use it.
 */
import { createHash } from "node:crypto";
import { type SignedRequest, signRequestJwt } from "./jwt.ts";
import type { Entry } from "./entries.ts";
import {
  MAX_DOC_BYTES as MAX_GET_BYTES,
  MAX_ERROR_BODY_BYTES,
  MAX_JSON_RESPONSE_BYTES,
  MAX_LIST_ENTRIES,
  MAX_RESULT_TEXT_BYTES,
} from "./limits.ts";
import { encodeProviderPath, OPERATION_METHOD, PROVIDER_BASE, segmentProblem } from "./paths.ts";
import type { Operation } from "../kv/adapters/operations.ts";
import { UNSUPPORTED_CODE } from "./responses.ts";
import { parseStrictJson } from "./strict_json.ts";
import { sha256Hex } from "../lib/secrets.ts";

export type HostResult<T> =
  | { ok: true; status: number; value: T }
  | {
    ok: false;
    /** null: no HTTP response (network error, timeout, invalid base URL). */
    status: number | null;
    /** The exact unsupported declaration of an optional operation. */
    unsupported: boolean;
    /** The provider's error text (first 8 KiB), when it sent one. */
    message: string;
    problems: string[];
  };

export interface GetResult {
  size: number;
  sha256: string;
  /** The bytes, unless a sink consumed them. */
  bytes: Uint8Array | null;
}

export interface HostClientOptions {
  baseUrl: string;
  adapter: string;
  secret: string;
  timeoutMs?: number;
  /** The host's own document limit for get (at most the protocol's 314,572,800). */
  maxGetBytes?: number;
}

export interface RequestExtras {
  saveType?: string;
  officeConnectionId?: string;
  clientMetadata?: Record<string, unknown>;
}

const ENTRY_FIELDS = new Set([
  "path",
  "name",
  "type",
  "size",
  "readable",
  "writable",
  "locked",
  "locker",
  "createdAt",
  "modifiedAt",
  "revision",
]);
const REQUIRED_ENTRY_FIELDS = ["path", "name", "type", "size", "readable", "writable", "locked"];
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;

/** RFC 3339 date-time with a zone, checked field by field (Date.parse accepts Feb 30, 24:00). */
export function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offH, offM] = m.slice(1).map((x) =>
    Number(x ?? 0)
  );
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 &&
    minute <= 59 && second <= 60 && offH <= 23 && offM <= 59;
}
export const DOC_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,1023}$/;

/**
 * Checks a provider base URL (http/https, optional path prefix, no user info, query, fragment
 * or dot segments) and returns it without a trailing slash, or the problem.
 */
export function normalizeBaseUrl(baseUrl: string): { url: string } | { problem: string } {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return { problem: "the base URL is not a URL" };
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    return { problem: "the base URL must be http or https" };
  }
  if (u.username || u.password) return { problem: "the base URL must not contain user info" };
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const chars = (s: string) => [...s].length;

/** Problems of one entry object (`where` prefixes each message). */
export function entryProblems(v: unknown, where: string): string[] {
  if (!isObject(v)) return [`${where}: not a JSON object`];
  const out: string[] = [];
  for (const k of Object.keys(v)) {
    if (!ENTRY_FIELDS.has(k)) out.push(`${where}: unknown field "${k}"`);
  }
  for (const k of REQUIRED_ENTRY_FIELDS) {
    if (v[k] === undefined || v[k] === null) {
      out.push(`${where}: required field "${k}" is missing or null`);
    }
  }
  if (out.length) return out;
  const { path, name, type, size } = v;
  if (typeof path !== "string" || chars(path) > 4096) {
    out.push(`${where}.path: not a string of at most 4096 characters`);
  }
  if (typeof name !== "string" || chars(name) < 1 || chars(name) > 255) {
    out.push(`${where}.name: not a string of 1 to 255 characters`);
  } else if (typeof path === "string" && path !== "") {
    // The root (path "") carries a free display name; every other name is a path segment.
    const problem = segmentProblem(name);
    if (problem) out.push(`${where}.name: not a usable path segment (${problem})`);
    else if (path.split("/").pop() !== name) {
      out.push(`${where}.name: "${name}" is not the last segment of path "${path}"`);
    }
  }
  if (type !== "file" && type !== "directory") {
    out.push(`${where}.type: must be "file" or "directory"`);
  }
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > MAX_GET_BYTES) {
    out.push(`${where}.size: not an integer from 0 to ${MAX_GET_BYTES}`);
  } else if (type === "directory" && size !== 0) {
    out.push(`${where}.size: must be 0 for a directory`);
  }
  for (const k of ["readable", "writable", "locked"]) {
    if (typeof v[k] !== "boolean") out.push(`${where}.${k}: not a boolean`);
  }
  const optionalString = (k: string, max: number, time = false) => {
    const x = v[k];
    if (x === undefined || x === null) return;
    if (typeof x !== "string" || chars(x) > max) {
      out.push(`${where}.${k}: not a string of at most ${max} characters`);
    } else if (time && !isRfc3339(x)) {
      out.push(`${where}.${k}: not an RFC 3339 time with a zone`);
    }
  };
  optionalString("locker", 255);
  optionalString("createdAt", 64, true);
  optionalString("modifiedAt", 64, true);
  optionalString("revision", 1024);
  return out;
}

/** Problems of a list body for directory `dir` (decoded, root-relative). */
export function listProblems(body: unknown, dir: string): string[] {
  if (!isObject(body)) return ["list: the body is not a JSON object"];
  const extra = Object.keys(body).filter((k) => k !== "entries");
  if (extra.length) return extra.map((k) => `list: unknown field "${k}"`);
  const entries = body.entries;
  if (!Array.isArray(entries)) return ['list: "entries" is not an array'];
  if (entries.length > MAX_LIST_ENTRIES) return [`list: more than ${MAX_LIST_ENTRIES} entries`];
  const out: string[] = [];
  const seen = new Set<string>();
  const prefix = dir === "" ? "" : `${dir}/`;
  entries.forEach((e, i) => {
    const p = entryProblems(e, `entries[${i}]`);
    out.push(...p);
    if (p.length || !isObject(e)) return;
    const path = e.path as string;
    if (seen.has(path)) out.push(`entries[${i}]: duplicate path "${path}"`);
    seen.add(path);
    if (path === dir) out.push(`entries[${i}]: the listed directory itself`);
    else if (!path.startsWith(prefix) || path.slice(prefix.length) !== e.name) {
      out.push(`entries[${i}]: "${path}" is not a direct child of "${dir}"`);
    }
  });
  return out;
}

export function docIdProblems(body: unknown): string[] {
  if (!isObject(body)) return ["put: the body is not a JSON object"];
  const extra = Object.keys(body).filter((k) => k !== "docId");
  if (extra.length) return extra.map((k) => `put: unknown field "${k}"`);
  const id = body.docId;
  if (typeof id !== "string") return ["put: docId is missing or not a string"];
  if (!DOC_ID.test(id)) return [`put: docId "${id.slice(0, 64)}" does not match the docId grammar`];
  if (/^(true|false)$/i.test(id)) return [`put: docId "${id}" is reserved`];
  return [];
}

interface Framing {
  length: number | null;
  problems: string[];
}

/** Exact Content-Length, no chunked or compressed framing, under `limit` bytes. */
function framingOf(res: Response, limit: number): Framing {
  const problems: string[] = [];
  const te = res.headers.get("transfer-encoding");
  if (te !== null) {
    problems.push(`Transfer-Encoding "${te}" is not allowed (exact Content-Length only)`);
  }
  const ce = res.headers.get("content-encoding");
  if (ce !== null && ce.toLowerCase() !== "identity") {
    problems.push(`Content-Encoding "${ce}" is not allowed (no compression)`);
  }
  const cl = res.headers.get("content-length");
  if (cl === null) {
    problems.push("Content-Length is missing");
    return { length: null, problems };
  }
  if (!/^\d+$/.test(cl)) {
    problems.push(`Content-Length "${cl}" is not one non-negative integer`);
    return { length: null, problems };
  }
  const length = Number(cl);
  if (length > limit) problems.push(`Content-Length ${length} is over the limit of ${limit} bytes`);
  return { length, problems };
}

/** Reads exactly `length` bytes (feeding `sink` when given); problems on early end or excess. */
async function readExact(
  res: Response,
  length: number,
  sink?: (chunk: Uint8Array) => void | Promise<void>,
): Promise<{ bytes: Uint8Array | null; sha256: string; problems: string[] }> {
  const hash = createHash("sha256");
  const buf = sink ? null : new Uint8Array(length);
  let got = 0;
  const problems: string[] = [];
  try {
    for await (const chunk of res.body ?? new ReadableStream<Uint8Array>()) {
      if (got + chunk.byteLength > length) {
        problems.push(`the body is longer than its Content-Length ${length}`);
        await res.body?.cancel().catch(() => {});
        break;
      }
      hash.update(chunk);
      if (buf) buf.set(chunk, got);
      else await sink!(chunk);
      got += chunk.byteLength;
    }
  } catch (err) {
    problems.push(`the body ended early: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (problems.length === 0 && got !== length) {
    problems.push(`the body has ${got} bytes, Content-Length says ${length}`);
  }
  return { bytes: buf, sha256: hash.digest("hex"), problems };
}

/** Reads at most `limit` bytes of an error body as text (the rest is dropped). */
async function readErrorText(res: Response, limit = MAX_ERROR_BODY_BYTES): Promise<string> {
  if (!res.body) return "";
  const parts: Uint8Array[] = [];
  let got = 0;
  try {
    for await (const chunk of res.body) {
      parts.push(chunk.subarray(0, Math.max(limit - got, 0)));
      got += chunk.byteLength;
      if (got >= limit) {
        await res.body.cancel().catch(() => {});
        break;
      }
    }
  } catch { /* a broken error body still yields what arrived */ }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let off = 0;
  for (const p of parts) {
    all.set(p, off);
    off += p.byteLength;
  }
  return new TextDecoder().decode(all);
}

function mediaType(res: Response): { type: string; charset: string | null } {
  const raw = res.headers.get("content-type") ?? "";
  const [type, ...params] = raw.split(";").map((s) => s.trim());
  const cs = params.find((p) => /^charset=/i.test(p));
  return {
    type: type.toLowerCase(),
    charset: cs ? cs.slice(8).replace(/"/g, "").toLowerCase() : null,
  };
}

/** JSON media type, optionally with charset=utf-8. */
function jsonMediaProblem(res: Response, what: string): string | null {
  const m = mediaType(res);
  if (m.type !== "application/json" || (m.charset !== null && m.charset !== "utf-8")) {
    return `${what}: Content-Type "${res.headers.get("content-type")}" is not application/json`;
  }
  return null;
}

type Failure = Extract<HostResult<never>, { ok: false }>;
const failure = (
  status: number | null,
  problems: string[],
  message = "",
  unsupported = false,
): Failure => ({ ok: false, status, unsupported, message, problems });

export class ProviderHostClient {
  readonly base: string | null;
  readonly basePath: string;
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
    body: { bytes: Uint8Array | null; contentType?: string },
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
    body: { bytes: Uint8Array | null; contentType?: string },
    extras?: RequestExtras,
  ): Promise<Response | Failure> {
    if (!this.base) return failure(null, [this.baseProblem ?? "invalid base URL"]);
    const origin = new URL(this.base).origin;
    try {
      const res = await fetch(`${origin}${this.pathFor(op, segments)}`, {
        method: OPERATION_METHOD[op],
        headers: this.signedHeaders(op, segments, body, extras),
        body: body.bytes as BodyInit | null,
        redirect: "manual",
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
      });
      if (res.status >= 300 && res.status < 400) {
        await res.body?.cancel();
        return failure(res.status, [
          `redirect (${res.status}) instead of an answer; redirects are not followed`,
        ]);
      }
      return res;
    } catch (err) {
      return failure(null, [`request failed: ${err instanceof Error ? err.message : String(err)}`]);
    }
  }

  /** Any non-success answer: exact unsupported declaration, or an error with its text. */
  private async failed(op: Operation, res: Response): Promise<Failure> {
    const code = (UNSUPPORTED_CODE as Partial<Record<Operation, string>>)[op];
    if (res.status !== 501) {
      const message = await readErrorText(res);
      return failure(res.status, [`HTTP ${res.status}: ${message.slice(0, 200)}`], message);
    }
    const text = await readErrorText(res, MAX_ERROR_BODY_BYTES + 1);
    const problems: string[] = [];
    if (!code) problems.push(`501 is not an accepted answer for the required operation ${op}`);
    const media = jsonMediaProblem(res, "501");
    if (media) problems.push(media);
    if (new TextEncoder().encode(text).byteLength > MAX_ERROR_BODY_BYTES) {
      problems.push("501: the body is larger than 8 KiB");
    }
    let body: unknown;
    try {
      body = parseStrictJson(text);
    } catch (err) {
      problems.push(`501: the body is not valid JSON (${(err as Error).message})`);
    }
    if (code && body !== undefined) {
      const keys = isObject(body) ? Object.keys(body) : [];
      if (!isObject(body) || keys.length !== 1 || body.code !== code) {
        problems.push(`501: the body must be exactly {"code":"${code}"}`);
      }
    }
    if (problems.length) return failure(501, problems, text);
    return failure(501, [], text, true);
  }

  /** A JSON success body: framing, media type, size limit, strict parse. */
  private async jsonBody(res: Response, what: string): Promise<{ value: unknown } | Failure> {
    const framing = framingOf(res, MAX_JSON_RESPONSE_BYTES);
    const media = jsonMediaProblem(res, what);
    const problems = [...framing.problems, ...(media ? [media] : [])];
    if (framing.length === null || problems.length) {
      await res.body?.cancel().catch(() => {});
      return failure(res.status, problems);
    }
    const read = await readExact(res, framing.length);
    if (read.problems.length) return failure(res.status, read.problems);
    try {
      const text = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes!);
      return { value: parseStrictJson(text) };
    } catch (err) {
      return failure(res.status, [
        `${what}: the body is not strict JSON (${(err as Error).message})`,
      ]);
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
    if (res.status !== 200) return await this.failed("info", res);
    const body = await this.jsonBody(res, "info");
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
    if (res.status !== 200) return await this.failed("list", res);
    const body = await this.jsonBody(res, "list");
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
    if (res.status !== 200) return await this.failed("get", res);
    const limit = Math.min(this.opts.maxGetBytes ?? MAX_GET_BYTES, MAX_GET_BYTES);
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
    if (res.status < 200 || res.status > 299) return await this.failed("put", res);
    if (res.status === 204) return failure(204, ["put: 204 is not allowed; the docId is required"]);
    const body = await this.jsonBody(res, "put");
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
    if (res.status < 200 || res.status > 299) return await this.failed(op, res);
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
