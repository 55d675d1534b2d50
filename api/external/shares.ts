/**
 * Share endpoints under /shares: share types, create / read / change / delete, recipients,
 * recipient search and the share-link lookup. Rules live in kv/sharing/ (and the user search's
 * in kv/identity/user_search.ts); this file only validates, calls and shapes responses
 * (documented in docs/api.md, section Shares), with the shapes of ./schemas/shares.ts.
 */
import { z } from "@hono/zod-openapi";
import { authorizeResourceAccess, authorizeShareRead } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { lookupLinkForCaller } from "../../kv/sharing/share_links.ts";
import {
  changeShare,
  createShare,
  deleteShare,
  setShareTargets,
} from "../../kv/sharing/share_writes.ts";
import { hierarchyTypes, linkUrlOf, policyOf, shareOfResource } from "../../kv/sharing/shares.ts";
import type { ShareType } from "../../kv/identity/tenants.ts";
import { getUser } from "../../kv/identity/users.ts";
import { searchUsers } from "../../kv/identity/user_search.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { jsonAnswers, jsonBody, newOpenApiApp } from "../http/openapi.ts";
import { changed, created, driveRoutes } from "../http/write_routes.ts";
import { itemsOf, RsParams, ShareTypeSchema, SsQuery } from "../http/schemas.ts";
import {
  ChangeShareBody,
  CreateShareBody,
  LinkLookupSchema,
  RecipientSchema,
  recipientsView,
  SearchItem,
  searchItemsView,
  SearchQuery,
  shareInputOf,
  ShareSchema,
  ShareSeqParams,
  ShareTypesSchema,
  shareView,
  TargetsBody,
  targetsOf,
  TYPE_NAMES,
} from "./schemas/shares.ts";

// ---------------------------------------------------------------- routes

const { route, write } = driveRoutes("Shares");

/** User 2 of the examples' world may view and download. */
const BOB_VIEWS = { us: 2, cv: true, ce: false, cd: true, cu: false, cs: false };
/** Shares file 2 with user 2 (tests/drive/openapi_examples_test.ts replays it). */
const CREATE_SHARE_EXAMPLE = {
  rs: 2,
  st: "SPECIFIC_USERS" as const,
  cv: true,
  cd: true,
  ts: [BOB_VIEWS],
};

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

/** Why a share cannot be read: there is none, or it does not reach the caller (with ss). */
const SHARE_READ_ERRORS = ["SHARE_006", "PERMISSION_002"] as const;

const shareTypesRoute = route("get", "/shares/{resourceSeq}/share-types", "getShareTypes", {
  summary: "Share types the resource may use and the most each may grant",
  request: { params: RsParams, query: SsQuery },
  responses: jsonAnswers(ShareTypesSchema, "Share types", "RESOURCE_002", "PERMISSION_002"),
});

const createShareRoute = write("post", "/shares", "createShare", {
  summary: "Share a resource (owner only)",
  request: { body: jsonBody(CreateShareBody, true, CREATE_SHARE_EXAMPLE) },
  responses: created(
    ShareSchema,
    "Created",
    "RESOURCE_002",
    "PERMISSION_002",
    ...SHARE_WRITE_ERRORS,
    "SHARE_005",
  ),
});

const readShareRoute = route("get", "/shares/{shareSeq}", "getShare", {
  summary: "Read a share (owner, or a user it reaches with ss)",
  request: { params: ShareSeqParams, query: SsQuery },
  responses: jsonAnswers(ShareSchema, "The share", ...SHARE_READ_ERRORS),
});

const changeShareRoute = write("patch", "/shares/{shareSeq}", "updateShare", {
  summary: "Change a share's type, permissions, recipients, password or expiry (owner only)",
  request: {
    params: ShareSeqParams,
    body: jsonBody(ChangeShareBody, true, { st: "SPECIFIC_USERS", cv: true, cd: true }),
  },
  responses: changed(ShareSchema, "The changed share", "SHARE_006", ...SHARE_WRITE_ERRORS),
});

const setTargetsRoute = write("put", "/shares/{shareSeq}/targets", "replaceShareTargets", {
  summary: "Replace the recipients (owner or re-share holder)",
  request: { params: ShareSeqParams, body: jsonBody(TargetsBody, true, { ts: [BOB_VIEWS] }) },
  responses: changed(
    ShareSchema,
    "The share with its new recipients",
    "PERMISSION_002",
    "PERMISSION_003",
    "SHARE_003",
    "SHARE_006",
    "SHARE_009",
    "SHARE_010",
    "USER_001",
  ),
});

const deleteShareRoute = write("delete", "/shares/{shareSeq}", "deleteShare", {
  summary: "Remove a share (owner only): everyone loses access, links stop resolving",
  request: { params: ShareSeqParams },
  responses: changed(
    z.object({
      shareSeq: z.number().int().describe("The share's seq"),
      resourceSeq: z.number().int().describe("The file or folder's seq"),
    }),
    "Removed",
    "SHARE_006",
    "SHARE_010",
  ),
});

const recipientsRoute = route("get", "/shares/{shareSeq}/users", "listShareUsers", {
  summary: "Current recipients",
  request: { params: ShareSeqParams, query: SsQuery },
  responses: jsonAnswers(itemsOf(RecipientSchema), "Recipients", ...SHARE_READ_ERRORS),
});

const searchForShareRoute = route("get", "/shares/{shareSeq}/users/search", "searchShareUsers", {
  summary: "Find users to add to an existing share",
  request: { params: ShareSeqParams, query: SearchQuery },
  responses: jsonAnswers(itemsOf(SearchItem), "Matches", ...SHARE_READ_ERRORS),
});

const searchRoute = route("get", "/shares/users/search", "searchUsersToShareWith", {
  summary: "Find users for a share being composed",
  request: { query: SearchQuery },
  responses: jsonAnswers(itemsOf(SearchItem), "Matches"),
});

const linkRoute = route("get", "/shares/link/{token}", "resolveShareLink", {
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
  responses: jsonAnswers(LinkLookupSchema, "The linked resource", "SHARE_007", "PERMISSION_002"),
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
