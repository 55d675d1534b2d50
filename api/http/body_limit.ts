/**
 * The one cap on request bodies that are read into memory (JSON): every area (drive, admin, public
 * link API) mounts `limitBody` in front of its routes, so no handler can read more than the limit.
 * Routes that stream their body to storage (uploads, editor saves) are exempted by name and keep
 * their own limits (quota, document size, the multipart parser's limits).
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { fail } from "../../kv/errors.ts";

/** Largest JSON body any API accepts: far above any real request, small enough to hold. */
const MAX_JSON_BODY = 64 * 1024;

/** A route that streams its body under its own limits: the method and the path after the base. */
export interface StreamedRoute {
  method: string;
  path: RegExp;
}

/**
 * Refuses a body over `maxBytes` with 413 REQUEST_002 before a handler reads it: from
 * Content-Length without reading a byte, or, for a chunked body, as soon as the count passes the
 * limit (Hono's bodyLimit; nothing past the limit is buffered). `base` is the mount point the
 * `streamed` paths are relative to.
 */
export function limitBody(
  opts: { maxBytes?: number; base?: string; streamed?: readonly StreamedRoute[] } = {},
): MiddlewareHandler {
  const maxBytes = opts.maxBytes ?? MAX_JSON_BODY;
  const base = opts.base ?? "";
  const streamed = opts.streamed ?? [];
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c: Context) => {
      const declared = c.req.header("content-length");
      const size = declared && !c.req.header("transfer-encoding")
        ? `${declared} bytes`
        : `more than ${maxBytes} bytes`;
      return fail(
        "REQUEST_002",
        `The request body (${size}) is larger than the ${maxBytes}-byte limit of this endpoint`,
      );
    },
  });
  return async (c, next) => {
    const path = c.req.path.slice(base.length);
    if (streamed.some((r) => r.method === c.req.method && r.path.test(path))) return await next();
    return await limit(c, next);
  };
}
