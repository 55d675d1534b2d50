/**
 * The shapes of the admin API (docs/api.md, admin API): zod schemas of the request bodies it
 * validates and of the answers it sends, with their inferred types. The routes validate with
 * these schemas and type their answers with these types, and the admin console imports the
 * types (`import type` only, so no server code reaches the browser bundle): the server and the
 * console cannot disagree about a field without the type check failing.
 */
import { z } from "zod";
import { SHARE_PERMISSIONS } from "../../kv/identity/tenants.ts";
import { ADAPTER_NAME_PATTERN } from "../../provider/state/adapters.ts";
import { OPTIONAL_OPERATIONS } from "../../provider/state/operations.ts";
import { ShareTypeSchema } from "../http/schemas.ts";

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
  allowed: z.boolean(),
  maxPermissions: z.array(PermissionSchema),
}).strict();

export const SharePolicySchema = z.object({
  SPECIFIC_USERS: TypePolicySchema,
  ORG_LINK: TypePolicySchema,
  PUBLIC_LINK: TypePolicySchema,
}).strict();
export type SharePolicy = z.infer<typeof SharePolicySchema>;

export const TenantSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  sharePolicy: SharePolicySchema,
});
export type Tenant = z.infer<typeof TenantSchema>;

const Name = z.string().trim().min(1, "must not be empty").max(
  200,
  "must be at most 200 characters",
);

export const CreateTenantBody = z.object({ name: Name }).strict();

/** A change of name and/or policy; the policy types not named keep their settings. */
export const PatchTenantBody = z.object({
  name: Name.optional(),
  sharePolicy: SharePolicySchema.partial().optional(),
}).strict();
export type TenantPatch = z.input<typeof PatchTenantBody>;

// ---------------------------------------------------------------- users

export const UserSchema = z.object({
  userSeq: z.number().int(),
  tenantId: z.number().int(),
  accountId: z.string(),
  email: z.string(),
  name: z.string(),
  quotaBytes: z.number().int(),
  /** Bytes of every stored version of the user's files, trash included. */
  usedBytes: z.number().int(),
  createdAt: z.string(),
});
export type User = z.infer<typeof UserSchema>;

const Quota = z.number().int("must be an integer").nonnegative("must not be negative").max(
  Number.MAX_SAFE_INTEGER,
);

export const CreateUserBody = z.object({
  tenantId: z.number().int().positive(),
  accountId: z.string().trim().min(1, "must not be empty").max(254).regex(
    /^[^\s/\\]+$/,
    "must not contain spaces or slashes",
  ),
  email: z.email("must be an e-mail address").max(254),
  name: Name,
  quotaBytes: Quota.optional(),
}).strict();
export type NewUser = z.input<typeof CreateUserBody>;

export const PatchUserBody = z.object({
  name: Name.optional(),
  email: z.email("must be an e-mail address").max(254).optional(),
  quotaBytes: Quota.optional(),
}).strict();
export type UserPatch = z.input<typeof PatchUserBody>;

// ---------------------------------------------------------------- API keys

export const ScopeSchema = z.enum(["api:read", "api:write"]);
export type Scope = z.infer<typeof ScopeSchema>;

