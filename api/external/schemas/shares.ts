/**
 * The shapes of the share endpoints (api/external/shares.ts): request bodies, answers and the
 * views that fill them from kv/sharing/ records.
 */
import { z } from "@hono/zod-openapi";
import type { Caller } from "../../../kv/sharing/authorize.ts";
import type { Deps } from "../../../kv/deps.ts";
import { loadPath, toIso } from "../../../kv/tree/resources.ts";
import type { ShareInput } from "../../../kv/sharing/share_writes.ts";
import type { TargetInput } from "../../../kv/sharing/share_targets.ts";
import {
  flagsToPermissions,
  hierarchyTypes,
  intersectFlags,
  isExpired,
  linkUrlOf,
  policyCap,
  policyOf,
  type Share,
} from "../../../kv/sharing/shares.ts";
import { SHARE_PERMISSIONS, type ShareType } from "../../../kv/identity/tenants.ts";
import type { User } from "../../../kv/identity/users.ts";
import { userDirectory } from "../../../kv/identity/user_search.ts";
import { bodySeq, seqParam } from "../../http/openapi.ts";
import { PermissionsSchema, ShareTypeSchema, SsQuery } from "../../http/schemas.ts";

/** Each share type's name, as the share-types answer shows it. */
export const TYPE_NAMES: Record<ShareType, string> = {
  SPECIFIC_USERS: "Specific users",
  ORG_LINK: "Anyone in the organization",
  PUBLIC_LINK: "Anyone with the link",
};

const Flag = (what: string) => z.boolean().optional().openapi({ description: what });
const FlagFields = {
  cv: Flag("View; the prerequisite of every other flag"),
  ce: Flag("Edit (also allows delete)"),
  cd: Flag("Download"),
  cu: Flag("Upload"),
  cs: Flag("Re-share (set recipients); never for ORG_LINK / PUBLIC_LINK"),
};
const TargetInputSchema = z.object({
  us: z.number().int().positive().describe("The recipient's user seq").openapi({ example: 2 }),
  cv: z.boolean().describe("View; the prerequisite of every other flag"),
  ce: z.boolean().describe("Edit (also allows delete)"),
  cd: z.boolean().describe("Download"),
  cu: z.boolean().describe("Upload"),
  cs: z.boolean().describe("Re-share (set recipients)"),
  se: z.boolean().optional().openapi({ description: "Send this recipient a notification" }),
}).openapi("ShareTargetInput", { description: "A recipient and what they may do" });
const Password = z.string().min(4, "must be at least 4 characters").max(128);
const ExpireDate = z.string().max(40).openapi({
  description: "ISO date (valid through that day, UTC) or date-time; must be in the future",
  example: "2030-12-31",
});

/** The upload-only link (docs/api.md, "File requests"). */
const FileRequestFlag = z.boolean().optional().openapi({
  description: "An upload-only file request: a PUBLIC_LINK on a folder with cv and cu only " +
    "(SHARE_011 otherwise); visitors may upload but see nothing of the folder. Omitted: " +
    "false on create, unchanged on change",
  example: false,
});

export const CreateShareBody = z.object({
  rs: z.number().int().positive().describe("The file or folder to share"),
  st: ShareTypeSchema.describe("The share type"),
  ...FlagFields,
  ts: z.array(TargetInputSchema).optional().describe("The recipients (SPECIFIC_USERS only)"),
  password: Password.optional().openapi({ description: "ORG_LINK / PUBLIC_LINK only" }),
  expireDate: ExpireDate.optional(),
  fileRequest: FileRequestFlag,
}).openapi("CreateShareRequest", { description: "A new share" });

export const ChangeShareBody = z.object({
  st: ShareTypeSchema.describe("The share type"),
  ...FlagFields,
  ts: z.array(TargetInputSchema).optional().openapi({
    description: "Replaces the recipients (SPECIFIC_USERS only); omitted = unchanged",
  }),
  password: Password.nullable().optional().openapi({
    description: "Omitted = unchanged, null = removed",
  }),
  expireDate: ExpireDate.nullable().optional().openapi({
    description: "Omitted = unchanged, null = removed",
  }),
  fileRequest: FileRequestFlag,
}).openapi("ChangeShareRequest", { description: "A change of a share" });

export const TargetsBody = z.object({
  ts: z.array(TargetInputSchema).optional().describe(
    "The new recipients; omitted or empty removes them all",
  ),
  ss: bodySeq("Owner's user seq when the caller is a re-sharing recipient"),
}).openapi("SetShareTargetsRequest", { description: "The new recipients of a share" });

