/**
 * The one error catalog. Every code the service answers with is listed here with its HTTP
 * status and meaning; `docs/errors.md` is generated from this table (tests/runtime/docs_test.ts
 * fails when it is stale). Codes named by the spec keep the spec's meaning; new ones follow the
 * same `<AREA>_<NNN>` form.
 */

/**
 * One catalog entry. The literal types are kept (as `as const` would keep them), so a code's
 * status is known to the type checker.
 */
function entry<const S extends number, const M extends string>(status: S, meaning: M) {
  return { status, meaning } as const;
}

export const ERROR_CATALOG = {
  // Request shape
  REQUEST_001: entry(400, "A field of the body, query or path is missing or invalid"),
  REQUEST_002: entry(413, "The request body is larger than allowed"),
  REQUEST_003: entry(415, "The request Content-Type is not the one this endpoint takes"),
  REQUEST_004: entry(404, "No such endpoint"),
  REQUEST_005: entry(400, "The request body is not valid JSON"),
  REQUEST_006: entry(400, "The upload ended early or its multipart framing is broken"),
  // Authentication
  AUTH_001: entry(401, "Missing or malformed Authorization: Bearer header"),
  AUTH_002: entry(401, "Unknown or revoked API key"),
  AUTH_003: entry(403, "The API key lacks the api:write scope this operation needs"),
  AUTH_004: entry(401, "Missing or wrong admin token"),
  AUTH_005: entry(401, "The API key is disabled (an administrator can enable it again)"),
  AUTH_006: entry(
    403,
    "The key's user or tenant is disabled: its keys, adapters and links stop working until enabled",
  ),
  AUTH_007: entry(401, "Wrong account or password (the same answer for an unknown account)"),
  AUTH_008: entry(
    429,
    "Too many wrong passwords from this client for this account; wait the Retry-After seconds",
  ),
  AUTH_009: entry(401, "Not signed in: no session, or it ended (signed out, expired or revoked)"),
  AUTH_010: entry(
    403,
    "A request changing something with a session cookie needs X-CSRF-Token and an Origin of " +
      "DRIVE_PUBLIC_URL",
  ),
  AUTH_011: entry(403, "This needs the admin role"),
  AUTH_012: entry(401, "The current password is wrong"),
  AUTH_013: entry(
    400,
    "The new password is too weak: at least 12 characters, and not a common password",
  ),
  AUTH_014: entry(
    404,
    "Unknown, used or expired invitation or reset link (ask an administrator for a new one)",
  ),
  SESSION_001: entry(404, "No such session of yours"),
  // Resources (files and folders)
  RESOURCE_001: entry(404, "Folder delete failed: no such folder, or already in the trash"),
  RESOURCE_002: entry(404, "No such file or folder (or it is in the trash)"),
  RESOURCE_003: entry(409, "A file or folder with that name already exists in the folder"),
  RESOURCE_004: entry(
    400,
    "Invalid name: empty, over 255 characters, '.', '..', not UTF-8, or contains '/', '\\', a lone " +
      "surrogate, a control, bidirectional or invisible character (the message names it as U+XXXX)",
  ),
  RESOURCE_005: entry(400, "A folder seq was expected but a file seq was given"),
  RESOURCE_006: entry(400, "A file seq was expected but a folder seq was given"),
  RESOURCE_007: entry(409, "A folder cannot be moved into itself or one of its descendants"),
  RESOURCE_008: entry(404, "The parent or destination folder does not exist"),
  RESOURCE_009: entry(404, "Unknown or expired download token"),
  RESOURCE_010: entry(
    409,
    "Locked by someone else: the document (an editor), a document inside the folder, or the " +
      "folder's members (a WebDAV lock on it or a folder above)",
  ),
  RESOURCE_011: entry(416, "The requested byte range cannot be satisfied"),
  RESOURCE_012: entry(409, "The resource changed concurrently too many times; retry"),
  RESOURCE_013: entry(400, "The upload has no `file` part"),
  RESOURCE_014: entry(400, "Folders nest too deeply"),
  RESOURCE_015: entry(403, "Upload or copy would exceed the account quota"),
  RESOURCE_016: entry(400, "`rs` is required when `st` is version or overwrite"),
  RESOURCE_017: entry(
    400,
    "This cannot move to another user's drive (a folder, or a file with its own share); copy instead",
  ),
  RESOURCE_018: entry(400, "Invalid list cursor"),
  RESOURCE_019: entry(409, "The resource is not in the trash"),
  RESOURCE_020: entry(
    400,
    "The folder holds too many entries for one ZIP download; download its subfolders",
  ),
  RESOURCE_021: entry(
    400,
    "The folder holds more items than one copy takes (DRIVE_FOLDER_COPY_MAX_ITEMS); copy its subfolders",
  ),
  // Stored content versions
  VERSION_001: entry(404, "The file has no stored version with that number (or it was deleted)"),
  VERSION_002: entry(409, "The current version cannot be deleted; restore another one first"),
  // Quota
  QUOTA_003: entry(403, "Creating the document would exceed the account quota"),
  // Permissions
  PERMISSION_001: entry(403, "The folder is not shared with the caller"),
  PERMISSION_002: entry(403, "The caller cannot access the resource or target folder"),
  PERMISSION_003: entry(400, "cv (view) must be on while any other permission is on"),
  PERMISSION_004: entry(
    403,
    "The caller's share does not grant the permission this operation needs",
  ),
  // Pinned folders
  PINNED_FOLDER_001: entry(
    404,
    "No such pin of the caller (owned by someone else or already gone)",
  ),
  PINNED_FOLDER_002: entry(409, "The folder is already pinned"),
  PINNED_FOLDER_003: entry(409, "At most three folders can be pinned"),
  // Shares
  SHARE_001: entry(403, "The resource is not shared with the named user"),
  SHARE_002: entry(403, "The tenant's share policy does not allow this share type"),
  SHARE_003: entry(
    403,
    "The share would grant more than the tenant's share policy allows for its type",
  ),
  SHARE_004: entry(
    409,
    "Another resource in the same hierarchy is shared with a different share type",
  ),
  SHARE_005: entry(409, "The resource is already shared; change that share instead"),
  SHARE_006: entry(404, "No such share (or it is not visible to the caller)"),
  SHARE_007: entry(404, "Unknown, revoked or expired share-link token"),
  SHARE_008: entry(
    400,
    "ORG_LINK and PUBLIC_LINK shares need cv true and ce, cd, cu, cs sent explicitly",
  ),
  SHARE_009: entry(
    400,
    "Invalid recipients: only SPECIFIC_USERS shares have them, at most 50, no duplicates, not the owner",
  ),
  SHARE_010: entry(
    403,
    "Only the owner (or, for recipients, a re-share holder) may do this to the share",
  ),
  SHARE_011: entry(
    400,
    "A file request is a PUBLIC_LINK on a folder with cv and cu only (no ce, cd or cs)",
  ),
  // Public share-link page
  LINK_001: entry(401, "Wrong share-link password"),
  LINK_002: entry(
    429,
    "Too many wrong passwords from this client for this link; wait the Retry-After seconds",
  ),
  LINK_003: entry(403, "An ORG_LINK opens only for signed-in members of the owner's organization"),
  LINK_004: entry(401, "The link is password-protected: send a valid access token (X-Link-Access)"),
  LINK_005: entry(403, "The link's owner (the user or their tenant) is disabled"),
  LINK_006: entry(403, "A file-request link only takes uploads: nothing of the folder is shown"),
  LINK_007: entry(403, "This link does not allow uploads"),
  // Editor session (web-office)
  OFFICE_001: entry(403, "loginUserSeq names no user of the API key's tenant"),
  OFFICE_002: entry(
    403,
    "Hardened mode (DRIVE_OFFICE_STRICT_USER): loginUserSeq and user_id must name the key's own user",
  ),
  OFFICE_003: entry(
    403,
    "A VIEWER or WATCHER editor surface can read the document but not lock or save it",
  ),
  // Document locks (admin)
  LOCK_001: entry(404, "The document has no live lock"),
  // WebDAV (docs/webdav.md)
  DAV_001: entry(507, "A resource may hold at most 200 dead properties of 16 KiB each"),
  DAV_002: entry(400, "The request body is not well-formed XML, or holds a DOCTYPE"),
  DAV_003: entry(
    400,
    "A lock request is malformed: the If or Lock-Token header, Depth or lockinfo",
  ),
  DAV_004: entry(412, "No list of the If header matches the resources it names"),
  DAV_005: entry(409, "The lock token names no lock of this resource"),
  // Users and tenants (admin API and lookups)
  USER_001: entry(404, "No such user"),
  USER_002: entry(409, "accountId is already taken"),
  USER_003: entry(409, "email is already taken"),
  USER_004: entry(409, "A drive is transferred only to another user of the same tenant"),
  USER_005: entry(
    409,
    "A deletion or another transfer of this user (or tenant) is under way: repeat that one",
  ),
  USER_006: entry(409, "The last administrator cannot remove their own admin role"),
  TENANT_001: entry(404, "No such tenant"),
  TENANT_002: entry(409, "Another tenant has this name (names are compared case-insensitively)"),
  KEY_001: entry(404, "No such API key"),
  ADMIN_001: entry(404, "No such admin endpoint"),
  ADMIN_002: entry(
    400,
    "confirm must repeat the accountId of the user (or the name of the tenant) being deleted",
  ),
  // Adapters (storage provider protocol; see docs/provider.md)
  ADAPTER_001: entry(404, "No such adapter"),
  ADAPTER_002: entry(409, "An adapter with that name already exists"),
  ADAPTER_003: entry(400, "lock and unlock must be enabled or disabled together"),
  ADAPTER_004: entry(400, "The adapter secret must be at least 32 UTF-8 bytes"),
  ADAPTER_005: entry(
    400,
    "folderSeq is not a folder in the drive of userSeq (or it is in the trash)",
  ),
  ADAPTER_006: entry(
    500,
    "An adapter secret cannot be decrypted: DRIVE_SECRETS_KEY differs from the one used",
  ),
  // Single sign-on with OpenID Connect (docs/authentication.md)
  OIDC_001: entry(404, "The tenant has no single sign-on configured"),
  OIDC_002: entry(400, "clientSecret is required when single sign-on is first configured"),
  OIDC_003: entry(
    400,
    "The sign-in attempt is unknown, used or expired (state): start the sign-in again",
  ),
  OIDC_004: entry(
    502,
    "The identity provider cannot be reached, or its discovery document or token answer failed",
  ),
  OIDC_005: entry(401, "The identity provider's answer was refused (ID token, nonce or state)"),
  OIDC_006: entry(400, "The ID token lacks a claim the tenant's claim mapping names"),
  OIDC_007: entry(403, "The e-mail address's domain is not allowed for this tenant's sign-in"),
  OIDC_008: entry(
    409,
    "The e-mail address or account id belongs to a user of another tenant, or is taken",
  ),
  OIDC_009: entry(403, "This tenant signs in with single sign-on only: passwords are off"),
  OIDC_010: entry(
    500,
    "An OIDC client secret cannot be decrypted: DRIVE_SECRETS_KEY differs from the one used",
  ),
  // Change feed (docs/changes.md)
  CHANGES_001: entry(
    410,
    "The cursor is older than the event retention window: list again and take a new cursor",
  ),
  // Webhooks (docs/changes.md "Webhooks")
  WEBHOOK_001: entry(404, "No such webhook"),
  WEBHOOK_002: entry(404, "No such delivery of this webhook (or it expired)"),
  WEBHOOK_003: entry(
    400,
    "The webhook URL breaks the outbound rules: http(s) only, no credentials, no private address",
  ),
  WEBHOOK_004: entry(409, "The webhook is disabled: enable it first"),
  WEBHOOK_005: entry(409, "The service already has the most webhooks it allows; delete one"),
  WEBHOOK_006: entry(
    500,
    "A webhook signing secret cannot be decrypted: DRIVE_SECRETS_KEY differs from the one used",
  ),
  // Operations endpoints (docs/operations.md)
  OPS_001: entry(401, "Missing or wrong metrics token: send DRIVE_METRICS_TOKEN as a Bearer token"),
  OPS_002: entry(503, "Not ready: a readiness check failed (the answer lists which and why)"),
  // Resumable uploads (tus, /uploads)
  UPLOAD_001: entry(404, "No such upload of the caller (unknown, terminated, or removed)"),
  UPLOAD_002: entry(409, "Upload-Offset is not the upload's current offset (HEAD tells it)"),
  UPLOAD_003: entry(423, "Another request is writing to this upload; retry"),
  UPLOAD_004: entry(460, "Upload-Checksum does not match the bytes sent; they were discarded"),
  UPLOAD_005: entry(412, "Tus-Resumable is missing or not a version this server speaks (1.0.0)"),
  UPLOAD_006: entry(
    410,
    "The upload is gone: it expired, or its final commit failed (GET /uploads/{id} says why)",
  ),
  // Rendered previews and thumbnails (docs/api.md#previews)
  PREVIEW_001: entry(
    422,
    "The document cannot be converted to a preview (damaged, encrypted, or too slow to convert)",
  ),
  PREVIEW_002: entry(503, "The preview converter is busy; retry after the Retry-After seconds"),
  PREVIEW_003: entry(
    422,
    "No thumbnail for this file: it is not an image this server can read (JPEG, PNG, WebP, GIF, ...)",
  ),
  PREVIEW_004: entry(501, "This server has no thumbnail library installed (previews are off)"),
  // Service
  SERVICE_001: entry(500, "Unexpected internal error (details are in the server log only)"),
  SERVICE_002: entry(503, "Storage is temporarily unavailable; retry"),
  SERVICE_003: entry(
    507,
    "The server's storage is full: nothing was stored; retry once an administrator freed space",
  ),
  SERVICE_004: entry(
    409,
    "A write checked more keys than the shared KV server takes in one commit (denokv: 10); " +
      "nothing was written",
  ),
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

/** Whether `err` is a DriveError, and when `code` is given, one with that code. */
export function isDriveError(err: unknown, code?: ErrorCode): err is DriveError {
  return err instanceof DriveError && (code === undefined || err.code === code);
}
