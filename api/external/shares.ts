/**
 * Share endpoints under /shares: share types, create / read / change / delete, recipients,
 * recipient search and the share-link lookup. Rules live in kv/sharing/ (and the user search's
 * in kv/identity/user_search.ts); this file only validates, calls and shapes responses
 * (documented in docs/api.md, section Shares).
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  authorizeResourceAccess,
  authorizeShareRead,
  type Caller,
} from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { loadPath, toIso } from "../../kv/tree/resources.ts";
import { lookupLinkForCaller } from "../../kv/sharing/share_links.ts";
import {
  changeShare,
  createShare,
  deleteShare,
  setShareTargets,
  type ShareInput,
  type TargetInput,
} from "../../kv/sharing/share_writes.ts";
import {
  flagsToPermissions,
  hierarchyTypes,
  intersectFlags,
  isExpired,
  linkUrlOf,
  policyCap,
  policyOf,
  type Share,
  shareOfResource,
} from "../../kv/sharing/shares.ts";
import { SHARE_PERMISSIONS, type ShareType } from "../../kv/identity/tenants.ts";
import { getUser, type User } from "../../kv/identity/users.ts";
import { searchUsers, userDirectory } from "../../kv/identity/user_search.ts";
import { type ApiEnv, requireWrite } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import {
  bodySeq,
  errorResponses,
  jsonBody,
  jsonOk,
  newOpenApiApp,
  seqParam,
} from "../http/openapi.ts";
import { PermissionsSchema, RsParams, ShareTypeSchema, SsQuery } from "../http/schemas.ts";

const TYPE_NAMES: Record<ShareType, string> = {
  SPECIFIC_USERS: "Specific users",
  ORG_LINK: "Anyone in the organization",
  PUBLIC_LINK: "Anyone with the link",
};

// ---------------------------------------------------------------- schemas

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

const CreateShareBody = z.object({
  rs: z.number().int().positive().describe("The file or folder to share"),
  st: ShareTypeSchema.describe("The share type"),
  ...FlagFields,
  ts: z.array(TargetInputSchema).optional().describe("The recipients (SPECIFIC_USERS only)"),
  password: Password.optional().openapi({ description: "ORG_LINK / PUBLIC_LINK only" }),
  expireDate: ExpireDate.optional(),
}).openapi("CreateShareRequest", { description: "A new share" });

const ChangeShareBody = z.object({
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
}).openapi("ChangeShareRequest", { description: "A change of a share" });

const TargetsBody = z.object({
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

const RecipientSchema = z.object({
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

const ShareSchema = z.object({
  shareSeq: z.number().int().describe("The share's seq"),
  resourceSeq: z.number().int().describe("The file or folder's seq"),
  resourceName: z.string().describe("The file or folder's name"),
  resourceType: z.enum(["FILE", "FOLDER"]).describe("FILE or FOLDER"),
  ownerSeq: z.number().int().describe("The owner's user seq"),
  shareType: ShareTypeSchema.describe("The share's type"),
  permissions: PermissionsSchema,
  password: z.null().openapi({ description: "Never returned; see isPasswordEnabled" }),
  isPasswordEnabled: z.boolean().describe("Whether the link asks for a password"),
  expireDate: z.string().nullable().describe("When it stops working; null: never"),
  isExpired: z.boolean().describe("Whether it has expired"),
  linkUrl: z.string().nullable().describe("The link to open; null for SPECIFIC_USERS"),
  modifiable: z.boolean().describe("Whether the caller may change the share"),
  targets: z.array(RecipientSchema).describe("The recipients"),
  createdAt: z.string().describe("Created, ISO 8601"),
  createdBySeq: z.number().int().describe("Who created it"),
  updatedAt: z.string().describe("Last change, ISO 8601"),
  updatedBySeq: z.number().int().describe("Who last changed it"),
}).openapi("Share", { description: "A share of a file or folder" });

const ShareTypesSchema = z.object({
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

const SearchItem = z.object({
  ...UserFields,
  sameTenant: z.boolean().describe("In the caller's tenant"),
  isRecipient: z.boolean().describe("Already a recipient of the share"),
}).openapi("ShareUserSearchItem", { description: "A user the caller may share with" });

const LinkLookupSchema = z.object({
  resourceSeq: z.number().int().describe("The file or folder's seq"),
  resourceName: z.string().describe("The file or folder's name"),
  resourceType: z.enum(["FILE", "FOLDER"]).describe("FILE or FOLDER"),
  ownerSeq: z.number().int().describe("The owner's user seq"),
  ownerName: z.string().nullable().describe("The owner's display name; null when gone"),
  shareSeq: z.number().int().describe("The share's seq"),
  shareType: ShareTypeSchema.describe("The share's type"),
  isPublicLink: z.boolean().describe("Whether it is a PUBLIC_LINK"),
  redirectUrl: z.string().describe("Where the link leads in the web client"),
  permissions: PermissionsSchema,
}).openapi("ShareLinkLookup", { description: "What a link token leads to" });

const ShareSeqParams = z.object({ shareSeq: seqParam("shareSeq") });

// ---------------------------------------------------------------- views

type TargetBody = z.infer<typeof TargetInputSchema>;

function targetsOf(ts: TargetBody[] | undefined): TargetInput[] | undefined {
  return ts?.map((t) => ({ us: t.us, cv: t.cv, ce: t.ce, cd: t.cd, cu: t.cu, cs: t.cs, se: t.se }));
}

function shareInputOf(body: z.infer<typeof ChangeShareBody>): ShareInput {
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

async function recipientsView(d: Deps, share: Share) {
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

async function shareView(d: Deps, share: Share) {
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
    modifiable: fixed.size === 0,
    targets: await recipientsView(d, share),
    createdAt: toIso(share.createdAt),
    createdBySeq: share.createdBy,
    updatedAt: toIso(share.updatedAt),
    updatedBySeq: share.updatedBy,
  };
}

/** Search results as the API shows them: who they are, and where they stand to the caller. */
async function searchItemsView(d: Deps, caller: Caller, users: User[], recipients: Set<number>) {
  const dir = userDirectory(d.kv);
  return await Promise.all(users.map(async (u) => ({
    ...await userFieldsView(dir, u, u),
    sameTenant: u.tenantId === caller.tenantId,
    isRecipient: recipients.has(u.userSeq),
  })));
}

