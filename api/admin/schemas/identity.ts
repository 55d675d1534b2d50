/**
 * The admin API's shapes of tenants, users and API keys (api/admin/identity.ts): zod schemas of
 * the request bodies it validates and of the answers it sends, with their inferred types. The
 * console and the CLI import them (the console with `import type` only, so no server code
 * reaches the browser bundle): server, console and CLI cannot disagree about a field without
 * the type check failing.
 */
import { z } from "@hono/zod-openapi";
import { SHARE_PERMISSIONS } from "../../../kv/identity/tenants.ts";
import { seqParam } from "../../http/openapi.ts";
import { ShareTypeSchema } from "../../http/schemas.ts";
import { Name } from "./common.ts";

// ---------------------------------------------------------------- paths

/** The path of a route about one tenant (`/tenants/{id}/...`). */
export const TenantParams = z.object({ id: seqParam("id").describe("The tenant id") });
/** The path of a route about one user (`/users/{userSeq}/...`). */
export const UserParams = z.object({ userSeq: seqParam("userSeq").describe("The user's seq") });
/** The activity log entry of a change to the path's tenant, or user, names it as the target. */
export const ON_TENANT = { targets: { id: "tenantId" } } as const;
export const ON_USER = { targets: { userSeq: "userSeq" } } as const;

// ---------------------------------------------------------------- tenants

export type ShareType = z.infer<typeof ShareTypeSchema>;

/** The spec's four values; UPLOAD is no value of its own (EDIT governs `cu`, see docs/api.md). */
const PermissionSchema = z.enum(SHARE_PERMISSIONS, {
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

const SharePolicySchema = z.object({
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

export const CreateTenantBody = z.object({
  name: Name.describe("The tenant's name, 1 to 200 characters").openapi({ example: "Acme" }),
}).strict();

/** A change of name and/or policy; the policy types not named keep their settings. */
export const PatchTenantBody = z.object({
  name: Name.optional().describe("A new name").openapi({ example: "Acme Europe" }),
  sharePolicy: SharePolicySchema.partial().optional().describe(
    "Share types to change; those not named keep their settings",
  ).openapi({ example: { PUBLIC_LINK: { allowed: false, maxPermissions: [] } } }),
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
  roles: z.array(z.enum(["admin"])).describe(
    "admin: the full admin console and admin API when signed in by name",
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

const ScopeSchema = z.enum(["api:read", "api:write"]);
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
  expiresAt: z.string().nullable().describe("When it stops working, ISO 8601; null: never"),
  createdBy: z.enum(["admin", "user"]).describe(
    "Who made it: an administrator, or the user (an app password, docs/authentication.md)",
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
  ).openapi({ example: ["api:read", "api:write"] }),
  label: z.string().max(200).nullish().describe("A note saying what the key is for").openapi({
    example: "sync script",
  }),
}).strict();
export type NewApiKey = z.input<typeof CreateKeyBody>;