/** Who a user is, as recipients and user search results show it. */
const UserFields = {
  userSeq: z.number().int().describe("The user's seq"),
  accountId: z.string().describe("The sign-in name"),
  name: z.string().describe("The display name"),
  email: z.string().describe("The e-mail address"),
  tenantId: z.number().int().describe("The tenant's id"),
  tenantName: z.string().nullable().describe("The tenant's name; null when gone"),
};

export const RecipientSchema = z.object({
  ...UserFields,
  status: z.enum(["ACTIVE", "EXPIRED", "REMOVED"]).openapi({
    description: "ACTIVE; EXPIRED when the share expired; REMOVED when the user no longer exists",
  }),
  permissions: PermissionsSchema,
  sharedAt: z.string().describe("When it was shared with this recipient, ISO 8601"),
  sharedBySeq: z.number().int().describe("Who shared with this recipient"),
  changedAt: z.string().describe("When this recipient's access last changed, ISO 8601"),
  changedBySeq: z.number().int().describe("Who last changed it"),
}).openapi("ShareRecipient", { description: "A recipient of a share" });

/** The shared file or folder, as a share and a link lookup name it. */
const SharedResourceFields = {
  resourceSeq: z.number().int().describe("The file or folder's seq"),
  resourceName: z.string().describe("The file or folder's name"),
  resourceType: z.enum(["FILE", "FOLDER"]).describe("FILE or FOLDER"),
  ownerSeq: z.number().int().describe("The owner's user seq"),
};

export const ShareSchema = z.object({
  shareSeq: z.number().int().describe("The share's seq"),
  ...SharedResourceFields,
  shareType: ShareTypeSchema.describe("The share's type"),
  permissions: PermissionsSchema,
  password: z.null().openapi({ description: "Never returned; see isPasswordEnabled" }),
  isPasswordEnabled: z.boolean().describe("Whether the link asks for a password"),
  expireDate: z.string().nullable().describe("When it stops working; null: never"),
  isExpired: z.boolean().describe("Whether it has expired"),
  linkUrl: z.string().nullable().describe("The link to open; null for SPECIFIC_USERS"),
  fileRequest: z.boolean().describe("Whether the link is an upload-only file request"),
  modifiable: z.boolean().describe("Whether the caller may change the share"),
  targets: z.array(RecipientSchema).describe("The recipients"),
  createdAt: z.string().describe("Created, ISO 8601"),
  createdBySeq: z.number().int().describe("Who created it"),
  updatedAt: z.string().describe("Last change, ISO 8601"),
  updatedBySeq: z.number().int().describe("Who last changed it"),
}).openapi("Share", { description: "A share of a file or folder" });

export const ShareTypesSchema = z.object({
  editable: z.boolean().describe("Whether the caller may share it"),
  allowSpecificUsers: z.boolean().describe("The tenant allows SPECIFIC_USERS"),
  allowOrgLink: z.boolean().describe("The tenant allows ORG_LINK"),
  allowPublic: z.boolean().describe("The tenant allows PUBLIC_LINK"),
  shareTypes: z.array(z.object({
    code: ShareTypeSchema.describe("The share type"),
    name: z.string().describe("The share type's name"),
    allowedPermissions: z.array(z.enum(SHARE_PERMISSIONS)).openapi({
      description: "The most a share of this type may grant; EDIT also governs upload (cu)",
    }),
  })).describe("Each share type with what it may grant"),
  currentShareSeq: z.number().int().nullable().describe("The resource's share; null: none"),
  currentType: ShareTypeSchema.nullable().describe("Its type; null: not shared"),
  fixedType: ShareTypeSchema.nullable().openapi({
    description: "The type another resource of the hierarchy imposes, if any",
  }),
}).openapi("ShareTypes", { description: "Which share types the caller may use for a resource" });

export const SearchItem = z.object({
  ...UserFields,
  sameTenant: z.boolean().describe("In the caller's tenant"),
  isRecipient: z.boolean().describe("Already a recipient of the share"),
}).openapi("ShareUserSearchItem", { description: "A user the caller may share with" });

export const LinkLookupSchema = z.object({
  ...SharedResourceFields,
  ownerName: z.string().nullable().describe("The owner's display name; null when gone"),
  shareSeq: z.number().int().describe("The share's seq"),
  shareType: ShareTypeSchema.describe("The share's type"),
  isPublicLink: z.boolean().describe("Whether it is a PUBLIC_LINK"),
  redirectUrl: z.string().describe("Where the link leads in the web client"),
  permissions: PermissionsSchema,
}).openapi("ShareLinkLookup", { description: "What a link token leads to" });

