/**
 * The tus 1.0.0 wire format (https://tus.io/protocols/resumable-upload): its constants and the
 * parsing of its headers, for the resumable upload routes (api/external/uploads.ts). Every
 * malformed header is REQUEST_001 naming the header.
 */
import { z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { Buffer } from "node:buffer";
import { fail } from "../../kv/errors.ts";
import { type Upload, uploadStatus } from "../../kv/tree/uploads.ts";
import { CreatedResourceSchema } from "./schemas.ts";

export const TUS_VERSION = "1.0.0";
export const TUS_EXTENSIONS = "creation,creation-with-upload,termination,checksum,expiration";
export const TUS_CHECKSUM_ALGORITHMS = "sha256";
/** The media type of every tus request body. */
export const TUS_BODY_TYPE = "application/offset+octet-stream";

/** Upload-Length and Upload-Offset: plain decimal digits, no sign, at most 16 of them. */
export function byteCount(raw: string | undefined, header: string): number | null {
  if (raw === undefined) return null;
  if (!/^\d{1,16}$/.test(raw.trim())) {
    fail("REQUEST_001", `${header} must be a non-negative integer`, header);
  }
  return Number(raw.trim());
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Keys: no spaces or commas (the separators), printable ASCII. */
const METADATA_KEY = /^[\x21-\x2b\x2d-\x7e]+$/;

/**
 * Upload-Metadata: comma-separated `key base64(value)` pairs (the value may be absent). Values
 * must be base64 of UTF-8 text here, since every key this server reads is text.
 */
export function parseUploadMetadata(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined || raw.trim() === "") return out;
  for (const pair of raw.split(",")) {
    const parts = pair.trim().split(" ");
    const [key, value = ""] = parts;
    if (parts.length > 2 || !METADATA_KEY.test(key ?? "") || !BASE64.test(value)) {
      fail("REQUEST_001", `Upload-Metadata: "${pair.trim()}" is not "key base64value"`, key);
    }
    if (key in out) fail("REQUEST_001", `Upload-Metadata: ${key} is given twice`, key);
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    try {
      out[key] = text.decode(Buffer.from(value, "base64"));
    } catch {
      fail("REQUEST_001", `Upload-Metadata: ${key} is not base64 of UTF-8 text`, key);
    }
  }
  return out;
}

/** Upload-Checksum `sha256 <base64 digest>`: the digest, or null without the header. */
export function parseUploadChecksum(raw: string | undefined): Uint8Array | null {
  if (raw === undefined) return null;
  const [algorithm, digest = "", ...rest] = raw.trim().split(" ");
  if (algorithm.toLowerCase() !== "sha256") {
    fail(
      "REQUEST_001",
      `Upload-Checksum: algorithm "${algorithm}" is not supported (only sha256)`,
      "Upload-Checksum",
    );
  }
  const bytes = BASE64.test(digest) && rest.length === 0 ? Buffer.from(digest, "base64") : null;
  if (!bytes || bytes.byteLength !== 32) {
    fail(
      "REQUEST_001",
      "Upload-Checksum: the sha256 digest must be 32 bytes in base64",
      "Upload-Checksum",
    );
  }
  return new Uint8Array(bytes);
}

/** Upload-Expires: an RFC 9110 HTTP date. */
function httpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

// ------------------------------------------------------------ OpenAPI shapes of the tus routes

export const TusResumableHeader = z.string().openapi({
  description: "The tus version the client speaks; must be 1.0.0 (412 UPLOAD_005 otherwise)",
  example: TUS_VERSION,
});

export const LengthHeader = z.string().openapi({
  description: "The whole upload's size in bytes (at most Tus-Max-Size)",
  example: "268435456",
});

export const OffsetHeader = z.string().openapi({
  description: "Bytes of the upload stored so far: where the next PATCH starts",
  example: "0",
});

export const MetadataHeader = z.string().optional().openapi({
  description: "Comma-separated `key base64(value)` pairs: filename, and optionally pfs, ss, " +
    "st (duplicate|version|overwrite) and rs, as the multipart upload's fields",
  // "minutes.txt" into folder 1 of the examples' world.
  example: "filename bWludXRlcy50eHQ=,pfs MQ==",
});

export const ChecksumHeader = z.string().optional().openapi({
  description: "`sha256 <base64 digest>` of this request's body: a mismatch is 460 (UPLOAD_004) " +
    "and the bytes are discarded",
  example: "sha256 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
});

/** What OPTIONS /uploads advertises. */
export const TusHeaders = z.object({
  "Tus-Resumable": z.string().openapi({ description: "Protocol version", example: TUS_VERSION }),
  "Tus-Version": z.string().openapi({ description: "Versions served", example: TUS_VERSION }),
  "Tus-Extension": z.string().openapi({ description: "Extensions", example: TUS_EXTENSIONS }),
  "Tus-Max-Size": z.string().openapi({
    description: "Largest Upload-Length accepted (DRIVE_UPLOAD_MAX_BYTES)",
    example: "1099511627776",
  }),
  "Tus-Checksum-Algorithm": z.string().openapi({
    description: "Checksum algorithms for Upload-Checksum",
    example: TUS_CHECKSUM_ALGORITHMS,
  }),
});

export const UploadIdParams = z.object({
  uploadId: z.string().regex(/^[0-9a-f]{32}$/, { error: "uploadId must be 32 hex digits" })
    .openapi({
      param: { name: "uploadId", in: "path" },
      description: "The upload's id, the last segment of its Location",
      example: "6f1c0c1e9b8a4d3c8e2f7a6b5c4d3e2f",
    }),
});

export const UploadStatusSchema = z.object({
  uploadId: z.string().openapi({ description: "The upload's id" }),
  state: z.enum(["uploading", "completed", "failed", "expired"]).openapi({
    description: "uploading: more bytes expected; completed: the file was committed; failed: " +
      "the final commit was refused (see error); expired: unfinished past Upload-Expires",
  }),
  offset: z.number().int().openapi({ description: "Bytes stored so far" }),
  length: z.number().int().openapi({ description: "Upload-Length" }),
  expiresAt: z.string().openapi({
    format: "date-time",
    description: "When the upload (and its bytes, if unfinished) is removed",
  }),
  file: CreatedResourceSchema.nullable().openapi({
    description: "The file committed (as POST /files answers), once completed",
  }),
  error: z.object({
    errorCode: z.string().openapi({ description: "The catalog code", example: "RESOURCE_010" }),
    message: z.string().openapi({ description: "What went wrong" }),
  }).nullable().openapi({ description: "Why the final commit failed (state failed)" }),
}).openapi("UploadStatus", { description: "Where a resumable (tus) upload stands" });

/** Tus-Resumable on every answer; a request without the version this server speaks is 412. */
export const tusVersion: MiddlewareHandler = async (c, next) => {
  c.header("Tus-Resumable", TUS_VERSION);
  const isStatusRead = c.req.method === "GET";
  if (c.req.method !== "OPTIONS" && !isStatusRead) {
    if (c.req.header("tus-resumable") !== TUS_VERSION) {
      c.header("Tus-Version", TUS_VERSION);
      fail("UPLOAD_005", `Send Tus-Resumable: ${TUS_VERSION}`, "Tus-Resumable");
    }
  }
  await next();
};

/** Where the upload stands: Upload-Offset, and Upload-Expires while it is unfinished. */
export function offsetHeaders(c: Context, upload: Upload) {
  c.header("Upload-Offset", String(upload.offset));
  if (uploadStatus(upload) === "uploading") c.header("Upload-Expires", httpDate(upload.expiresAt));
}

/** The request body, when it has one: tus bodies are application/offset+octet-stream. */
export function tusBody(c: Context, required: boolean): ReadableStream<Uint8Array> | null {
  const length = c.req.header("content-length");
  const chunked = c.req.header("transfer-encoding") !== undefined;
  const type = c.req.header("content-type");
  if (!required && !chunked && (length === undefined || length === "0") && !type) return null;
  if ((type ?? "").split(";")[0].trim().toLowerCase() !== TUS_BODY_TYPE) {
    fail("REQUEST_003", `Send the bytes as Content-Type: ${TUS_BODY_TYPE}`);
  }
  return c.req.raw.body as ReadableStream<Uint8Array> | null;
}
