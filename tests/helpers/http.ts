/**
 * Test harness, HTTP plumbing: a JSON view of a response, a hand-built multipart body, and a raw
 * HTTP/1.1 exchange over TCP for requests fetch cannot express (odd targets, cut-off bodies).
 */
import { concatBytes } from "../../lib/bytes.ts";
import assert from "node:assert/strict";

// deno-lint-ignore no-explicit-any
export interface JsonResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** The response with its body parsed as JSON (the raw text when it is not JSON). */
export async function readJson(res: Response): Promise<JsonResponse> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch { /* not JSON: keep the text */ }
  return { status: res.status, body, headers: res.headers };
}

/** A hand-built multipart/form-data body (for uploads fetch's FormData cannot express). */
export function multipartBody(
  parts:
    ({ name: string; value: string } | { name: string; filename: string; bytes: Uint8Array })[],
  opts: { boundary?: string; close?: boolean } = {},
): { body: Uint8Array<ArrayBuffer>; contentType: string } {
  const boundary = opts.boundary ?? "----drive-test-boundary-7d1f";
  const enc = new TextEncoder();
  const chunks: Uint8Array[] = [];
  for (const p of parts) {
    const head = "filename" in p
      ? `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`
      : `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n\r\n`;
    chunks.push(
      enc.encode(head),
      "filename" in p ? p.bytes : enc.encode(p.value),
      enc.encode("\r\n"),
    );
  }
  if (opts.close !== false) chunks.push(enc.encode(`--${boundary}--\r\n`));
  return { body: concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Asserts `res` is an error answer: `status` and, in its JSON body, `errorCode`. */
export async function assertErrorAnswer(res: Response, status: number, errorCode: string) {
  const body = await res.json();
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(body.errorCode, errorCode);
}

/** The chunks joined into one array. */
export const concat = concatBytes;

/** A raw HTTP/1.1 exchange over TCP: the request target and headers go out byte for byte. */
export interface RawHttpResponse {
  status: number;
  /** Header lines as received (names lowercased), duplicates kept. */
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * Sends one request on a fresh connection (Connection: close) and reads the whole answer.
 * `abortAfter`: send only that many body bytes, then close the connection (an aborted upload).
 * `endAfter`: send only that many body bytes, then end the sending side and read the answer.
 */
export async function rawHttp(
  baseUrl: string,
  req: {
    method: string;
    target: string;
    headers?: [string, string][];
    body?: Uint8Array;
    abortAfter?: number;
    endAfter?: number;
  },
): Promise<RawHttpResponse | null> {
  const { hostname, port } = new URL(baseUrl);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const lines = [`${req.method} ${req.target} HTTP/1.1`, `host: ${hostname}:${port}`];
  for (const [k, v] of req.headers ?? []) lines.push(`${k}: ${v}`);
  lines.push("connection: close", "", "");
  const writeAll = async (bytes: Uint8Array) => {
    for (let off = 0; off < bytes.byteLength;) off += await conn.write(bytes.subarray(off));
  };
  try {
    await writeAll(new TextEncoder().encode(lines.join("\r\n")));
    const sent = req.abortAfter ?? req.endAfter ?? req.body?.byteLength ?? 0;
    if (req.body) await writeAll(req.body.subarray(0, sent));
    if (req.abortAfter !== undefined) return null;
    if (req.endAfter !== undefined) await conn.closeWrite();
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(64 * 1024);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      chunks.push(buf.slice(0, n));
    }
    const all = concat(chunks);
    const text = new TextDecoder("latin1").decode(all);
    const end = text.indexOf("\r\n\r\n");
    const [statusLine, ...headerLines] = text.slice(0, end).split("\r\n");
    return {
      status: Number(statusLine.split(" ")[1]),
      headers: headerLines.map((l) => {
        const i = l.indexOf(":");
        return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()] as [string, string];
      }),
      body: all.slice(end + 4),
    };
  } finally {
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}
