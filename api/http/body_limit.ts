/**
 * The one cap on request bodies that are read into memory (JSON): every area (drive, admin, public
 * link API) mounts `limitBody` in front of its routes, so no handler can read more than the limit.
 * Routes that stream their body to storage (uploads, editor saves) are exempted by name and keep
 * their own limits (quota, document size, the multipart parser's limits).
 *
 * The same middleware decodes every JSON body strictly as UTF-8 (RFC 8259 allows no other
 * encoding): a lenient decoder would turn bytes that are not UTF-8 into U+FFFD, and that mark would
 * end up in stored names. The strict text is left in Hono's body cache, where c.req.json(),
 * c.req.text() (validate.ts) and @hono/zod-openapi's json validator all read the body.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { fail } from "../../kv/errors.ts";

/** Largest JSON body any API accepts: far above any real request, small enough to hold. */
const MAX_JSON_BODY = 64 * 1024;

/** The media types read as JSON: what validJson and Hono's json validator accept, and more. */
const JSON_TYPE = /^application\/([\w.-]+\+)?json\b/i;

/**
 * The offset of the first byte that starts no well-formed UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF, nothing cut short), or -1. Only names the place in
 * the error; the decision is TextDecoder's.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    // The continuation bytes a lead byte needs, and the range its first one must fall in.
    let need: number, lo = 0x80, hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + need >= bytes.length || bytes[i + 1] < lo || bytes[i + 1] > hi) return i;
    for (let k = 2; k <= need; k++) if ((bytes[i + k] & 0xc0) !== 0x80) return i;
    i += need + 1;
  }
  return -1;
}

/**
 * Decodes a JSON body with a fatal UTF-8 decoder, or refuses it with 400 REQUEST_005 naming the
 * first bad byte, and leaves the text in the body cache for every reader after it.
 */
async function decodeStrictly(c: Context): Promise<void> {
  if (!c.req.raw.body || !JSON_TYPE.test(c.req.header("content-type") ?? "")) return;
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    const byte = bytes[at]?.toString(16).toUpperCase().padStart(2, "0");
    fail(
      "REQUEST_005",
      `The request body is not valid UTF-8: byte 0x${byte} at offset ${at} begins no valid ` +
        "character (JSON must be sent as UTF-8)",
    );
  }
  // Hono keeps the promise of each body form there (its type says the value; its code reads a
  // promise: HonoRequest's #cachedBody), so the text goes in as a promise.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
}

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
    return await limit(c, async () => {
      await decodeStrictly(c);
      await next();
    });
  };
}
