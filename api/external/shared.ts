/**
 * GET /shared: what is shared with the caller, cursor-paginated from index keys
 * (kv/sharing/shared_list.ts), and the star marks its entries report
 * (POST/DELETE /shared/{rs}/star).
 */
import { z } from "@hono/zod-openapi";
import { authorizeResourceAccess } from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { toIso } from "../../kv/tree/resources.ts";
import {
  FILE_TYPES,
  type FileTypeFilter,
  listSharedWithMe,
  type SharedListItem,
  type SharedListQuery,
} from "../../kv/sharing/shared_pages.ts";
import {
  SHARED_SORTS,
  type SharedSort,
  starResource,
  unstarResource,
} from "../../kv/sharing/shared_list.ts";
import { findUserByAccountId } from "../../kv/identity/users.ts";
import { userDirectory } from "../../kv/identity/user_search.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import {
  errorResponses,
  jsonAnswers,
  jsonOk,
  newOpenApiApp,
  optionalSeq,
  tagRoutes,
} from "../http/openapi.ts";
import { PermissionsSchema, rsParams, ShareTypeSchema, SsQuery } from "../http/schemas.ts";

const route = tagRoutes("Shares");

export const MAX_PAGE_SIZE = 100;

const lower = (v: unknown) => typeof v === "string" ? v.toLowerCase() : v;
const DateParam = (what: string) =>
  z.string().regex(/^\d{4}-\d{2}-\d{2}/, "must be a date (YYYY-MM-DD)").optional().openapi({
    description: what,
    example: "2026-01-31",
  });

const SharedQuery = z.object({
  // The checks carry their own messages: zod would report any of them with the schema's error.
  ps: z.coerce.number({ error: "ps is required and must be an integer" })
    .int("must be an integer").min(1, "must be at least 1")
    .max(MAX_PAGE_SIZE, `must be at most ${MAX_PAGE_SIZE}`)
    .openapi({ description: `Page size, 1 to ${MAX_PAGE_SIZE}`, example: 50 }),
  rt: z.enum(["FILE", "FOLDER"]).optional().openapi({
    description: "Only files or only folders",
    example: "FILE",
  }),
  ft: z.enum(Object.keys(FILE_TYPES) as [FileTypeFilter, ...FileTypeFilter[]]).optional().openapi({
    description: "Only files of this kind",
    example: "document",
  }),
  oi: z.string().max(254).optional().openapi({ description: "Owner's account id", example: "bob" }),
  sd: DateParam("Start of the modified-date range (inclusive); needs ed"),
  ed: DateParam("End of the modified-date range (inclusive); needs sd"),
  sb: z.preprocess(lower, z.enum(SHARED_SORTS)).optional().openapi({
    description: "Sort key (with so); default: by share time",
    example: "name",
  }),
  so: z.preprocess(lower, z.enum(["asc", "desc"])).optional().openapi({
    description: "Sort order (with sb)",
    example: "asc",
  }),
  ci: optionalSeq("Cursor id from the previous page (cursor.ci)", "ci"),
  cv: z.string().max(1100).optional().openapi({
    description: "Cursor value from the previous page (cursor.cv)",
    example: "1767225600000",
  }),
  ct: z.preprocess(lower, z.enum(SHARED_SORTS)).optional().openapi({
    description: "Cursor type from the previous page (cursor.ct)",
    example: "share",
  }),
});

const SharedEntrySchema = z.object({
  resourceSeq: z.number().int().describe("The file or folder's seq"),
  resourceName: z.string().describe("The file or folder's name"),
  resourceType: z.enum(["FILE", "FOLDER"]).describe("FILE or FOLDER"),
  size: z.number().int().describe("Bytes of the current content; 0 for folders"),
  contentType: z.string().nullable().describe("The file's media type; null for folders"),
  updatedAt: z.string().describe("Last change, ISO 8601"),
  ownerSeq: z.number().int().describe("The owner's user seq"),
  ownerAccountId: z.string().nullable().describe(
    "The owner's accountId; null when the owner is gone",
  ),
  ownerName: z.string().nullable().describe("The owner's display name; null when gone"),
  tenantId: z.number().int().describe("The tenant's id"),
  tenantName: z.string().nullable().describe("The tenant's name; null when gone"),
  shareSeq: z.number().int().describe("The share's seq"),
  shareType: ShareTypeSchema.describe("The share's type"),
  sharedVia: z.enum(["RECIPIENT", "LINK"]).describe(
    "RECIPIENT: shared with the caller by name; LINK: opened through an ORG_LINK",
  ),
  sharedAt: z.string().describe("When it was shared with the caller, ISO 8601"),
  registeredBySeq: z.number().int().describe("Who created the share"),
  registeredByName: z.string().nullable().describe("Their display name; null when gone"),
  changedBySeq: z.number().int().describe("Who last changed the share"),
  changedByName: z.string().nullable().describe("Their display name; null when gone"),
  changedAt: z.string().describe("When the share last changed, ISO 8601"),
  lastOpenedAt: z.string().nullable().describe("When the caller last opened it; null: never"),
  permissions: PermissionsSchema,
  isStarred: z.boolean().describe("Whether the caller starred it"),
  starredSeq: z.number().int().nullable().describe("The star's order; null when not starred"),
}).openapi("SharedEntry", { description: "A file or folder shared with the caller" });

const CursorSchema = z.object({
  ci: z.number().int().describe("Cursor: the last item's resourceSeq"),
  cv: z.string().describe("Cursor: the last item's sort value"),
  ct: z.enum(SHARED_SORTS).describe("Cursor: the sort it belongs to"),
}).openapi("SharedCursor", { description: "Where the next page starts" });

