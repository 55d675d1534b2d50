/**
 * Listing a folder (cursor-paginated, sorted by name, size or update time) and the metadata of
 * one resource with the caller's effective permissions and its breadcrumb path.
 */
import { z } from "@hono/zod-openapi";
import {
  authorizeFolderTarget,
  authorizeResourceAccess,
  OWNER_PERMISSIONS,
  visibleAncestors,
} from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { listChildren } from "../../kv/tree/listing.ts";
import { getUser } from "../../kv/identity/users.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import {
  FOLDER_ACCESS_ERRORS,
  jsonAnswers,
  newOpenApiApp,
  optionalSeq,
  queryParam,
  tagRoutes,
} from "../http/openapi.ts";
import { decodeCursor, encodeCursor, pageFields, PageQuery } from "../http/cursor.ts";
import { inListingTurn } from "../http/listing_turn.ts";
import {
  PermissionsSchema,
  ResourceItemSchema,
  RsParams,
  SsQuery,
  toResourceItem,
} from "../http/schemas.ts";

const route = tagRoutes("Resources");

const ListQuery = PageQuery.extend({
  pfs: optionalSeq("Folder to list; omitted = the caller's drive root", "pfs").openapi(
    queryParam("pfs"),
  ),
  ss: optionalSeq("Owner's user seq when the folder is shared with the caller").openapi(
    queryParam("ss"),
  ),
  sb: z.enum(["name", "size", "update"], { error: "sb must be name, size or update" })
    .default("name").openapi({
      ...queryParam("sb"),
      description: "Sort by name (case-insensitive), size or update time; ties by resourceSeq",
      example: "name",
    }),
  so: z.enum(["asc", "desc"], { error: "so must be asc or desc" }).default("asc").openapi({
    ...queryParam("so"),
    description: "Sort order, asc (default) or desc",
    example: "asc",
  }),
});

const ListDataSchema = z.object({
  parentSeq: z.number().int().nullable().openapi({ description: "The listed folder; null = root" }),
  ownerSeq: z.number().int().describe("The owner of the listed drive"),
  permissions: PermissionsSchema.openapi({ description: "The caller's on the listed folder" }),
  ...pageFields(ResourceItemSchema, "The page's files and folders"),
}).openapi("ResourceList", { description: "A page of a folder's files and folders" });

const BreadcrumbSchema = z.object({
  resourceSeq: z.number().int().describe("A folder on the path"),
  name: z.string().describe("Its name"),
}).openapi("Breadcrumb", { description: "A folder on the path from the root" });

const MetadataSchema = ResourceItemSchema.extend({
  permissions: PermissionsSchema,
  isOwner: z.boolean().describe("Whether the caller owns it"),
  ownerName: z.string().nullable().describe("The owner's display name; null when gone"),
  path: z.array(BreadcrumbSchema).openapi({
    description: "Folders from the top down to the parent; for a shared resource only the part " +
      "the caller can see. Empty at the drive root.",
  }),
}).openapi("ResourceMetadata");

const listRoute = route("get", "/resources", "listResources", {
  summary: "List a folder's files and folders (cursor pagination)",
  request: { query: ListQuery },
  responses: jsonAnswers(ListDataSchema, "One page", ...FOLDER_ACCESS_ERRORS, "RESOURCE_018"),
});

const metadataRoute = route("get", "/resources/{resourceSeq}", "getResource", {
  summary: "Metadata of a file or folder, the caller's permissions and its path",
  request: { params: RsParams, query: SsQuery },
  responses: jsonAnswers(MetadataSchema, "The resource", "RESOURCE_002", "PERMISSION_002"),
});

export function resourcesApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(listRoute, async (c) => {
    const q = c.req.valid("query");
    const caller = c.get("caller");
    let ownerSeq = caller.userSeq;
    let permissions = OWNER_PERMISSIONS;
    if (q.pfs == null) {
      await authorizeFolderTarget(d.kv, caller, { ss: q.ss }, "view");
    } else {
      const access = await authorizeResourceAccess(d.kv, caller, {
        rs: q.pfs,
        ss: q.ss,
        field: "pfs",
        type: "FOLDER",
      }, "view");
      ownerSeq = access.resource.ownerSeq;
      permissions = access.permissions;
    }
    // Authorized first: a request that will be refused never waits for a turn.
    return await inListingTurn(d, async () => {
      const parentRs = q.pfs ?? null;
      const binding = `list:${ownerSeq}:${parentRs ?? 0}:${q.sb}:${q.so}`;
      const page = await listChildren(d.kv, ownerSeq, parentRs, {
        sort: q.sb,
        order: q.so,
        limit: q.ps,
        cursor: decodeCursor(binding, q.cursor),
      });
      return ok(c, {
        parentSeq: parentRs,
        ownerSeq,
        permissions: { ...permissions },
        items: page.items.map((r) => toResourceItem(r)),
        nextCursor: encodeCursor(binding, page.cursor),
      }, 200);
    });
  });

  app.openapi(metadataRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    const access = await authorizeResourceAccess(d.kv, caller, { rs: resourceSeq, ss }, "view");
    const ancestors = await visibleAncestors(d.kv, caller, access.path);
    const owner = await getUser(d.kv, access.resource.ownerSeq);
    return ok(c, {
      ...toResourceItem(access.resource),
      permissions: { ...access.permissions },
      isOwner: access.isOwner,
      ownerName: owner?.name ?? null,
      path: ancestors.map((r) => ({ resourceSeq: r.rs, name: r.name })),
    }, 200);
  });

  return app;
}
