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
  RESOURCE_010: {
    status: 409,
    meaning: "The document, or a document inside the folder, is locked by someone else",
  },
  RESOURCE_011: { status: 416, meaning: "The requested byte range cannot be satisfied" },
  RESOURCE_012: { status: 409, meaning: "The resource changed concurrently too many times; retry" },
  RESOURCE_013: { status: 400, meaning: "The upload has no `file` part" },
  RESOURCE_014: { status: 400, meaning: "Folders nest too deeply" },
  RESOURCE_015: { status: 403, meaning: "Upload or copy would exceed the account quota" },
  RESOURCE_016: { status: 400, meaning: "`rs` is required when `st` is version or overwrite" },
  RESOURCE_017: {
    status: 400,
    meaning:
      "This cannot move to another user's drive (a folder, or a file with its own share); copy instead",
  },
  RESOURCE_018: { status: 400, meaning: "Invalid list cursor" },
  RESOURCE_019: { status: 409, meaning: "The resource is not in the trash" },
  RESOURCE_020: {
    status: 400,
    meaning: "The folder holds too many entries for one ZIP download; download its subfolders",
  },
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
  SHARE_002: { status: 403, meaning: "The tenant's share policy does not allow this share type" },
  SHARE_003: {
    status: 403,
    meaning: "The share would grant more than the tenant's share policy allows for its type",
  },
  SHARE_004: {
    status: 409,
    meaning: "Another resource in the same hierarchy is shared with a different share type",
  },
  SHARE_005: { status: 409, meaning: "The resource is already shared; change that share instead" },
  SHARE_006: { status: 404, meaning: "No such share (or it is not visible to the caller)" },
  SHARE_007: { status: 404, meaning: "Unknown, revoked or expired share-link token" },
  SHARE_008: {
    status: 400,
    meaning: "ORG_LINK and PUBLIC_LINK shares need cv true and ce, cd, cu, cs sent explicitly",
  },
  SHARE_009: {
    status: 400,
    meaning:
      "Invalid recipients: only SPECIFIC_USERS shares have them, at most 50, no duplicates, not the owner",
  },
  SHARE_010: {
    status: 403,
    meaning: "Only the owner (or, for recipients, a re-share holder) may do this to the share",
  },
  // Public share-link page
  LINK_001: { status: 401, meaning: "Wrong share-link password" },
  LINK_002: {
    status: 429,
    meaning: "Too many wrong passwords for this link; retry after the Retry-After seconds",
  },
  LINK_003: {
    status: 403,
    meaning: "An ORG_LINK opens only for signed-in members of the owner's organization",
  },
  LINK_004: {
    status: 401,
    meaning: "The link is password-protected: send a valid access token (X-Link-Access)",
  },
  // Editor session (web-office)
  OFFICE_001: {
    status: 403,
    meaning: "loginUserSeq names no user of the API key's tenant",
  },
  OFFICE_002: {
    status: 403,
    meaning:
      "Hardened mode (DRIVE_OFFICE_STRICT_USER): loginUserSeq must be the API key's own user",
  },
  OFFICE_003: {
    status: 403,
    meaning: "A VIEWER or WATCHER editor surface can read the document but not lock or save it",
  },
  // Document locks (admin)
  LOCK_001: { status: 404, meaning: "The document has no live lock" },
  // Users and tenants (admin API and lookups)
  USER_001: { status: 404, meaning: "No such user" },
  USER_002: { status: 409, meaning: "accountId is already taken" },
  USER_003: { status: 409, meaning: "email is already taken" },
  TENANT_001: { status: 404, meaning: "No such tenant" },
  KEY_001: { status: 404, meaning: "No such API key" },
  ADMIN_001: { status: 404, meaning: "No such admin endpoint" },
  // Adapters (storage provider protocol; see docs/provider.md)
  ADAPTER_001: { status: 404, meaning: "No such adapter" },
  ADAPTER_002: { status: 409, meaning: "An adapter with that name already exists" },
  ADAPTER_003: {
    status: 400,
    meaning: "lock and unlock must be enabled or disabled together",
  },
  ADAPTER_004: { status: 400, meaning: "The adapter secret must be at least 32 UTF-8 bytes" },
  ADAPTER_005: {
    status: 400,
    meaning: "folderSeq is not a folder in the drive of userSeq (or it is in the trash)",
  },
  ADAPTER_006: {
    status: 500,
    meaning: "An adapter secret cannot be decrypted: DRIVE_SECRETS_KEY differs from the one used",
  },
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