export const ShareSeqParams = z.object({ shareSeq: seqParam("shareSeq") });

// ---------------------------------------------------------------- views: the schemas filled

type TargetBody = z.infer<typeof TargetInputSchema>;

export function targetsOf(ts: TargetBody[] | undefined): TargetInput[] | undefined {
  return ts?.map((t) => ({ us: t.us, cv: t.cv, ce: t.ce, cd: t.cd, cu: t.cu, cs: t.cs, se: t.se }));
}

export function shareInputOf(body: z.infer<typeof ChangeShareBody>): ShareInput {
  return {
    st: body.st,
    cv: body.cv,
    ce: body.ce,
    cd: body.cd,
    cu: body.cu,
    cs: body.cs,
    ts: targetsOf(body.ts),
    password: body.password,
    expireDate: body.expireDate,
    fileRequest: body.fileRequest,
  };
}

/**
 * UserFields of `user`; a user that no longer exists (null) shows only the seq and tenant `known`
 * records.
 */
async function userFieldsView(
  dir: ReturnType<typeof userDirectory>,
  user: User | null,
  known: { userSeq: number; tenantId: number },
) {
  const tenantId = user?.tenantId ?? known.tenantId;
  return {
    userSeq: known.userSeq,
    accountId: user?.accountId ?? "",
    name: user?.name ?? "",
    email: user?.email ?? "",
    tenantId,
    tenantName: (await dir.tenant(tenantId))?.name ?? null,
  };
}

export async function recipientsView(d: Deps, share: Share) {
  const dir = userDirectory(d.kv);
  const policy = await policyOf(d.kv, share.tenantId);
  const cap = intersectFlags(policyCap(policy, share.type), share.flags);
  const expired = isExpired(share);
  return await Promise.all(share.targets.map(async (t) => {
    const user = await dir.user(t.userSeq);
    return {
      ...await userFieldsView(dir, user, t),
      status: !user ? "REMOVED" as const : expired ? "EXPIRED" as const : "ACTIVE" as const,
      permissions: flagsToPermissions(intersectFlags(t.flags, cap)),
      sharedAt: toIso(t.addedAt),
      sharedBySeq: t.addedBy,
      changedAt: toIso(t.changedAt),
      changedBySeq: t.changedBy,
    };
  }));
}

export async function shareView(d: Deps, share: Share) {
  const loaded = await loadPath(d.kv, share.rs);
  const resource = loaded?.path[0];
  // The type is fixed when another resource of the hierarchy is shared too.
  const fixed = loaded ? await hierarchyTypes(d.kv, loaded.path, share.shareSeq) : new Set();
  return {
    shareSeq: share.shareSeq,
    resourceSeq: share.rs,
    resourceName: resource?.name ?? "",
    resourceType: resource?.type ?? "FILE",
    ownerSeq: share.ownerSeq,
    shareType: share.type,
    permissions: flagsToPermissions(share.flags),
    password: null,
    isPasswordEnabled: share.passwordHash !== null,
    expireDate: share.expiresAt === null ? null : toIso(share.expiresAt),
    isExpired: isExpired(share),
    linkUrl: linkUrlOf(d.config.publicUrl, share),
    fileRequest: share.fileRequest === true,
    modifiable: fixed.size === 0,
    targets: await recipientsView(d, share),
    createdAt: toIso(share.createdAt),
    createdBySeq: share.createdBy,
    updatedAt: toIso(share.updatedAt),
    updatedBySeq: share.updatedBy,
  };
}

/** Search results as the API shows them: who they are, and where they stand to the caller. */
export async function searchItemsView(
  d: Deps,
  caller: Caller,
  users: User[],
  recipients: Set<number>,
) {
  const dir = userDirectory(d.kv);
  return await Promise.all(users.map(async (u) => ({
    ...await userFieldsView(dir, u, u),
    sameTenant: u.tenantId === caller.tenantId,
    isRecipient: recipients.has(u.userSeq),
  })));
}

export const SearchQuery = z.object({
  // The checks carry their own messages: zod would report any of them with the schema's error.
  sk: z.string({ error: "sk is required" }).trim().min(1, "must not be empty")
    .max(254, "must be at most 254 characters").openapi({
      description: "Search text: part of a name, accountId or e-mail address",
      example: "bob",
    }),
  ...SsQuery.shape,
});