export const ApiKeySchema = z.object({
  keyId: z.string(),
  userSeq: z.number().int(),
  scopes: z.array(ScopeSchema),
  label: z.string().nullable(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKeySchema>;

/** The answer to issuing a key: the key's record and, this once, the key itself. */
export const IssuedApiKeySchema = ApiKeySchema.extend({ apiKey: z.string() });
export type IssuedApiKey = z.infer<typeof IssuedApiKeySchema>;

/**
 * An API key id in a path (`drv_<keyId>_<secret>`): letters and digits. Issued ids have 16; the
 * bound leaves room to change that without letting a long id reach a KV key.
 */
export const KEY_ID_PATTERN = /^[A-Za-z0-9]{1,64}$/;
export const KEY_ID_RULE = "1 to 64 letters or digits (the id part of drv_<keyId>_<secret>)";

export const CreateKeyBody = z.object({
  userSeq: z.number().int().positive(),
  scopes: z.array(ScopeSchema).min(1, "must name at least one scope"),
  label: z.string().max(200).nullish(),
}).strict();
export type NewApiKey = z.input<typeof CreateKeyBody>;

// ---------------------------------------------------------------- adapters

export const AdapterOperationSchema = z.enum(OPTIONAL_OPERATIONS);
export type AdapterOperation = z.infer<typeof AdapterOperationSchema>;

export const AdapterSchema = z.object({
  name: z.string(),
  userSeq: z.number().int(),
  /** null: the whole drive of userSeq is the root. */
  folderSeq: z.number().int().nullable(),
  operations: z.array(AdapterOperationSchema),
  readOnly: z.boolean(),
  createdAt: z.string(),
  secretUpdatedAt: z.string(),
});
export type Adapter = z.infer<typeof AdapterSchema>;

/** The answer to registering an adapter: its record and, this once, its secret. */
export const CreatedAdapterSchema = AdapterSchema.extend({ secret: z.string() });
export type CreatedAdapter = z.infer<typeof CreatedAdapterSchema>;

export const RotatedSecretSchema = z.object({ name: z.string(), secret: z.string() });
export type RotatedSecret = z.infer<typeof RotatedSecretSchema>;

const Secret = z.string().min(1, "must not be empty");

/** What ADAPTER_NAME_PATTERN allows, for messages (the body field and the path parameter). */
export const ADAPTER_NAME_RULE =
  "1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit";

export const CreateAdapterBody = z.object({
  name: z.string().regex(ADAPTER_NAME_PATTERN, ADAPTER_NAME_RULE),
  secret: Secret.optional(),
  userSeq: z.number().int().positive(),
  folderSeq: z.number().int().positive().nullish(),
  operations: z.array(AdapterOperationSchema).optional(),
  readOnly: z.boolean().optional(),
}).strict();
export type NewAdapter = z.input<typeof CreateAdapterBody>;

export const RotateSecretBody = z.object({ secret: Secret.optional() }).strict();

export const ConnectionTestBody = z.object({ baseUrl: z.string().optional() }).strict();

/** The connection test's verdict: a signed list of the adapter's root, checked as a host would. */
export const ConnectionTestSchema = z.object({
  ok: z.boolean(),
  /** null: no HTTP answer at all (network error, timeout). */
  status: z.number().int().nullable(),
  durationMs: z.number(),
  /** The entries the provider listed, when it did. */
  entries: z.array(z.unknown()).optional(),
  /** Each rule of the protocol the answer broke, in words. */
  problems: z.array(z.string()),
  /** Set when the provider validly answered that it does not support list. */
  unsupported: z.boolean().optional(),
  notice: z.string().optional(),
});
export type ConnectionTest = z.infer<typeof ConnectionTestSchema>;

// ---------------------------------------------------------------- share links

export const ShareLinkSchema = z.object({
  shareSeq: z.number().int(),
  resourceSeq: z.number().int(),
  /** null when the resource is gone. */
  resourceName: z.string().nullable(),
  ownerSeq: z.number().int(),
  shareType: ShareTypeSchema,
  url: z.string(),
  expireDate: z.string().nullable(),
  isPasswordEnabled: z.boolean(),
  createdAt: z.string(),
});
export type ShareLink = z.infer<typeof ShareLinkSchema>;

// ---------------------------------------------------------------- locks

export const DocumentLockSchema = z.object({
  resourceSeq: z.number().int(),
  /** null when the document is gone. */
  resourceName: z.string().nullable(),
  ownerSeq: z.number().int().nullable(),
  owner: z.string(),
  source: z.enum(["provider", "office"]),
  /** Adapter name (provider) or user seq (office). */
  holder: z.string(),
  lockedAt: z.string(),
  /** null: no lease (provider locks). */
  expiresAt: z.string().nullable(),
});
export type DocumentLock = z.infer<typeof DocumentLockSchema>;

export const LockReleaseSchema = z.object({
  resourceSeq: z.number().int(),
  releasedBy: z.string(),
  releasedAt: z.string(),
  lock: DocumentLockSchema,
});
export type LockRelease = z.infer<typeof LockReleaseSchema>;

export const ReleaseLockBody = z.object({ releasedBy: Name.optional() }).strict();

// ---------------------------------------------------------------- blobs

export const SweepBody = z.object({
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  minAgeHours: z.number({ error: "minAgeHours must be a number of hours" }).int(
    "minAgeHours must be a whole number of hours",
  ).min(1, "minAgeHours must be at least 1 (younger blobs may be uploads about to commit)")
    .max(8760, "minAgeHours must be at most 8760 (a year)").optional(),
}).strict();
export type SweepRequest = z.input<typeof SweepBody>;

/** POST /blobs/sweep's answer (docs/api.md, orphan blob sweep). */
export const BlobSweepSchema = z.object({
  dryRun: z.boolean(),
  /** Blobs in the store. */
  blobs: z.number().int(),
  /** Of those, younger than the minimum age and so left alone. */
  tooYoung: z.number().int(),
  /** Old blobs nothing points at. */
  orphans: z.number().int(),
  orphanBytes: z.number().int(),
  /** Orphans deleted (0 on a dry run). */
  removed: z.number().int(),
  /** Unfinished writes of dead processes cleared (on a dry run: that a real run would clear). */
  abandonedWrites: z.number().int(),
});
export type BlobSweep = z.infer<typeof BlobSweepSchema>;
