/**
 * HTTP requests generated for an API operation described like an OpenAPI operation (method,
 * path template, parameters, body schema): the drive API's come from its OpenAPI document, the
 * admin and public APIs' from tables over their zod schemas. Path and query values are of the
 * declared kind or, one at a time, hostile; bodies are JSON (sometimes malformed or oversized),
 * multipart (sometimes broken: file not last, no closing boundary, invalid UTF-8 in the
 * filename) or raw bytes; some requests come chunked.
 */
import fc from "./fast_check.ts";
import { concat, type FuzzRequest } from "./harness.ts";
import {
  hostileText,
  type JsonSchema,
  type SchemaContext,
  textOf,
  validTextOf,
  valueOf,
} from "./schema.ts";
import {
  bodyMangle,
  fileBytes,
  hostileJson,
  hostileString,
  jsonContentType,
  mangledJson,
  nameLike,
  oneIn,
} from "./values.ts";

export interface Param {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  path: string;
  params: Param[];
  body: { kind: "json" | "multipart" | "octet"; schema: JsonSchema } | null;
  /** The body may be left out (admin routes that read an optional JSON body). */
  bodyOptional?: boolean;
}

/** The operations of an OpenAPI document, with the body kind each declares. */
// deno-lint-ignore no-explicit-any
export function operationsOf(doc: any): Operation[] {
  const out: Operation[] = [];
  for (
    const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, JsonSchema>>)
  ) {
    for (const [method, op] of Object.entries(ops)) {
      const content = op.requestBody?.content ?? {};
      const kind = "application/json" in content
        ? "json"
        : "multipart/form-data" in content
        ? "multipart"
        : "application/octet-stream" in content
        ? "octet"
        : null;
      out.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []) as Param[],
        body: kind
          ? {
            kind,
            schema: Object.values(content as Record<string, { schema: JsonSchema }>)[0].schema,
          }
          : null,
      });
    }
  }
  return out;
}

// ------------------------------------------------------------------------------ multipart

interface Part {
  name: string;
  /** The filename's raw header bytes (null: a plain field). */
  filename: Uint8Array | null;
  contentType: string | null;
  data: Uint8Array;
}

type MultipartShape =
  | "normal"
  | "file-first"
  | "no-file"
  | "two-files"
  | "unterminated"
  | "wrong-boundary"
  | "no-boundary"
  | "lf-only"
  | "preamble";

const enc = new TextEncoder();

/**
 * The bytes of a part's `filename` parameter: 0 the name as UTF-8; 1 with invalid UTF-8 in the
 * middle; 2 followed by a `filename*` parameter and another one; 3 with a stray quote.
 */
function filenameBytes(name: string, style: number): Uint8Array {
  switch (style) {
    case 1: {
      // Invalid UTF-8 in the middle of the name.
      const b = enc.encode(name);
      const out = new Uint8Array(b.byteLength + 2);
      out.set(b.subarray(0, b.byteLength >> 1));
      out.set([0xc3, 0x28], b.byteLength >> 1);
      out.set(b.subarray(b.byteLength >> 1), (b.byteLength >> 1) + 2);
      return out;
    }
    case 2:
      return enc.encode(`${name}"; filename*=UTF-8''${pct(name)}; x="`);
    case 3:
      return enc.encode(name.replace(/./, '"'));
    default:
      return enc.encode(name);
  }
}

/** A multipart/form-data body of `parts`, well-formed or broken as `shape` says. */
function multipartBytes(parts: Part[], shape: MultipartShape): {
  body: Uint8Array;
  contentType: string;
} {
  const boundary = "----fuzz-boundary-4f1a";
  const nl = shape === "lf-only" ? "\n" : "\r\n";
  const chunks: Uint8Array[] = [];
  if (shape === "preamble") chunks.push(enc.encode(`preamble text${nl}`));
  let ordered = parts;
  if (shape === "file-first") {
    ordered = [...parts.filter((p) => p.filename), ...parts.filter((p) => !p.filename)];
  } else if (shape === "no-file") {
    ordered = parts.filter((p) => !p.filename);
  } else if (shape === "two-files") {
    ordered = [...parts, ...parts.filter((p) => p.filename)];
  }
  for (const p of ordered) {
    chunks.push(enc.encode(`--${boundary}${nl}Content-Disposition: form-data; name="${p.name}"`));
    if (p.filename) chunks.push(enc.encode('; filename="'), p.filename, enc.encode('"'));
    if (p.contentType !== null) chunks.push(enc.encode(`${nl}Content-Type: ${p.contentType}`));
    chunks.push(enc.encode(`${nl}${nl}`), p.data, enc.encode(nl));
  }
  if (shape !== "unterminated") chunks.push(enc.encode(`--${boundary}--${nl}`));
  const contentType = shape === "wrong-boundary"
    ? "multipart/form-data; boundary=other"
    : shape === "no-boundary"
    ? "multipart/form-data"
    : `multipart/form-data; boundary=${boundary}`;
  return { body: concat(chunks), contentType };
}

