/**
 * The single mapping from thrown errors to responses. Domain errors carry their catalog code;
 * anything unexpected is logged server-side and answered as SERVICE_001 without details.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { BlobNotFoundError, isOutOfSpace } from "../../blobs/store.ts";
import { DriveError } from "../../kv/errors.ts";
import { driveLogger } from "../../lib/logger.ts";
import { errorEnvelope } from "./envelope.ts";
import { jsonResponse } from "./json_response.ts";

const log = driveLogger("http");

export function toDriveError(err: unknown): DriveError {
  if (err instanceof DriveError) return err;
  if (err instanceof HTTPException) {
    if (err.status === 400) {
      return new DriveError("REQUEST_005", "The request body is not valid JSON");
    }
    if (err.status === 413) return new DriveError("REQUEST_002");
    if (err.status === 415) return new DriveError("REQUEST_003");
  }
  // A full disk (blob bytes, staged bytes or a KV commit) is an answer, not an internal error.
  if (isOutOfSpace(err)) {
    log.warn("storage is full: a write was refused", { error: String(err) });
    return new DriveError(
      "SERVICE_003",
      "The server's storage is full: nothing was stored. Retry once space was freed " +
        "(delete from the trash, or ask an administrator)",
    );
  }
  if (err instanceof Error && /database is locked/i.test(err.message)) {
    return new DriveError("SERVICE_002", "Storage is busy; retry the request");
  }
  // The content was replaced (and its old bytes deleted) between lookup and read.
  if (err instanceof BlobNotFoundError) {
    return new DriveError("SERVICE_002", "The content changed while it was read; retry");
  }
  // The request id comes with the logging context (api/ops/request_log.ts).
  log.error("unexpected error", {
    error: String(err),
    stack: err instanceof Error ? err.stack : undefined,
  });
  return new DriveError("SERVICE_001", "Internal error");
}

/** onError of the external API: the JSON error envelope. */
export function externalApiError(err: unknown, c: Context) {
  const e = toDriveError(err);
  return jsonResponse(c, errorEnvelope(e.code, e.message), e.status as 400);
}

/** onError of the admin API: {error, message}. */
export function adminApiError(err: unknown, c: Context) {
  const e = toDriveError(err);
  return jsonResponse(
    c,
    { error: e.code, message: e.message, ...(e.field ? { field: e.field } : {}) },
    e.status as 400,
  );
}
