/**
 * GET /search: files and folders by name, in the caller's drive and what is shared with the
 * caller, from the name-token index (kv/views/search.ts; the token rule is in
 * kv/tree/search_index.ts and docs/api.md).
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { getUser, type User } from "../../kv/identity/users.ts";
import { FILE_TYPES, type FileTypeFilter } from "../../kv/sharing/shared_pages.ts";
import { MAX_QUERY_WORDS, type SearchHit, searchResources } from "../../kv/views/search.ts";
import type { ApiEnv } from "../http/auth.ts";
import { pageFields, pageSizeQuery } from "../http/cursor.ts";
import { ok } from "../http/envelope.ts";
import { jsonAnswers, newOpenApiApp, queryParam, tagRoutes } from "../http/openapi.ts";
import { PermissionsSchema, ResourceItemSchema, toResourceItem } from "../http/schemas.ts";

const route = tagRoutes("Search");

const MAX_SEARCH_PAGE = 100;
const MAX_QUERY_CHARS = 200;

const SearchQuerySchema = z.object({
  q: z.string({ error: "q is required" }).min(1, "q must not be empty")
    .max(MAX_QUERY_CHARS, `q must be at most ${MAX_QUERY_CHARS} characters`).openapi({
      ...queryParam("q"),
      description: "Words to find in names: case- and accent-insensitive, each a prefix of a " +
        `word of the name (all must match; at most ${MAX_QUERY_WORDS} words)`,
      example: "report",
    }),
  scope: z.enum(["own", "shared", "both"], { error: "scope must be own, shared or both" })
    .default("both").openapi({
      ...queryParam("scope"),
      description: "own: the caller's drive; shared: what is shared with the caller (and " +
        "what is inside shared folders); both (default)",
      example: "both",
    }),
  rt: z.enum(["FILE", "FOLDER"], { error: "rt must be FILE or FOLDER" }).optional().openapi({
    ...queryParam("rt"),
    description: "Only files or only folders",
    example: "FILE",
  }),
  ft: z.enum(Object.keys(FILE_TYPES) as [FileTypeFilter, ...FileTypeFilter[]], {
    error: `ft must be one of ${Object.keys(FILE_TYPES).join(", ")}`,
  }).optional().openapi({
    ...queryParam("ft"),
    description: "Only files of this kind, by extension (document, spreadsheet, ...)",
    example: "document",
  }),
  ps: pageSizeQuery(MAX_SEARCH_PAGE, 50),
  cursor: z.string().max(4000, "cursor is too long").optional().openapi({
    ...queryParam("cursor"),
    description: "nextCursor of the previous page, sent with the same q, scope, rt and ft",
    example: "eyJrIjoiLi4uIn0",
  }),
});

const OwnerSchema = z.object({
  userSeq: z.number().int().describe("The owner's user seq (send it as ss to act on the hit)"),
  accountId: z.string().nullable().describe("The owner's account id (null: user gone)"),
  name: z.string().nullable().describe("The owner's display name (null: user gone)"),
}).openapi("SearchHitOwner");

const SearchHitSchema = z.object({
  resource: ResourceItemSchema.describe("The file or folder found"),
  permissions: PermissionsSchema.describe("What the caller may do with it"),
  scope: z.enum(["own", "shared"]).describe(
    "own: in the caller's drive; shared: in someone else's, reached through a share",
  ),
  path: z.string().nullable().describe(
    "Own hits: the folder holding it, from the drive root ('/' at the root, else '/A/B'); " +
      "shared hits: null",
  ).openapi({ example: "/Reports/2024" }),
  owner: OwnerSchema.nullable().describe("Shared hits: whose drive it is in; own hits: null"),
}).openapi("SearchHit", { description: "A file or folder whose name matches" });

const searchRoute = route("get", "/search", "searchResources", {
  summary: "Find files and folders by name in the caller's drive and what is shared with it",
  description: "Index-backed token-prefix search. Trashed items and items whose share was " +
    "revoked never appear. Hits come by owner, then matching word, then resource seq; the " +
    "cursor is a position in that order, so pages never skip or repeat.",
  request: { query: SearchQuerySchema },
  responses: jsonAnswers(
    z.object(pageFields(
      SearchHitSchema,
      "One page of hits",
      "Send as cursor for the next page; null on the last page. A page can hold fewer than " +
        "ps hits (even none) and still have a cursor when filters rejected many entries.",
    )),
    "One page of hits",
    "RESOURCE_018",
  ),
});

type SearchHitView = z.infer<typeof SearchHitSchema>;

export function searchApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(searchRoute, async (c) => {
    const query = c.req.valid("query");
    const page = await searchResources(d.kv, c.get("caller"), query);
    const owners = new Map<number, Promise<User | null>>();
    const ownerOf = (seq: number) => {
      if (!owners.has(seq)) owners.set(seq, getUser(d.kv, seq));
      return owners.get(seq)!;
    };
    const items = await Promise.all(page.items.map((hit) => viewOf(hit, ownerOf)));
    return ok(c, { items, nextCursor: page.cursor }, 200);
  });

  return app;
}

async function viewOf(
  hit: SearchHit,
  ownerOf: (seq: number) => Promise<User | null>,
): Promise<SearchHitView> {
  const r = hit.resource;
  if (hit.scope === "own") {
    return {
      resource: toResourceItem(r),
      permissions: hit.permissions,
      scope: "own",
      path: "/" + hit.folders.map((f) => f.name).join("/"),
      owner: null,
    };
  }
  const user = await ownerOf(r.ownerSeq);
  return {
    resource: toResourceItem(r),
    permissions: hit.permissions,
    scope: "shared",
    path: null,
    owner: { userSeq: r.ownerSeq, accountId: user?.accountId ?? null, name: user?.name ?? null },
  };
}
