/**
 * The shapes of the admin API (docs/api.md, admin API): zod schemas of the request bodies it
 * validates and of the answers it sends, with their inferred types. The activity log's and the
 * webhooks' shapes are in api/admin/schemas/events.ts, deletion and transfer in
 * api/admin/schemas/lifecycle.ts. The routes validate with
 * these schemas and type their answers with these types, and the admin console imports the
 * types (`import type` only, so no server code reaches the browser bundle): the server and the
 * console cannot disagree about a field without the type check failing.
 */
import { z } from "zod";
import { SHARE_PERMISSIONS } from "../../kv/identity/tenants.ts";
import { ADAPTER_NAME_PATTERN } from "../../kv/adapters/adapters.ts";
import { OPTIONAL_OPERATIONS } from "../../kv/adapters/operations.ts";
import { ShareTypeSchema } from "../http/schemas.ts";
import type { ErrorCode } from "../../kv/errors.ts";
import { errorResponsesWith, queryParam } from "../http/openapi.ts";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "../../kv/identity/admin_lists.ts";

// ---------------------------------------------------------------- errors

/** Every admin API error answer: the catalog code (kv/errors.ts), a message, the field if any. */
export const AdminErrorSchema = z.object({
  error: z.string().describe("The error code from the catalog (docs/errors.md)"),
  message: z.string().describe("What went wrong, in words"),
  field: z.string().optional().describe("The request field at fault, when there is one"),
}).openapi("AdminError", {
  description: "An admin API error: the catalog code, a message, the field if any",
});

/**
 * The error answers of an admin route, by status with their codes: the token, validation and
 * body-size failures every route has, and `codes`.
 */
export const adminErrors = (...codes: ErrorCode[]) =>
  errorResponsesWith(AdminErrorSchema, ["REQUEST_001", "REQUEST_002", "AUTH_004", ...codes]);

/** A JSON answer of an admin route: `schema`, described. */
export const adminJson = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

// ---------------------------------------------------------------- tenants

export type ShareType = z.infer<typeof ShareTypeSchema>;

/** The spec's four values; UPLOAD is no value of its own (EDIT governs `cu`, see docs/api.md). */
export const PermissionSchema = z.enum(SHARE_PERMISSIONS, {
  error: (issue) =>
    issue.input === "UPLOAD"
      ? "UPLOAD is not a permission of its own: EDIT governs upload (cu)"
      : `must be one of ${SHARE_PERMISSIONS.join(", ")}`,
});
export type Permission = z.infer<typeof PermissionSchema>;

/** Per share type: whether it is allowed and the most it may grant. */
const TypePolicySchema = z.object({
  allowed: z.boolean().describe("Whether this share type may be created at all"),
  maxPermissions: z.array(PermissionSchema).describe("The most a share of this type may grant"),
}).strict();

export const SharePolicySchema = z.object({
  SPECIFIC_USERS: TypePolicySchema.describe("Shares with named users"),
  ORG_LINK: TypePolicySchema.describe("Links for signed-in members of the organization"),
  PUBLIC_LINK: TypePolicySchema.describe("Links anyone holding them may open"),
}).strict();
export type SharePolicy = z.infer<typeof SharePolicySchema>;

export const TenantSchema = z.object({
  id: z.number().int().describe("The tenant id").openapi({ example: 1 }),
  name: z.string().describe("The tenant's name").openapi({ example: "Acme" }),
  createdAt: z.string().describe("When it was created, ISO 8601"),
  sharePolicy: SharePolicySchema.describe("What its users may share, per share type"),
  /** null: enabled. A disabled tenant's users' keys, adapters and links do not work. */
  disabledAt: z.string().nullable().describe(
    "When it was disabled; null: enabled. A disabled tenant's users' keys, adapters and links do not work",
  ),
});
export type Tenant = z.infer<typeof TenantSchema>;

const Name = z.string().trim().min(1, "must not be empty").max(
  200,
  "must be at most 200 characters",
);