/** Upload bodies for a form schema: some of its text fields, then the file part. */
function multipartArb(
  schema: JsonSchema,
  ctx: SchemaContext,
): fc.Arbitrary<{ body: Uint8Array; contentType: string }> {
  const s = schema.$ref ? ctx.resolve(schema.$ref) : schema;
  const fieldNames = Object.keys(s.properties ?? {}).filter((k) =>
    s.properties[k].format !== "binary"
  );
  const fields = fc.subarray(fieldNames).chain((names) =>
    fc.tuple(...names.map((n) => textOf(s.properties[n], ctx, n).map((v) => [n, v] as const)))
  );
  const file = fc.record({
    name: nameLike,
    style: fc.constantFrom(0, 0, 0, 0, 0, 0, 1, 2, 3),
    contentType: fc.constantFrom(
      null,
      "application/octet-stream",
      "text/plain",
      "",
      "image/png; x=\u00e9",
    ),
    data: fileBytes,
  });
  const shape = fc.oneof(
    { weight: 20, arbitrary: fc.constant<MultipartShape>("normal") },
    {
      weight: 3,
      arbitrary: fc.constantFrom<MultipartShape>(
        "file-first",
        "no-file",
        "two-files",
        "unterminated",
        "wrong-boundary",
        "no-boundary",
        "lf-only",
        "preamble",
      ),
    },
  );
  return fc.tuple(fields, file, shape).map(([fs, f, sh]) => {
    const parts: Part[] = fs.map(([name, v]) => ({
      name,
      filename: null,
      contentType: null,
      data: enc.encode(v),
    }));
    parts.push({
      name: "file",
      filename: filenameBytes(f.name, f.style),
      contentType: f.contentType,
      data: f.data,
    });
    return multipartBytes(parts, sh);
  });
}

/** One generated request before it is put together (what fast-check prints and shrinks). */
export interface Generated {
  /** Who sends it: a label the caller turns into headers. */
  auth: string;
  /** A hostile string for the label that sends a junk credential. */
  junk: string;
  params: { pathValues: string[]; query: [string, string][] };
  rawPath: boolean;
  headers: [string, string][];
  body: { bytes: Uint8Array; contentType: string | null } | null;
  chunked: boolean;
}

/**
 * Requests for one operation: its path and query parameters, declared headers and body
 * (JSON, multipart or raw bytes), valid-looking with hostile values mixed in, and a sender
 * drawn from `auth`.
 */
