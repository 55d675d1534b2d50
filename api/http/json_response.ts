/**
 * JSON answers that declare their Content-Length, counted where they are built. The request log
 * (api/ops/request_log.ts) then takes an answer's size from the header; an answer without one (a
 * bare `c.json`) it has to read and rebuild, which costs more than the rest of that middleware.
 * Same wire bytes and headers as `c.json`, plus the length.
 */
import type { Context, TypedResponse } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { JSONParsed } from "hono/utils/types";

const encoder = new TextEncoder();

/** Scratch space `utf8Length` encodes into, grown on demand up to this size. */
const SCRATCH_MAX_BYTES = 1 << 20;
let scratch = new Uint8Array(4096);

/**
 * UTF-8 size of `text` without keeping its bytes: the body stays a string, which the server
 * encodes as it sends it (a byte-array body would be copied once more by `new Response`). The
 * scratch buffer is reused, not state: nothing reads it after the call.
 */
export function utf8Length(text: string): number {
  const worst = text.length * 3;
  if (worst > scratch.length) {
    if (worst > SCRATCH_MAX_BYTES) return encoder.encode(text).byteLength;
    scratch = new Uint8Array(Math.max(worst, scratch.length * 2));
  }
  return encoder.encodeInto(text, scratch).written;
}

/** What `c.json(value, status)` is typed as, so typed routes accept it alike. */
export type JsonResponse<T, S extends ContentfulStatusCode> =
  & Response
  & TypedResponse<JSONParsed<T>, S, "json">;

/** `c.json(value, status)` with Content-Length (headers set earlier with `c.header` kept). */
export function jsonResponse<T, S extends ContentfulStatusCode>(
  c: Context,
  value: T,
  status: S,
): JsonResponse<T, S> {
  const text = JSON.stringify(value);
  return c.body(text, status, {
    "content-type": "application/json",
    "content-length": String(utf8Length(text)),
  }) as Response as JsonResponse<T, S>;
}
