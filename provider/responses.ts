/**
 * Response shapes of the storage provider protocol. Errors are short plain text (no JSON
 * envelope, no codes, no internal details); JSON is serialized once and sent with its exact
 * Content-Length; nothing is ever compressed or chunked.
 */
import { BlobNotFoundError, isOutOfSpace } from "../blobs/store.ts";
import type { OptionalOperation } from "../kv/adapters/operations.ts";
import { DriveError, type ErrorCode } from "../kv/errors.ts";
import { getLogger } from "@logtape/logtape";

/** Server-side failures, under the service's `drive` category (api/ops/logging.ts). */
const log = getLogger(["drive", "provider"]);

/** A protocol failure: status plus the short text the host may show. */
export class ProviderError extends Error {
  constructor(readonly status: number, message: string, readonly headers: HeadersInit = {}) {
    super(message);
  }
}

export const UNAUTHORIZED_TEXT = "Unauthorized: the request could not be authenticated";

/** Unknown adapter, bad signature or claims, mismatch, expiry and replay all look the same. */
export const unauthorized = () => new ProviderError(401, UNAUTHORIZED_TEXT);

// no-transform: intermediaries (and any automatic compression) must keep the exact bytes.
const NO_TRANSFORM = "no-store, no-transform";

function textResponse(status: number, text: string, extra: HeadersInit = {}): Response {
  const bytes = new TextEncoder().encode(text);
  const headers = new Headers(extra);
  headers.set("content-type", "text/plain; charset=utf-8");
  headers.set("content-length", String(bytes.byteLength));
  headers.set("cache-control", NO_TRANSFORM);
  return new Response(bytes, { status, headers });
}

/** Exact-length JSON from bytes already serialized (so their size could be checked first). */
export function jsonBytesResponse(status: number, bytes: Uint8Array<ArrayBuffer>): Response {
  return new Response(bytes, {
    status,
    headers: {
      "content-type": "application/json",
      "content-length": String(bytes.byteLength),
      "cache-control": NO_TRANSFORM,
    },
  });
}

export const noContent = () =>
  new Response(null, { status: 204, headers: { "cache-control": NO_TRANSFORM } });

export const UNSUPPORTED_CODE: Record<OptionalOperation, string> = {
  list: "LIST_NOT_SUPPORTED",
  put: "PUT_NOT_SUPPORTED",
  lock: "LOCK_NOT_SUPPORTED",
  unlock: "UNLOCK_NOT_SUPPORTED",
  mkdir: "MKDIR_NOT_SUPPORTED",
  rename: "RENAME_NOT_SUPPORTED",
  delete: "DELETE_NOT_SUPPORTED",
};

/** The exact unsupported declaration: 501, application/json, only `code`. */
export function unsupportedResponse(op: OptionalOperation): Response {
  return jsonBytesResponse(
    501,
    new TextEncoder().encode(JSON.stringify({ code: UNSUPPORTED_CODE[op] })),
  );
}

/** Drive error codes to the protocol's status table; the rest keep their catalog status. */
const PROVIDER_STATUS: Partial<Record<ErrorCode, number>> = {
  RESOURCE_002: 404,
  RESOURCE_003: 409,
  RESOURCE_004: 400,
  RESOURCE_005: 409,
  RESOURCE_006: 409,
  RESOURCE_008: 404,
  RESOURCE_010: 409,
  RESOURCE_012: 409,
  RESOURCE_014: 409,
  RESOURCE_015: 413,
  QUOTA_003: 413,
  REQUEST_002: 413,
  PERMISSION_001: 403,
  PERMISSION_002: 403,
  PERMISSION_004: 403,
  SERVICE_002: 503,
  // The protocol has no 507: a full disk is its "temporary storage failure".
  SERVICE_003: 503,
};

const STORAGE_FULL_TEXT = "Storage is full: nothing was stored; retry once space was freed";

const PROVIDER_TEXT: Partial<Record<ErrorCode, string>> = {
  RESOURCE_002: "Not found",
  RESOURCE_003: "An entry with that name already exists",
  RESOURCE_005: "The target is not a directory",
  RESOURCE_006: "The target is a directory",
  RESOURCE_008: "The parent directory does not exist",
  RESOURCE_010: "The entry is locked by another owner",
  RESOURCE_012: "The entry changed concurrently; retry",
  RESOURCE_014: "Directories nest too deeply",
  RESOURCE_015: "The document does not fit in the storage quota",
  QUOTA_003: "The document does not fit in the storage quota",
  REQUEST_002: "The document is larger than the provider's limit",
  PERMISSION_001: "Access denied",
  PERMISSION_002: "Access denied",
  PERMISSION_004: "Access denied",
  SERVICE_002: "Storage is temporarily unavailable; retry",
  SERVICE_003: STORAGE_FULL_TEXT,
};

/** Any thrown value as a protocol response; unexpected errors are logged and answered 500. */
export function providerErrorResponse(err: unknown): Response {
  if (err instanceof ProviderError) return textResponse(err.status, err.message, err.headers);
  if (err instanceof DriveError) {
    const status = PROVIDER_STATUS[err.code] ?? (err.status >= 500 ? 500 : err.status);
    const text = PROVIDER_TEXT[err.code] ??
      (status === 400
        ? err.message.slice(0, 200)
        : status >= 500
        ? "Internal error"
        : "Request failed");
    if (status >= 500 && status !== 503) {
      log.error("provider error", { code: err.code, error: err.message });
    }
    return textResponse(status, text);
  }
  if (isOutOfSpace(err)) {
    log.warn("storage is full: a write was refused", { error: String(err) });
    return textResponse(503, STORAGE_FULL_TEXT);
  }
  // Busy KV, or content replaced (old bytes deleted) between lookup and read: both pass.
  if (
    err instanceof BlobNotFoundError ||
    (err instanceof Error && /database is locked/i.test(err.message))
  ) {
    return textResponse(503, "Storage is temporarily unavailable; retry");
  }
  // The request id comes with the logging context (api/ops/request_log.ts).
  log.error("unexpected error", {
    error: String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  return textResponse(500, "Internal error");
}
