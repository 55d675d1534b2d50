/**
 * Reading a provider's answers as a host must: exact Content-Length framing without chunking or
 * compression, media types, size limits, strict JSON, and the exact unsupported declaration of
 * an optional operation. Each reader returns the value or a failure with the precise problems.
 */
import { createHash } from "node:crypto";
import type { Operation } from "../../kv/adapters/operations.ts";
import { readHead } from "../../lib/bytes.ts";
import { isObject } from "../jwt.ts";
import { MAX_ERROR_BODY_BYTES, MAX_JSON_RESPONSE_BYTES } from "../limits.ts";
import { UNSUPPORTED_CODE } from "../responses.ts";
import { parseStrictJson } from "../strict_json.ts";

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

export type Failure = Extract<HostResult<never>, { ok: false }>;

export const failure = (
  status: number | null,
  problems: string[],
  message = "",
  unsupported = false,
): Failure => ({ ok: false, status, unsupported, message, problems });

interface Framing {
  length: number | null;
  problems: string[];
}

/** Exact Content-Length, no chunked or compressed framing, under `limit` bytes. */
export function framingOf(res: Response, limit: number): Framing {
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
export async function readExact(
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
export async function readErrorText(
  res: Response,
  limit = MAX_ERROR_BODY_BYTES,
): Promise<string> {
  if (!res.body) return "";
  // A broken error body still yields what arrived.
  return new TextDecoder().decode(await readHead(res.body, limit));
}

export function mediaType(res: Response): { type: string; charset: string | null } {
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

/** Any non-success answer: the exact unsupported declaration, or an error with its text. */
export async function failedAnswer(op: Operation, res: Response): Promise<Failure> {
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
export async function jsonBody(res: Response, what: string): Promise<{ value: unknown } | Failure> {
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