// ---------------------------------------------------------------- routes

const tags = ["Shares"];

/**
 * Refusals common to creating and changing a share: the tenant's policy, the flags, the
 * recipients, the share type fixed by the hierarchy, and who may write the share.
 */
const SHARE_WRITE_ERRORS = [
  "PERMISSION_003",
  "SHARE_002",
  "SHARE_003",
  "SHARE_004",
  "SHARE_008",
  "SHARE_009",
  "SHARE_010",
  "USER_001",
] as const;

const SearchQuery = z.object({
  // The checks carry their own messages: zod would report any of them with the schema's error.
  sk: z.string({ error: "sk is required" }).trim().min(1, "must not be empty")
    .max(254, "must be at most 254 characters").openapi({
      description: "Search text: part of a name, accountId or e-mail address",
      example: "ali",
    }),
  ...SsQuery.shape,
});

const shareTypesRoute = createRoute({
  method: "get",
  path: "/shares/{resourceSeq}/share-types",
  operationId: "getShareTypes",
  tags,
  summary: "Share types the resource may use and the most each may grant",
  request: { params: RsParams, query: SsQuery },
  responses: {
    ...jsonOk(ShareTypesSchema, "Share types"),
    ...errorResponses("RESOURCE_002", "PERMISSION_002"),
  },
});

const createShareRoute = createRoute({
  method: "post",
  path: "/shares",
  operationId: "createShare",
  tags,
  summary: "Share a resource (owner only)",
  middleware: [requireWrite] as const,
  request: { body: jsonBody(CreateShareBody) },
  responses: {
    ...jsonOk(ShareSchema, "Created", 201),
    ...errorResponses(
      "AUTH_003",
      "RESOURCE_002",
      "PERMISSION_002",
      ...SHARE_WRITE_ERRORS,
      "SHARE_005",
    ),
  },
});

const readShareRoute = createRoute({
  method: "get",
  path: "/shares/{shareSeq}",
  operationId: "getShare",
  tags,
  summary: "Read a share (owner, or a user it reaches with ss)",
  request: { params: ShareSeqParams, query: SsQuery },
  responses: {
    ...jsonOk(ShareSchema, "The share"),
    ...errorResponses("SHARE_006", "PERMISSION_002"),
  },
});