export function requestArb(
  op: Operation,
  ctx: SchemaContext,
  auth: fc.Arbitrary<string>,
): fc.Arbitrary<Generated> {
  const pathParams = op.params.filter((p) => p.in === "path");
  const queryParams = op.params.filter((p) => p.in === "query");
  const headerParams = op.params.filter((p) => p.in === "header");

  // Path and query values: all of their declared kind, or all but one, which is hostile (one
  // bad value at a time reaches the check of that value, not the first check that fails).
  const slots = [...pathParams, ...queryParams];
  const params = fc.record({
    values: fc.tuple(
      ...slots.map((p) => fc.tuple(validTextOf(p.schema, ctx, p.name), hostileText)),
    ),
    corrupt: slots.length
      ? fc.oneof({ weight: slots.length + 2, arbitrary: fc.constant(-1) }, fc.nat(slots.length - 1))
      : fc.constant(-1),
    present: fc.tuple(
      ...queryParams.map((p) =>
        p.required
          ? fc.oneof({ weight: 14, arbitrary: fc.constant(true) }, fc.constant(false))
          : fc.boolean()
      ),
    ),
    // Unknown, repeated or oddly named parameters.
    extra: oneIn(
      8,
      fc.array(
        fc.tuple(
          fc.constantFrom("x", "ss", "rs", "__proto__", "ps", "cursor", "", "a[b]"),
          hostileString,
        ),
        { minLength: 1, maxLength: 2 },
      ),
    ),
  }).map(({ values, corrupt, present, extra }) => {
    const texts = values.map(([valid, hostile], i) => (i === corrupt ? hostile : valid));
    const query: [string, string][] = queryParams.flatMap((p, i) =>
      present[i] ? [[p.name, texts[pathParams.length + i]] as [string, string]] : []
    );
    return { pathValues: texts.slice(0, pathParams.length), query: [...query, ...(extra ?? [])] };
  });

  const isDownload = /download|view/.test(op.path) && op.method === "GET";
  const headers = fc.tuple(
    fc.tuple(
      ...headerParams.map((p) =>
        fc.tuple(fc.constant(p.name), fc.boolean(), textOf(p.schema, ctx, p.name))
      ),
    ),
    isDownload
      ? oneIn(
        4,
        fc.tuple(
          fc.constantFrom("range", "if-range", "if-none-match"),
          fc.oneof(
            fc.constantFrom(
              "bytes=0-0",
              "bytes=-0",
              "bytes=-1",
              "bytes=5-",
              "bytes=99999999999999999999-",
              "bytes=3-1",
              "bytes=0-1,2-3",
              "bytes=",
              "items=0-1",
              '"abc"',
              "*",
              'W/"x"',
            ),
            hostileString,
          ),
        ),
      )
      : fc.constant(null),
  ).map(([declared, extra]) => {
    const out = declared.filter(([, on]) => on).map(([n, , v]) => [n, v] as [string, string]);
    if (extra) out.push(extra);
    // Header values can only be visible ASCII here (fetch refuses the rest).
    return out.map(([n, v]) => [n, v.replace(/[^\x20-\x7e]/g, "?").slice(0, 8_000)]) as [
      string,
      string,
    ][];
  });

  let body: fc.Arbitrary<Generated["body"]>;
  if (op.body?.kind === "json") {
    body = fc.tuple(
      fc.oneof({ weight: 15, arbitrary: valueOf(op.body.schema, ctx) }, hostileJson),
      bodyMangle,
      jsonContentType,
    ).map(([value, mangle, ct]) => ({ bytes: mangledJson(value, mangle), contentType: ct }));
  } else if (op.body?.kind === "multipart") {
    body = fc.oneof(
      { weight: 15, arbitrary: multipartArb(op.body.schema, ctx) },
      fc.tuple(hostileJson, bodyMangle).map(([v, m]) => ({
        body: mangledJson(v, m),
        contentType: "application/json",
      })),
    ).map((m) => ({ bytes: m.body, contentType: m.contentType }));
  } else if (op.body?.kind === "octet") {
    body = fc.tuple(
      fileBytes,
      fc.constantFrom("application/octet-stream", "application/octet-stream", null, "text/plain"),
    ).map(([bytes, ct]) => ({ bytes, contentType: ct }));
  } else if (op.method === "GET" || op.method === "HEAD") {
    // fetch cannot send a body with either.
    body = fc.constant(null);
  } else {
    // No body declared: usually none, sometimes one anyway.
    body = oneIn(
      5,
      fc.tuple(hostileJson, bodyMangle, jsonContentType).map(([v, m, ct]) => ({
        bytes: mangledJson(v, m),
        contentType: ct,
      })),
    );
  }

  if (op.bodyOptional) body = fc.oneof(body, fc.constant(null));

  return fc.record({
    auth,
    junk: hostileString,
    params,
    rawPath: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, fc.constant(true)),
    headers,
    body,
    chunked: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, fc.constant(true)),
  });
}

/**
 * Percent-encodes like encodeURIComponent, except that a lone surrogate (which has no UTF-8 form)
 * goes out as its three WTF-8 bytes: invalid UTF-8 the server must refuse cleanly.
 */
export function pct(s: string): string {
  let out = "";
  // for…of walks code points: a paired surrogate comes whole, a lone one alone.
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`).join("");
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/**
 * The target as fetch will send it (percent-encoded where a URL needs it, dot segments
 * resolved), cut to fit fetch's limit of 65,535 characters for a URL; the server's own limit
 * for a request head (64 KiB with the headers) is still reached.
 */
function fetchableTarget(raw: string): string {
  // Parsed the way fetch parses `${baseUrl}${target}` (not as a relative reference, where a
  // leading "//" or "/\\" would name a host).
  const url = new URL(`http://fuzz.invalid${raw}`);
  return `${url.pathname}${url.search}`.slice(0, 65_000);
}

/** The request `g` for `op` under `base`; `credentials` turns the sender's label into headers. */
export function toRequest(
  base: string,
  op: Operation,
  g: Generated,
  credentials: (label: string, junk: string) => [string, string][],
): FuzzRequest {
  let i = 0;
  const path = op.path.replace(/\{[^}]+\}/g, () => {
    const v = g.params.pathValues[i++] ?? "";
    // Raw: slashes, dots, "?" and "%" go into the path unencoded.
    return g.rawPath ? v : pct(v);
  });
  const qs = g.params.query.map(([k, v]) => `${pct(k)}=${pct(v)}`).join("&");
  const headers: [string, string][] = [...g.headers];
  for (const [k, v] of credentials(g.auth, g.junk)) {
    // Header values can only be visible ASCII here (fetch refuses the rest).
    headers.push([k, v.replace(/[^\x20-\x7e]/g, "?").slice(0, 16_000)]);
  }
  if (g.body?.contentType != null) {
    headers.push(["content-type", g.body.contentType.replace(/[^\x20-\x7e]/g, "?")]);
  }
  return {
    method: op.method,
    target: fetchableTarget(`${base}${path}${qs ? `?${qs}` : ""}`),
    headers,
    body: g.body?.bytes,
    chunked: g.body !== null && g.chunked,
  };
}
