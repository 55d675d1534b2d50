/**
 * Listing a folder (cursor-paginated, sorted by name, size or update time) and the metadata of
 * one resource with the caller's effective permissions and its breadcrumb path.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  authorizeFolderTarget,
  authorizeResourceAccess,
  effectivePermissions,
  OWNER_PERMISSIONS,
} from "../../kv/sharing/authorize.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { listChildren, type Resource } from "../../kv/tree/resources.ts";
import type { ApiEnv } from "../http/auth.ts";
import { ok } from "../http/envelope.ts";
import { errorResponses, jsonOk, newOpenApiApp, optionalSeq, seqParam } from "../http/openapi.ts";
import { PermissionsSchema, ResourceItemSchema, toResourceItem } from "../http/schemas.ts";

export const MAX_PAGE_SIZE = 1000;

const query = (name: string) => ({ param: { name, in: "query" as const } });

/** ps and cursor, shared by every cursor-paginated listing of this API. */
export const PageQuery = z.object({
  ps: z.coerce.number({ error: `ps must be an integer from 1 to ${MAX_PAGE_SIZE}` }).int({
    error: `ps must be an integer from 1 to ${MAX_PAGE_SIZE}`,
  }).min(1, { error: `ps must be at least 1` }).max(MAX_PAGE_SIZE, {
    error: `ps must be at most ${MAX_PAGE_SIZE}`,
  }).default(100).openapi({ ...query("ps"), description: `Page size, 1 to ${MAX_PAGE_SIZE}` }),
  cursor: z.string().max(2000).optional().openapi({
    ...query("cursor"),
    description: "nextCursor of the previous page, with the same other parameters",
  }),
});

const ListQuery = PageQuery.extend({
  pfs: optionalSeq("Folder to list; omitted = the caller's drive root", "pfs").openapi(
    query("pfs"),
  ),
  ss: optionalSeq("Owner's user seq when the folder is shared with the caller").openapi(
    query("ss"),
  ),
  sb: z.enum(["name", "size", "update"], { error: "sb must be name, size or update" })
    .default("name").openapi({
      ...query("sb"),
      description: "Sort by name (case-insensitive), size or update time; ties by resourceSeq",
    }),
  so: z.enum(["asc", "desc"], { error: "so must be asc or desc" }).default("asc").openapi(
    query("so"),
  ),
});

/**
 * Cursors are KV's own (pages never skip or repeat under concurrent changes), wrapped with
 * what they were issued for so that a cursor reused with other parameters is refused.
 */
export function encodeCursor(binding: string, kvCursor: string | null): string | null {
  if (kvCursor === null) return null;
  return btoa(JSON.stringify({ b: binding, c: kvCursor })).replaceAll("+", "-").replaceAll(
    "/",
    "_",
  ).replace(/=+$/, "");
}

export function decodeCursor(binding: string, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  let parsed: { b?: unknown; c?: unknown } | null = null;
  try {
    parsed = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
  } catch { /* reported below */ }
  if (parsed?.b !== binding || typeof parsed?.c !== "string") {
    fail("RESOURCE_018", "cursor is not one this listing returned for these parameters", "cursor");
  }
  return parsed.c;
}

const ListDataSchema = z.object({
  parentSeq: z.number().int().nullable().openapi({ description: "The listed folder; null = root" }),
  ownerSeq: z.number().int(),
  permissions: PermissionsSchema.openapi({ description: "The caller's on the listed folder" }),
  items: z.array(ResourceItemSchema),
  nextCursor: z.string().nullable().openapi({ description: "null on the last page" }),
}).openapi("ResourceList");

const BreadcrumbSchema = z.object({
  resourceSeq: z.number().int(),
  name: z.string(),
}).openapi("Breadcrumb");

const MetadataSchema = ResourceItemSchema.extend({
  permissions: PermissionsSchema,
  isOwner: z.boolean(),
  path: z.array(BreadcrumbSchema).openapi({
    description: "Folders from the top down to the parent; for a shared resource only the part " +
      "the caller can see. Empty at the drive root.",
  }),
}).openapi("ResourceMetadata");

const listRoute = createRoute({
  method: "get",
  path: "/resources",
  tags: ["Resources"],
  summary: "List a folder's files and folders (cursor pagination)",
  request: { query: ListQuery },
  responses: {
    ...jsonOk(ListDataSchema, "One page"),
    ...errorResponses(
      "RESOURCE_002",
      "RESOURCE_005",
      "RESOURCE_018",
      "PERMISSION_002",
      "PERMISSION_004",
    ),
  },
});

const metadataRoute = createRoute({
  method: "get",
  path: "/resources/{resourceSeq}",
  tags: ["Resources"],
  summary: "Metadata of a file or folder, the caller's permissions and its path",
  request: {
    params: z.object({ resourceSeq: seqParam("resourceSeq") }),
    query: z.object({
      ss: optionalSeq("Owner's user seq when the resource is shared with the caller").openapi(
        query("ss"),
      ),
    }),
  },
  responses: {
    ...jsonOk(MetadataSchema, "The resource"),
    ...errorResponses("RESOURCE_002", "PERMISSION_002"),
  },
});

/** Ancestors (top first) the caller may see: all for the owner, up to the shared top otherwise. */
async function visibleAncestors(
  kv: Deno.Kv,
  caller: { userSeq: number; tenantId: number },
  path: Resource[],
): Promise<Resource[]> {
  const out: Resource[] = [];
  for (let i = 1; i < path.length; i++) {
    if (path[i].ownerSeq !== caller.userSeq) {
      if (!(await effectivePermissions(kv, caller, path.slice(i))).canView) break;
    }
    out.push(path[i]);
  }
  return out.reverse();
}

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

  app.openapi(metadataRoute, async (c) => {
    const { resourceSeq } = c.req.valid("param");
    const { ss } = c.req.valid("query");
    const caller = c.get("caller");
    const access = await authorizeResourceAccess(d.kv, caller, { rs: resourceSeq, ss }, "view");
    const ancestors = await visibleAncestors(d.kv, caller, access.path);
    return ok(c, {
      ...toResourceItem(access.resource),
      permissions: { ...access.permissions },
      isOwner: access.isOwner,
      path: ancestors.map((r) => ({ resourceSeq: r.rs, name: r.name })),
    }, 200);
  });

  return app;
}