const sharedRoute = route("get", "/shared", "listSharedWithMe", {
  summary: "What is shared with the caller",
  request: { query: SharedQuery },
  responses: jsonAnswers(
    z.object({
      items: z.array(SharedEntrySchema).describe("The items"),
      cursor: CursorSchema.nullable(),
    }),
    "One page",
    "RESOURCE_018",
  ),
});

const StarResult = z.object({
  resourceSeq: z.number().int().describe("The file or folder's seq"),
  isStarred: z.boolean().describe("Whether the caller starred it"),
  starredSeq: z.number().int().nullable().describe("The star's order; null when not starred"),
});

const starRoute = route("post", "/shared/{resourceSeq}/star", "starShared", {
  summary: "Star a file or folder the caller can view, their own or shared with them " +
    "(personal mark, like pins: api:read suffices); GET /starred lists them",
  request: { params: rsParams(4), query: SsQuery },
  responses: jsonAnswers(StarResult, "Starred", "RESOURCE_002", "PERMISSION_002"),
});

const unstarRoute = route("delete", "/shared/{resourceSeq}/star", "unstarShared", {
  summary: "Remove the caller's star",
  request: { params: rsParams(4) },
  responses: { ...jsonOk(StarResult, "Not starred"), ...errorResponses() },
});

function dayStart(date: string, field: string): number {
  const ms = Date.parse(`${date.slice(0, 10)}T00:00:00.000Z`);
  if (!Number.isFinite(ms)) fail("REQUEST_001", `${field}: not a valid date`, field);
  return ms;
}

type Query = z.infer<typeof SharedQuery>;

async function toListQuery(d: Deps, q: Query): Promise<SharedListQuery> {
  // sb and so only count together (spec); the default is newest share first.
  const sb: SharedSort = q.sb && q.so ? q.sb : "share";
  const so = q.sb && q.so ? q.so : "desc";
  const out: SharedListQuery = { ps: q.ps, rt: q.rt, ft: q.ft, sb, so };
  if (q.oi !== undefined) {
    out.ownerSeq = (await findUserByAccountId(d.kv, q.oi))?.userSeq ?? -1;
  }
  if (q.sd && q.ed) {
    out.updatedFrom = dayStart(q.sd, "sd");
    out.updatedTo = dayStart(q.ed, "ed") + 86_400_000 - 1;
    if (out.updatedFrom > out.updatedTo) fail("REQUEST_001", "sd must not be after ed", "sd");
  }
  const parts = [q.ci, q.cv, q.ct].filter((x) => x !== undefined).length;
  if (parts > 0) {
    if (parts < 3 || q.ct !== sb) {
      fail("RESOURCE_018", "Send ci, cv and ct together, from a page with the same sort", "ct");
    }
    let cv: string | number = q.cv!;
    if (sb !== "name") {
      if (!/^\d{1,16}$/.test(q.cv!)) fail("RESOURCE_018", "cv does not fit this cursor", "cv");
      cv = Number(q.cv);
    }
    out.cursor = { ci: q.ci!, cv };
  }
  return out;
}

async function entriesView(d: Deps, items: SharedListItem[]) {
  const dir = userDirectory(d.kv);
  return await Promise.all(items.map(async ({ entry, share, resource, permissions, star }) => {
    const target = share.targets.find((t) => t.userSeq === entry.userSeq);
    const registeredBy = target?.addedBy ?? share.createdBy;
    const [owner, tenant, registrar, changer] = await Promise.all([
      dir.user(resource.ownerSeq),
      dir.tenant(resource.tenantId),
      dir.user(registeredBy),
      dir.user(share.updatedBy),
    ]);
    return {
      resourceSeq: resource.rs,
      resourceName: resource.name,
      resourceType: resource.type,
      size: resource.size,
      contentType: resource.mime,
      updatedAt: toIso(resource.updatedAt),
      ownerSeq: resource.ownerSeq,
      ownerAccountId: owner?.accountId ?? null,
      ownerName: owner?.name ?? null,
      tenantId: resource.tenantId,
      tenantName: tenant?.name ?? null,
      shareSeq: share.shareSeq,
      shareType: share.type,
      sharedVia: entry.via === "target" ? "RECIPIENT" as const : "LINK" as const,
      sharedAt: toIso(entry.sharedAt),
      registeredBySeq: registeredBy,
      registeredByName: registrar?.name ?? null,
      changedBySeq: share.updatedBy,
      changedByName: changer?.name ?? null,
      changedAt: toIso(share.updatedAt),
      lastOpenedAt: entry.openedAt === null ? null : toIso(entry.openedAt),
      permissions,
      isStarred: star !== null,
      starredSeq: star?.starredSeq ?? null,
    };
  }));
}

export function sharedApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(sharedRoute, async (c) => {
    const q = await toListQuery(d, c.req.valid("query"));
    const page = await listSharedWithMe(d.kv, c.get("caller"), q);
    return ok(c, {
      items: await entriesView(d, page.items),
      cursor: page.next ? { ...page.next, cv: String(page.next.cv) } : null,
    });
  });

  app.openapi(starRoute, async (c) => {
    const caller = c.get("caller");
    const { resourceSeq } = c.req.valid("param");
    await authorizeResourceAccess(d.kv, caller, {
      rs: resourceSeq,
      ss: c.req.valid("query").ss,
    }, "view");
    const star = await starResource(d.kv, caller.userSeq, resourceSeq);
    return ok(c, { resourceSeq, isStarred: true, starredSeq: star.starredSeq });
  });

  app.openapi(unstarRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    await unstarResource(d.kv, c.get("caller").userSeq, resourceSeq);
    return ok(c, { resourceSeq, isStarred: false, starredSeq: null });
  });

  return app;
}
