/**
 * Sends a stored file's bytes over HTTP: strong ETag from the content hash, If-None-Match and
 * If-Modified-Since (304), single byte ranges (206, 416), exact Content-Length, streamed from the
 * blob store. Used by download, token download and view, and by WebDAV's GET (dav/get.ts).
 */
import type { Context } from "hono";
import { BlobNotFoundError, type ByteRange } from "../../blobs/store.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { getResource, type Resource } from "../../kv/tree/resources.ts";
import { contentDisposition } from "./content_disposition.ts";
import { contentEtag } from "../../lib/etag.ts";
import { errorEnvelope } from "./envelope.ts";

/** Keeps a rendition from running script or loading anything, should a browser render it. */
const SANDBOX_CSP =
  "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'";

type RangeRequest =
  | { kind: "full" }
  | { kind: "partial"; range: ByteRange }
  | { kind: "unsatisfiable" };

/**
 * Interprets a Range header for a body of `size` bytes. Only one `bytes=` range is served;
 * several ranges or a malformed header are ignored (RFC 9110 lets a server send the whole body).
 */
function parseRange(header: string | undefined, size: number): RangeRequest {
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header ?? "");
  if (!m || (m[1] === "" && m[2] === "")) return { kind: "full" };
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", range: { start: Math.max(size - suffix, 0), end: size - 1 } };
  }
  const start = Number(m[1]);
  const last = m[2] === "" ? Infinity : Number(m[2]);
  if (last < start) return { kind: "full" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", range: { start, end: Math.min(last, size - 1) } };
}

const etagOf = (file: Resource) => contentEtag(file.sha256!);

/** If-None-Match uses the weak comparison: W/"x" matches "x". */
function matchesAny(header: string, etag: string): boolean {
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

export interface FileResponseOptions {
  disposition: "attachment" | "inline";
  /** Defaults to the file's stored type. */
  contentType?: string;
  /**
   * For bytes that are not the file's current content (a stored version): called when the blob
   * is gone, instead of sending whatever the file holds now; it throws the error to answer.
   */
  blobGone?: (err: BlobNotFoundError) => Promise<never>;
}

export async function sendFile(
  c: Context,
  d: Deps,
  file: Resource,
  opts: FileResponseOptions,
  attempt = 0,
): Promise<Response> {
  const etag = etagOf(file);
  const headers = new Headers({
    "etag": etag,
    "last-modified": new Date(file.updatedAt).toUTCString(),
    "cache-control": "private, no-cache",
    "accept-ranges": "bytes",
    "x-content-type-options": "nosniff",
    "content-security-policy": SANDBOX_CSP,
  });
  const ifNoneMatch = c.req.header("if-none-match");
  if (ifNoneMatch && matchesAny(ifNoneMatch, etag)) {
    return new Response(null, { status: 304, headers });
  }
  // RFC 9110 13.1.3: If-Modified-Since counts only without If-None-Match. HTTP dates have whole
  // seconds, so the file is unmodified when its time, cut to the second, is not later.
  const since = ifNoneMatch ? NaN : Date.parse(c.req.header("if-modified-since") ?? "");
  if (!Number.isNaN(since) && Math.floor(file.updatedAt / 1000) * 1000 <= since) {
    return new Response(null, { status: 304, headers });
  }
  headers.set("content-type", opts.contentType ?? file.mime ?? "application/octet-stream");
  headers.set("content-disposition", contentDisposition(opts.disposition, file.name));
  // A Range for an older version (If-Range names another ETag) gets the whole current file.
  const ifRange = c.req.header("if-range");
  const wanted = ifRange && ifRange.trim() !== etag
    ? { kind: "full" as const }
    : parseRange(c.req.header("range"), file.size);
  if (wanted.kind === "unsatisfiable") {
    headers.set("content-range", `bytes */${file.size}`);
    headers.set("content-type", "application/json");
    headers.delete("content-disposition");
    const body = errorEnvelope(
      "RESOURCE_011",
      `Range ${c.req.header("range")} is outside the file's ${file.size} bytes`,
    );
    return new Response(JSON.stringify(body), { status: 416, headers });
  }
  const range = wanted.kind === "partial" ? wanted.range : undefined;
  const length = range ? range.end - range.start + 1 : file.size;
  headers.set("content-length", String(length));
  if (range) headers.set("content-range", `bytes ${range.start}-${range.end}/${file.size}`);
  const status = range ? 206 : 200;
  if (c.req.method === "HEAD" || length === 0) return new Response(null, { status, headers });
  let body: ReadableStream<Uint8Array>;
  try {
    body = await d.blobs.read(file.blobId!, range);
  } catch (err) {
    // The content was replaced (its old blob deleted) since the file was looked up: send the
    // new content. A blob missing from an unchanged file is a real fault and is thrown.
    if (err instanceof BlobNotFoundError && opts.blobGone) await opts.blobGone(err);
    if (!(err instanceof BlobNotFoundError) || attempt >= 3) throw err;
    const now = await getResource(d.kv, file.rs);
    if (!now || now.trashedAt !== null) fail("RESOURCE_002", `No file with seq ${file.rs}`);
    if (now.blobId === file.blobId) throw err;
    return sendFile(c, d, now, opts, attempt + 1);
  }
  return new Response(body, { status, headers });
}