export const CreateTenantBody = z.object({
  name: Name.describe("The tenant's name, 1 to 200 characters").openapi({ example: "Acme" }),
}).strict();

/** A change of name and/or policy; the policy types not named keep their settings. */
export const PatchTenantBody = z.object({
  name: Name.optional().describe("A new name").openapi({ example: "Acme Europe" }),
  sharePolicy: SharePolicySchema.partial().optional().describe(
    "Share types to change; those not named keep their settings",
  ),
}).strict();
export type TenantPatch = z.input<typeof PatchTenantBody>;

// ---------------------------------------------------------------- users

export const UserSchema = z.object({
  userSeq: z.number().int().describe("The user's seq").openapi({ example: 1 }),
  tenantId: z.number().int().describe("The user's tenant").openapi({ example: 1 }),
  accountId: z.string().describe("The sign-in name, unique (case-insensitive)").openapi({
    example: "alice",
  }),
  email: z.string().describe("The e-mail address, unique").openapi({
    example: "alice@example.com",
  }),
  name: z.string().describe("The display name").openapi({ example: "Alice Martin" }),
  quotaBytes: z.number().int().describe(
    "Bytes the user may store, all versions and trash included",
  ),
  /** Bytes of every stored version of the user's files, trash included. */
  usedBytes: z.number().int().describe(
    "Bytes of every stored version of the user's files, trash included",
  ),
  createdAt: z.string().describe("When the user was created, ISO 8601"),
  /** null: enabled. A disabled user's keys, adapters and links do not work; data is kept. */
  disabledAt: z.string().nullable().describe(
    "When disabled; null: enabled. A disabled user's keys, adapters and links do not work; data is kept",
  ),
});
export type User = z.infer<typeof UserSchema>;

const Quota = z.number().int("must be an integer").nonnegative("must not be negative").max(
  Number.MAX_SAFE_INTEGER,
);

export const CreateUserBody = z.object({
  tenantId: z.number().int().positive().describe("The tenant the user belongs to").openapi({
    example: 1,
  }),
  accountId: z.string().trim().min(1, "must not be empty").max(254).regex(
    /^[^\s/\\]+$/,
    "must not contain spaces or slashes",
  ).describe("The sign-in name, unique (case-insensitive); no spaces or slashes").openapi({
    example: "alice",
  }),
  email: z.email("must be an e-mail address").max(254).describe("E-mail address, unique").openapi({
    example: "alice@example.com",
  }),
  name: Name.describe("Display name, 1 to 200 characters").openapi({ example: "Alice Martin" }),
  quotaBytes: Quota.optional().describe("Quota in bytes; omitted: DRIVE_DEFAULT_QUOTA_BYTES")
    .openapi({ example: 10737418240 }),
}).strict();
export type NewUser = z.input<typeof CreateUserBody>;

export const PatchUserBody = z.object({
  name: Name.optional().describe("A new display name").openapi({ example: "Alice Martin" }),
  email: z.email("must be an e-mail address").max(254).optional().describe("A new e-mail address")
    .openapi({ example: "alice@example.com" }),
  quotaBytes: Quota.optional().describe("A new quota in bytes").openapi({ example: 21474836480 }),
}).strict();
export type UserPatch = z.input<typeof PatchUserBody>;

// ---------------------------------------------------------------- API keys

export const ScopeSchema = z.enum(["api:read", "api:write"]);
export type Scope = z.infer<typeof ScopeSchema>;