const changeShareRoute = createRoute({
  method: "patch",
  path: "/shares/{shareSeq}",
  operationId: "updateShare",
  tags,
  summary: "Change a share's type, permissions, recipients, password or expiry (owner only)",
  middleware: [requireWrite] as const,
  request: { params: ShareSeqParams, body: jsonBody(ChangeShareBody) },
  responses: {
    ...jsonOk(ShareSchema, "The changed share"),
    ...errorResponses("AUTH_003", "SHARE_006", ...SHARE_WRITE_ERRORS),
  },
});

const setTargetsRoute = createRoute({
  method: "put",
  path: "/shares/{shareSeq}/targets",
  operationId: "replaceShareTargets",
  tags,
  summary: "Replace the recipients (owner or re-share holder)",
  middleware: [requireWrite] as const,
  request: { params: ShareSeqParams, body: jsonBody(TargetsBody) },
  responses: {
    ...jsonOk(ShareSchema, "The share with its new recipients"),
    ...errorResponses(
      "AUTH_003",
      "PERMISSION_002",
      "PERMISSION_003",
      "SHARE_003",
      "SHARE_006",
      "SHARE_009",
      "SHARE_010",
      "USER_001",
    ),
  },
});

const deleteShareRoute = createRoute({
  method: "delete",
  path: "/shares/{shareSeq}",
  operationId: "deleteShare",
  tags,
  summary: "Remove a share (owner only): everyone loses access, links stop resolving",
  middleware: [requireWrite] as const,
  request: { params: ShareSeqParams },
  responses: {
    ...jsonOk(
      z.object({
        shareSeq: z.number().int().describe("The share's seq"),
        resourceSeq: z.number().int().describe("The file or folder's seq"),
      }),
      "Removed",
    ),
    ...errorResponses("AUTH_003", "SHARE_006", "SHARE_010"),
  },
});

const recipientsRoute = createRoute({
  method: "get",
  path: "/shares/{shareSeq}/users",
  operationId: "listShareUsers",
  tags,
  summary: "Current recipients",
  request: { params: ShareSeqParams, query: SsQuery },
  responses: {
    ...jsonOk(z.object({ items: z.array(RecipientSchema).describe("The items") }), "Recipients"),
    ...errorResponses("SHARE_006", "PERMISSION_002"),
  },
});

const searchForShareRoute = createRoute({
  method: "get",
  path: "/shares/{shareSeq}/users/search",
  operationId: "searchShareUsers",
  tags,
  summary: "Find users to add to an existing share",
  request: { params: ShareSeqParams, query: SearchQuery },
  responses: {
    ...jsonOk(z.object({ items: z.array(SearchItem).describe("The items") }), "Matches"),
    ...errorResponses("SHARE_006", "PERMISSION_002"),
  },
});

const searchRoute = createRoute({
  method: "get",
  path: "/shares/users/search",
  operationId: "searchUsersToShareWith",
  tags,
  summary: "Find users for a share being composed",
  request: { query: SearchQuery },
  responses: {
    ...jsonOk(z.object({ items: z.array(SearchItem).describe("The items") }), "Matches"),
    ...errorResponses(),
  },
});

const linkRoute = createRoute({
  method: "get",
  path: "/shares/link/{token}",
  operationId: "resolveShareLink",
  tags,
  summary: "Resolve a share-link token for the key's account",
  request: {
    params: z.object({
      token: z.string().max(200).openapi({
        param: { name: "token", in: "path" },
        description: "The link token: the last segment of the link's URL /s/{token}",
        example: "Xy7_k2Lq9mP0aBcD",
      }),
    }),
  },
  responses: {
    ...jsonOk(LinkLookupSchema, "The linked resource"),
    ...errorResponses("SHARE_007", "PERMISSION_002"),
  },
});

