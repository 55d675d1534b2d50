/**
 * JSON answers whose body size is counted where they are built. The request log
 * (api/ops/request_log.ts) needs every answer's size; one it cannot learn here or from a
 * Content-Length header (a bare `c.json`) it has to read and rebuild, which costs more than the
 * rest of that middleware. Same wire bytes and headers as `c.json` (the server adds the
 * Content-Length of a string body itself).
 *
 * The size rides beside the answer (a WeakMap keyed by the Response) rather than in a header: a
 * second header makes Hono build a Headers object and costs the server more per request than the
 * whole request log (docs/benchmarks.md). An answer Hono copies later (a middleware that sets a
 * header after the handler) is a new Response without a known size and is measured the slow way.
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

/** Body sizes of the answers `jsonResponse` built; an entry goes with its Response. */
const bodySizes = new WeakMap<Response, number>();

/** The body size in bytes of `res` when `jsonResponse` built it, else undefined. */
export function knownBodySize(res: Response): number | undefined {
  return bodySizes.get(res);
}

/** What `c.json(value, status)` is typed as, so typed routes accept it alike. */
export type JsonResponse<T, S extends ContentfulStatusCode> =
  & Response
  & TypedResponse<JSONParsed<T>, S, "json">;

/** `c.json(value, status)` (headers set earlier with `c.header` kept), its size known. */
export function jsonResponse<T, S extends ContentfulStatusCode>(
  c: Context,
  value: T,
  status: S,
): JsonResponse<T, S> {
  const text = JSON.stringify(value);
  const res = c.body(text, status, { "content-type": "application/json" }) as Response;
  bodySizes.set(res, utf8Length(text));
  return res as JsonResponse<T, S>;
}
