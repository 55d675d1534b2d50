/**
 * The one error catalog. Every code the service answers with is listed here with its HTTP
 * status and meaning; `docs/errors.md` is generated from this table (tests/docs_test.ts fails
 * when it is stale). Codes named by the spec keep the spec's meaning; new ones follow the
 * same `<AREA>_<NNN>` form.
 */
export const ERROR_CATALOG = {
  // Request shape
  REQUEST_001: { status: 400, meaning: "A field of the body, query or path is missing or invalid" },
  REQUEST_002: { status: 413, meaning: "The request body is larger than allowed" },
  REQUEST_003: {
    status: 415,
    meaning: "The request Content-Type is not the one this endpoint takes",
  },
  REQUEST_004: { status: 404, meaning: "No such endpoint" },
  REQUEST_005: { status: 400, meaning: "The request body is not valid JSON" },
  REQUEST_006: {
    status: 400,
    meaning: "The upload ended early or its multipart framing is broken",
  },
  // Authentication
  AUTH_001: { status: 401, meaning: "Missing or malformed Authorization: Bearer header" },
  AUTH_002: { status: 401, meaning: "Unknown or revoked API key" },
  AUTH_003: { status: 403, meaning: "The API key lacks the api:write scope this operation needs" },
  AUTH_004: { status: 401, meaning: "Missing or wrong admin token" },
  // Resources (files and folders)
  RESOURCE_001: {
    status: 404,
    meaning: "Folder delete failed: no such folder, or already in the trash",
  },
  RESOURCE_002: { status: 404, meaning: "No such file or folder (or it is in the trash)" },
  RESOURCE_003: {
    status: 409,
    meaning: "A file or folder with that name already exists in the folder",
  },
  RESOURCE_004: {
    status: 400,
    meaning:
      "Invalid name: empty, over 255 characters, '.', '..', or contains '/', '\\' or control characters",
  },
  RESOURCE_005: { status: 400, meaning: "A folder seq was expected but a file seq was given" },
  RESOURCE_006: { status: 400, meaning: "A file seq was expected but a folder seq was given" },
  RESOURCE_007: {
    status: 409,
    meaning: "A folder cannot be moved into itself or one of its descendants",
  },
  RESOURCE_008: { status: 404, meaning: "The parent or destination folder does not exist" },
  RESOURCE_009: { status: 404, meaning: "Unknown or expired download token" },
  RESOURCE_010: { status: 409, meaning: "The document is locked by someone else" },
  RESOURCE_011: { status: 416, meaning: "The requested byte range cannot be satisfied" },
  RESOURCE_012: { status: 409, meaning: "The resource changed concurrently too many times; retry" },
  RESOURCE_013: { status: 400, meaning: "The upload has no `file` part" },
  RESOURCE_014: { status: 400, meaning: "Folders nest too deeply" },
  RESOURCE_015: { status: 403, meaning: "Upload or copy would exceed the account quota" },
  RESOURCE_016: { status: 400, meaning: "`rs` is required when `st` is version or overwrite" },
  RESOURCE_017: {
    status: 400,
    meaning: "Moving between different users' drives is not possible; copy instead",
  },
  RESOURCE_018: { status: 400, meaning: "Invalid list cursor" },
  RESOURCE_019: { status: 409, meaning: "The resource is not in the trash" },
  // Quota
  QUOTA_003: { status: 403, meaning: "Creating the document would exceed the account quota" },
  // Permissions
  PERMISSION_001: { status: 403, meaning: "The folder is not shared with the caller" },
  PERMISSION_002: {
    status: 403,
    meaning: "The caller cannot access the resource or target folder",
  },
  PERMISSION_003: { status: 400, meaning: "cv (view) must be on while any other permission is on" },
  PERMISSION_004: {
    status: 403,
    meaning: "The caller's share does not grant the permission this operation needs",
  },
  // Pinned folders
  PINNED_FOLDER_001: {
    status: 404,
    meaning: "No such pin of the caller (owned by someone else or already gone)",
  },
  PINNED_FOLDER_002: { status: 409, meaning: "The folder is already pinned" },
  PINNED_FOLDER_003: { status: 409, meaning: "At most three folders can be pinned" },
  // Shares
  SHARE_001: { status: 403, meaning: "The resource is not shared with the named user" },
  SHARE_007: { status: 404, meaning: "Unknown, revoked or expired share-link token" },
  // Users and tenants (admin API and lookups)
  USER_001: { status: 404, meaning: "No such user" },
  USER_002: { status: 409, meaning: "accountId is already taken" },
  USER_003: { status: 409, meaning: "email is already taken" },
  TENANT_001: { status: 404, meaning: "No such tenant" },
  KEY_001: { status: 404, meaning: "No such API key" },
  ADMIN_001: { status: 404, meaning: "No such admin endpoint" },
  // Service
  SERVICE_001: {
    status: 500,
    meaning: "Unexpected internal error (details are in the server log only)",
  },
  SERVICE_002: { status: 503, meaning: "Storage is temporarily unavailable; retry" },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** A failure the caller can act on. Thrown by drive operations, mapped to a response at the edge. */
export class DriveError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** The request field at fault, when one is. */
  readonly field?: string;

  constructor(code: ErrorCode, message?: string, field?: string) {
    super(message ?? ERROR_CATALOG[code].meaning);
    this.name = "DriveError";
    this.code = code;
    this.status = ERROR_CATALOG[code].status;
    this.field = field;
  }
}

export function fail(code: ErrorCode, message?: string, field?: string): never {
  throw new DriveError(code, message, field);
}