export function sharesApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  // Static paths first so "users" and "link" are never read as a share seq.
  app.openapi(searchRoute, async (c) => {
    const q = c.req.valid("query");
    const caller = c.get("caller");
    const users = await searchUsers(d.kv, {
      tenantId: caller.tenantId,
      query: q.sk,
      exclude: new Set([q.ss ?? caller.userSeq]),
    });
    return ok(c, { items: await searchItemsView(d, caller, users, new Set()) });
  });

  app.openapi(linkRoute, async (c) => {
    const caller = c.get("caller");
    const found = await lookupLinkForCaller(d.kv, caller, c.req.valid("param").token);
    const owner = await getUser(d.kv, found.resource.ownerSeq);
    return ok(c, {
      resourceSeq: found.resource.rs,
      resourceName: found.resource.name,
      resourceType: found.resource.type,
      ownerSeq: found.resource.ownerSeq,
      ownerName: owner?.name ?? null,
      shareSeq: found.share.shareSeq,
      shareType: found.share.type,
      isPublicLink: found.share.type === "PUBLIC_LINK",
      redirectUrl: linkUrlOf(d.config.publicUrl, found.share)!,
      permissions: found.permissions,
    });
  });

  app.openapi(shareTypesRoute, async (c) => {
    const caller = c.get("caller");
    const { resourceSeq } = c.req.valid("param");
    const access = await authorizeResourceAccess(d.kv, caller, {
      rs: resourceSeq,
      ss: c.req.valid("query").ss,
    }, "view");
    const policy = await policyOf(d.kv, access.resource.tenantId);
    const own = await shareOfResource(d.kv, resourceSeq);
    const fixed = await hierarchyTypes(d.kv, access.path, own?.shareSeq ?? null);
    const usable = (t: ShareType) => policy[t].allowed && (fixed.size === 0 || fixed.has(t));
    return ok(c, {
      editable: access.isOwner && fixed.size === 0,
      allowSpecificUsers: usable("SPECIFIC_USERS"),
      allowOrgLink: usable("ORG_LINK"),
      allowPublic: usable("PUBLIC_LINK"),
      shareTypes: ShareTypeSchema.options.filter(usable).map((code) => ({
        code,
        name: TYPE_NAMES[code],
        allowedPermissions: policy[code].maxPermissions,
      })),
      currentShareSeq: own?.shareSeq ?? null,
      currentType: own?.type ?? null,
      fixedType: fixed.size === 1 ? [...fixed][0] : null,
    });
  });

  app.openapi(createShareRoute, async (c) => {
    const body: z.infer<typeof CreateShareBody> = c.req.valid("json");
    const share = await createShare(d, c.get("caller"), body.rs, shareInputOf(body));
    return ok(c, await shareView(d, share), 201);
  });

  app.openapi(readShareRoute, async (c) => {
    const { ss } = c.req.valid("query");
    const view = await authorizeShareRead(d.kv, c.get("caller"), c.req.valid("param").shareSeq, ss);
    return ok(c, await shareView(d, view.share));
  });

  app.openapi(changeShareRoute, async (c) => {
    const body: z.infer<typeof ChangeShareBody> = c.req.valid("json");
    const { shareSeq } = c.req.valid("param");
    const share = await changeShare(d, c.get("caller"), shareSeq, shareInputOf(body));
    return ok(c, await shareView(d, share));
  });

  app.openapi(setTargetsRoute, async (c) => {
    const body = c.req.valid("json");
    const share = await setShareTargets(d, c.get("caller"), c.req.valid("param").shareSeq, {
      ts: targetsOf(body.ts) ?? [],
      ss: body.ss,
    });
    return ok(c, await shareView(d, share));
  });

  app.openapi(deleteShareRoute, async (c) => {
    const share = await deleteShare(d, c.get("caller"), c.req.valid("param").shareSeq);
    return ok(c, { shareSeq: share.shareSeq, resourceSeq: share.rs });
  });

  app.openapi(recipientsRoute, async (c) => {
    const { ss } = c.req.valid("query");
    const view = await authorizeShareRead(d.kv, c.get("caller"), c.req.valid("param").shareSeq, ss);
    return ok(c, { items: await recipientsView(d, view.share) });
  });

  app.openapi(searchForShareRoute, async (c) => {
    const q = c.req.valid("query");
    const caller = c.get("caller");
    const view = await authorizeShareRead(d.kv, caller, c.req.valid("param").shareSeq, q.ss);
    const recipients = new Set(view.share.targets.map((t) => t.userSeq));
    const users = await searchUsers(d.kv, {
      tenantId: caller.tenantId,
      query: q.sk,
      exclude: new Set([view.share.ownerSeq]),
    });
    return ok(c, { items: await searchItemsView(d, caller, users, recipients) });
  });

  return app;
}