export const ApiKeySchema = z.object({
  keyId: z.string().describe("The key id: the part between drv_ and the second _ of the key")
    .openapi({ example: "AbCdEf0123456789" }),
  userSeq: z.number().int().describe("The user the key acts as").openapi({ example: 1 }),
  scopes: z.array(ScopeSchema).describe("What the key may do: api:read, and api:write for changes"),
  label: z.string().nullable().describe("A note saying what the key is for; null: none"),
  createdAt: z.string().describe("When it was issued, ISO 8601"),
  revokedAt: z.string().nullable().describe("When it was revoked; null: not revoked"),
  /** null: enabled. Unlike a revocation, disabling is undone by enabling. */
  disabledAt: z.string().nullable().describe(
    "When it was disabled; null: enabled. Unlike a revocation, disabling is undone by enabling",
  ),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** The answer to issuing a key: the key's record and, this once, the key itself. */
export const IssuedApiKeySchema = ApiKeySchema.extend({
  apiKey: z.string().describe("The key itself, shown this once: send it as Authorization: Bearer"),
});
export type IssuedApiKey = z.infer<typeof IssuedApiKeySchema>;

/**
 * An API key id in a path (`drv_<keyId>_<secret>`): letters and digits. Issued ids have 16; the
 * bound leaves room to change that without letting a long id reach a KV key.
 */
export const KEY_ID_PATTERN = /^[A-Za-z0-9]{1,64}$/;
export const KEY_ID_RULE = "1 to 64 letters or digits (the id part of drv_<keyId>_<secret>)";

export const CreateKeyBody = z.object({
  userSeq: z.number().int().positive().describe("The user the key acts as").openapi({ example: 1 }),
  scopes: z.array(ScopeSchema).min(1, "must name at least one scope").describe(
    "api:read, and api:write for changes",
  ),
  label: z.string().max(200).nullish().describe("A note saying what the key is for").openapi({
    example: "sync script",
  }),
}).strict();
export type NewApiKey = z.input<typeof CreateKeyBody>;

// ---------------------------------------------------------------- adapters

export const AdapterOperationSchema = z.enum(OPTIONAL_OPERATIONS);
export type AdapterOperation = z.infer<typeof AdapterOperationSchema>;

export const AdapterSchema = z.object({
  name: z.string().describe("The adapter's name, sent by the host as X-Doc-Storage-Adapter")
    .openapi({ example: "office" }),
  userSeq: z.number().int().describe("The user whose drive the adapter serves").openapi({
    example: 1,
  }),
  /** null: the whole drive of userSeq is the root. */
  folderSeq: z.number().int().nullable().describe(
    "The folder that is the adapter's root; null: the whole drive of userSeq",
  ),
  operations: z.array(AdapterOperationSchema).describe(
    "The optional operations the adapter offers",
  ),
  readOnly: z.boolean().describe("Whether every write is refused"),
  createdAt: z.string().describe("When it was registered, ISO 8601"),
  secretUpdatedAt: z.string().describe("When its secret was last set, ISO 8601"),
});
export type Adapter = z.infer<typeof AdapterSchema>;

/** The answer to registering an adapter: its record and, this once, its secret. */
export const CreatedAdapterSchema = AdapterSchema.extend({
  secret: z.string().describe("The shared secret, shown this once: configure it in the host"),
});
export type CreatedAdapter = z.infer<typeof CreatedAdapterSchema>;

export const RotatedSecretSchema = z.object({
  name: z.string().describe("The adapter's name"),
  secret: z.string().describe("The new secret, shown this once"),
});
export type RotatedSecret = z.infer<typeof RotatedSecretSchema>;

const Secret = z.string().min(1, "must not be empty");

/** What ADAPTER_NAME_PATTERN allows, for messages (the body field and the path parameter). */
export const ADAPTER_NAME_RULE =
  "1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit";

export const CreateAdapterBody = z.object({
  name: z.string().regex(ADAPTER_NAME_PATTERN, ADAPTER_NAME_RULE).describe(
    `The adapter's name: ${ADAPTER_NAME_RULE}`,
  ).openapi({ example: "office" }),
  secret: Secret.optional().describe(
    "The shared secret, at least 32 bytes; omitted: one is generated",
  ),
  userSeq: z.number().int().positive().describe("The user whose drive the adapter serves").openapi({
    example: 1,
  }),
  folderSeq: z.number().int().positive().nullish().describe(
    "A folder of that user as the root; omitted or null: the whole drive",
  ),
  operations: z.array(AdapterOperationSchema).optional().describe(
    "Optional operations to offer; omitted: all",
  ),
  readOnly: z.boolean().optional().describe("Refuse every write; default false"),
}).strict();
export type NewAdapter = z.input<typeof CreateAdapterBody>;

export const RotateSecretBody = z.object({
  secret: Secret.optional().describe("The new secret, at least 32 bytes; omitted: one is generated")
    .openapi({ example: "a-long-random-secret-of-at-least-32-bytes" }),
}).strict();

export const ConnectionTestBody = z.object({
  baseUrl: z.string().optional().describe("The provider's base URL; omitted: DRIVE_PUBLIC_URL")
    .openapi({ example: "https://drive.example.com" }),
}).strict();

/** The connection test's verdict: a signed list of the adapter's root, checked as a host would. */
export const ConnectionTestSchema = z.object({
  ok: z.boolean().describe("Whether the provider answered as the protocol asks"),
  /** null: no HTTP answer at all (network error, timeout). */
  status: z.number().int().nullable().describe(
    "The HTTP status; null: no answer at all (network error, timeout)",
  ),
  durationMs: z.number().describe("How long the request took"),
  /** The entries the provider listed, when it did. */
  entries: z.array(z.unknown()).optional().describe("The entries the provider listed, when it did"),
  /** Each rule of the protocol the answer broke, in words. */
  problems: z.array(z.string()).describe("Each rule of the protocol the answer broke, in words"),
  /** Set when the provider validly answered that it does not support list. */
  unsupported: z.boolean().optional().describe(
    "Set when the provider validly answered that it does not support list",
  ),
  notice: z.string().optional().describe("A remark on a working connection"),
});
export type ConnectionTest = z.infer<typeof ConnectionTestSchema>;

// ---------------------------------------------------------------- share links

export const ShareLinkSchema = z.object({
  shareSeq: z.number().int().describe("The share's seq").openapi({ example: 7 }),
  resourceSeq: z.number().int().describe("The shared file or folder").openapi({ example: 12 }),
  /** null when the resource is gone. */
  resourceName: z.string().nullable().describe("Its name; null when it is gone"),
  ownerSeq: z.number().int().describe("The owner of the shared resource"),
  ownerAccountId: z.string().nullable().describe("The owner's accountId; null when gone")
    .openapi({ example: "alice" }),
  shareType: ShareTypeSchema.describe("ORG_LINK or PUBLIC_LINK"),
  url: z.string().describe("The link"),
  expireDate: z.string().nullable().describe("When it stops working; null: never"),
  isPasswordEnabled: z.boolean().describe("Whether the link asks for a password"),
  createdAt: z.string().describe("When it was created, ISO 8601"),
});
export type ShareLink = z.infer<typeof ShareLinkSchema>;

// ---------------------------------------------------------------- locks

export const DocumentLockSchema = z.object({
  resourceSeq: z.number().int().describe("The locked document").openapi({ example: 12 }),
  /** null when the document is gone. */
  resourceName: z.string().nullable().describe("Its name; null when the document is gone"),
  ownerSeq: z.number().int().nullable().describe("The document's owner; null when it is gone"),
  owner: z.string().describe("Who holds the lock, as the holder named itself"),
  source: z.enum(["provider", "office"]).describe(
    "provider: a storage provider lock; office: an editor lease",
  ),
  /** Adapter name (provider) or user seq (office). */
  holder: z.string().describe("Adapter name (provider) or user seq (office)"),
  lockedAt: z.string().describe("When it was taken, ISO 8601"),
  /** null: no lease (provider locks). */
  expiresAt: z.string().nullable().describe("When the lease ends; null: no lease (provider locks)"),
});
export type DocumentLock = z.infer<typeof DocumentLockSchema>;

export const LockReleaseSchema = z.object({
  resourceSeq: z.number().int().describe("The document released"),
  releasedBy: z.string().describe("Who released it"),
  releasedAt: z.string().describe("When, ISO 8601"),
  lock: DocumentLockSchema.describe("The lock that was released"),
});
export type LockRelease = z.infer<typeof LockReleaseSchema>;

export const ReleaseLockBody = z.object({
  releasedBy: Name.optional().describe('Who releases it, for the record; default "admin"')
    .openapi({ example: "ops on call" }),
}).strict();

// ---------------------------------------------------------------- blobs

export const SweepBody = z.object({
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional().describe(
    "Count only, delete nothing; default false",
  ).openapi({ example: true }),
  minAgeHours: z.number({ error: "minAgeHours must be a number of hours" }).int(
    "minAgeHours must be a whole number of hours",
  ).min(1, "minAgeHours must be at least 1 (younger blobs may be uploads about to commit)")
    .max(8760, "minAgeHours must be at most 8760 (a year)").optional()
    .describe("Leave blobs younger than this alone, 1 to 8760 hours (default 24)"),
}).strict();
export type SweepRequest = z.input<typeof SweepBody>;

/** POST /blobs/sweep's answer (docs/api.md, orphan blob sweep). */
export const BlobSweepSchema = z.object({
  dryRun: z.boolean().describe("Whether this was a dry run"),
  /** Blobs in the store. */
  blobs: z.number().int().describe("Blobs in the store"),
  /** Of those, younger than the minimum age and so left alone. */
  tooYoung: z.number().int().describe("Of those, younger than the minimum age and so left alone"),
  /** Old blobs nothing points at. */
  orphans: z.number().int().describe("Old blobs nothing points at"),
  orphanBytes: z.number().int().describe("Their bytes"),
  /** Orphans deleted (0 on a dry run). */
  removed: z.number().int().describe("Orphans deleted (0 on a dry run)"),
  /** Unfinished writes of dead processes cleared (on a dry run: that a real run would clear). */
  abandonedWrites: z.number().int().describe(
    "Unfinished writes of dead processes cleared (on a dry run: that a real run would clear)",
  ),
});
export type BlobSweep = z.infer<typeof BlobSweepSchema>;

// ---------------------------------------------------------------- paging and search

/**
 * q, limit and cursor of a paged admin list (tenants, users, API keys, share links); `searches`
 * says what q is matched against.
 */
export const adminPageQuery = (searches: string, example: string) =>
  z.object({
    q: z.string().trim().max(200, "q must be at most 200 characters").optional().openapi({
      ...queryParam("q"),
      description: `Search: a case-insensitive prefix of ${searches}`,
      example,
    }),
    limit: z.coerce.number({
      error: `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`,
    }).int(`limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`)
      .min(1, "limit must be at least 1").max(
        MAX_PAGE_LIMIT,
        `limit must be at most ${MAX_PAGE_LIMIT}`,
      )
      .default(DEFAULT_PAGE_LIMIT).openapi({
        ...queryParam("limit"),
        description: `Items per page, 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT})`,
        example: 50,
      }),
    cursor: z.string().max(4000, "cursor must be a nextCursor this API returned").optional()
      .openapi({
        ...queryParam("cursor"),
        description: "nextCursor of the previous page, sent with the same q and filters",
        example: "WyJ1c2VycyIsImFsaSIsbnVsbF0",
      }),
  });

/** A page of a paged admin list: its items and where the next page starts. */
export const pageOf = <T extends z.ZodTypeAny>(item: T, what: string) =>
  z.object({
    items: z.array(item).describe(`${what}, at most limit of them`),
    nextCursor: z.string().nullable().describe(
      "Send as cursor for the next page; null: this page reached the end. A page may hold " +
        "fewer than limit items and still have a nextCursor (a search reads a bounded number " +
        "of entries per page).",
    ).openapi({ example: null }),
  });

/** A page as the console receives it. */
export interface Paged<T> {
  items: T[];
  nextCursor: string | null;
}
