/**
 * Configuration rows (config.ts): events and webhooks, retention, disk, listings, uploads, the provider protocol, quotas, editor locks, write leases.
 */
import { bool, int, seconds } from "../lib/env_parsers.ts";
import { OPS_DOCS, type Variable } from "./variable.ts";

export const PROTOCOL_MAX_DOC_BYTES = 314_572_800;

export const SERVICE_VARIABLES = {
  eventRetentionDays: {
    name: "DRIVE_EVENT_RETENTION_DAYS",
    default: "30",
    parse: int(1),
    about: "days the event log keeps an event (change feed, activity); an older feed cursor is " +
      "410 `CHANGES_001` ([docs/changes.md](docs/changes.md))",
  },
  webhookTimeoutMs: {
    name: "DRIVE_WEBHOOK_TIMEOUT_MS",
    default: "10000",
    parse: int(1),
    about: "time limit of one webhook delivery attempt " +
      "([docs/changes.md](docs/changes.md#webhooks))",
  },
  webhookAllowPrivate: {
    name: "DRIVE_WEBHOOK_ALLOW_PRIVATE",
    default: "false",
    parse: bool,
    about: "`true` lets webhooks reach loopback, private and link-local addresses " +
      "(refused by default)",
  },
  webhookRetryBaseMs: {
    name: "DRIVE_WEBHOOK_RETRY_BASE_MS",
    default: "5000",
    parse: int(1),
    about: "delay after a failed webhook attempt; doubles with each further one (at most 10 h)",
  },
  webhookRetryWindowMs: {
    name: "DRIVE_WEBHOOK_RETRY_WINDOW_S",
    default: "86400",
    parse: seconds(1),
    about: "how long a webhook delivery is retried; an endpoint failing for that long is disabled",
  },
  trashRetentionDays: {
    name: "DRIVE_TRASH_RETENTION_DAYS",
    default: "30",
    parse: int(),
    about: "the hourly retention job purges trash older than this many days; `0` keeps it " +
      `(${OPS_DOCS}#retention))`,
  },
  versionsKeep: {
    name: "DRIVE_VERSIONS_KEEP",
    default: "0",
    shownDefault: "`0` (keep all)",
    parse: int(),
    about: "stored versions the retention job keeps per file (the current one always stays)",
  },
  minFreeBytes: {
    name: "DRIVE_MIN_FREE_BYTES",
    default: "268435456",
    parse: int(),
    about: "`GET /readyz` answers 503 below this much free disk under `DRIVE_DATA_DIR` " +
      "(fs blob store)",
  },
  kvReserveBytes: {
    name: "DRIVE_KV_RESERVE_BYTES",
    default: "33554432",
    parse: int(),
    about: "free disk the blob store leaves for KV: an upload that would leave less answers " +
      "507, so trash, purge and the audit of reads still commit on a full disk (fs blob " +
      'store, or a KV file); 0 turns it off; see docs/operations.md "Full disk"',
  },
  listWorkers: {
    name: "DRIVE_LIST_WORKERS",
    default: "0",
    parse: int(),
    about: "worker threads that build provider `list` answers beside the main thread (KV file " +
      "only): faster listings under load for more memory; see docs/operations.md " +
      '"Memory and CPU"',
  },
  listConcurrency: {
    name: "DRIVE_LIST_CONCURRENCY",
    default: "2",
    parse: int(1),
    about: "large listings (provider `list` answers, drive API folder and trash pages) built at " +
      "once per building thread (main thread or listing worker); the others wait their turn, " +
      "so memory does not grow with the number of listing clients",
  },
  uploadExpiryMs: {
    name: "DRIVE_UPLOAD_EXPIRY_S",
    default: "86400",
    parse: seconds(1),
    about: "seconds an unfinished tus upload (`/uploads`) is kept before it and its bytes are " +
      "removed",
  },
  uploadMaxBytes: {
    name: "DRIVE_UPLOAD_MAX_BYTES",
    default: "1099511627776",
    parse: int(1),
    about: "largest tus `Upload-Length` accepted (advertised as `Tus-Max-Size`)",
  },
  providerMaxDocBytes: {
    name: "DRIVE_PROVIDER_MAX_DOC_BYTES",
    default: String(PROTOCOL_MAX_DOC_BYTES),
    parse: int(
      0,
      PROTOCOL_MAX_DOC_BYTES,
      `may be lowered but never above ${PROTOCOL_MAX_DOC_BYTES}`,
    ),
    about: "the provider's document limit; may be lowered, never raised",
  },
  defaultQuotaBytes: {
    name: "DRIVE_DEFAULT_QUOTA_BYTES",
    default: "10737418240",
    parse: int(),
    about: "quota of a user created without one",
  },
  officeLockTtlSeconds: {
    name: "DRIVE_OFFICE_LOCK_TTL_S",
    default: "1800",
    parse: int(),
    about: "lease of an editor-session lock, renewed by lock and put",
  },
  officeStrictUser: {
    name: "DRIVE_OFFICE_STRICT_USER",
    default: "false",
    parse: bool,
    about: "`true`: editor `loginUserSeq` and `user_id` must name the key's own user " +
      "([docs/api.md](docs/api.md))",
  },
  // Blob writer leases (blobs/leases.ts): renewed every RENEW, abandoned after EXPIRY.
  writeLeaseRenewMs: {
    name: "DRIVE_WRITE_LEASE_RENEW_MS",
    default: "10000",
    parse: int(1),
    about: "how often a process with blob writes running renews its lease " +
      "([docs/security.md](docs/security.md))",
  },
  writeLeaseExpiryMs: {
    name: "DRIVE_WRITE_LEASE_EXPIRY_MS",
    default: "120000",
    parse: int(),
    about: "writes of a process whose lease went unrenewed this long are abandoned and their " +
      "leftovers removed",
  },
  folderCopyMaxItems: {
    name: "DRIVE_FOLDER_COPY_MAX_ITEMS",
    default: "10000",
    parse: int(1),
    about: "most files and folders one folder copy (`POST /folders/{rs}/copy`, WebDAV COPY) " +
      "takes; a larger folder is refused with `RESOURCE_021`",
  },
} satisfies Record<string, Variable>;
