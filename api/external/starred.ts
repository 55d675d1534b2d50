/**
 * The web app's Starred and Recent views: GET /starred (everything the caller starred and can
 * still view, kv/sharing/stars.ts; starring is POST/DELETE /shared/{resourceSeq}/star, which takes
 * the caller's own files and folders too) and GET /recent (the files changed most recently,
 * kv/views/recent.ts).
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { listStarred } from "../../kv/sharing/stars.ts";
import { listRecent } from "../../kv/views/recent.ts";
import type { ApiEnv } from "../http/auth.ts";
import { decodeCursor, encodeCursor, pageFields, pageSizeQuery } from "../http/cursor.ts";
import { ok } from "../http/envelope.ts";
import { jsonAnswers, newOpenApiApp, queryParam, tagRoutes } from "../http/openapi.ts";
import { RecentItemSchema, recentRow, StarredItemSchema, starredRow } from "./schemas/views.ts";

const route = tagRoutes("Resources");

/** Recent answers at most this many files. */
export const MAX_RECENT = 200;

const StarredQuery = z.object({
  ps: pageSizeQuery(200, 100),
  cursor: z.string().max(200).optional().openapi({
    ...queryParam("cursor"),
    description: "nextCursor of the previous page",
    example: "eyJiIjoic3RhcnJlZDoxIiwiYyI6IjQifQ",
  }),
});

const starredRoute = route("get", "/starred", "listStarred", {
  summary: "What the caller starred (own and shared), in resourceSeq order",
  description: "Stars on what is in the trash are kept but not listed; stars on what was " +
    "deleted for good or is no longer shared with the caller are dropped. A page may hold " +
    "fewer than ps items while nextCursor is not null.",
  request: { query: StarredQuery },
  responses: jsonAnswers(
    z.object(pageFields(StarredItemSchema, "The starred files and folders")),
    "One page",
    "RESOURCE_018",
  ),
});

const RecentQuery = z.object({
  ps: pageSizeQuery(MAX_RECENT, 50, `How many files, 1 to ${MAX_RECENT} (default 50)`),
});

const recentRoute = route("get", "/recent", "listRecent", {
  summary: "The files the caller can see that changed most recently, newest first",
  description: "Built from the change log's newest entries (its retention and a bounded scan " +
    "limit how far back it looks): uploads, new versions, copies, renames, moves and restores, " +
    "in the caller's drive and what is shared with them. Trashed files are left out.",
  request: { query: RecentQuery },
  responses: jsonAnswers(
    z.object({ items: z.array(RecentItemSchema).describe("Newest first, each file once") }),
    "The recent files",
  ),
});

export function starredApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();

  app.openapi(starredRoute, async (c) => {
    const { ps, cursor } = c.req.valid("query");
    const caller = c.get("caller");
    const binding = `starred:${caller.userSeq}`;
    const after = decodeCursor(binding, cursor);
    if (after !== undefined && !/^\d{1,15}$/.test(after)) {
      fail("RESOURCE_018", "cursor is not one this listing returned", "cursor");
    }
    const page = await listStarred(d.kv, caller, {
      limit: ps,
      after: after === undefined ? undefined : Number(after),
    });
    return ok(c, {
      items: page.items.map(({ access, star }) => starredRow(access, star.starredAt)),
      nextCursor: encodeCursor(binding, page.next === null ? null : String(page.next)),
    }, 200);
  });

  app.openapi(recentRoute, async (c) => {
    const items = await listRecent(d.kv, c.get("caller"), c.req.valid("query").ps);
    return ok(c, { items: items.map((i) => recentRow(i.access, i.changedAt)) }, 200);
  });

  return app;
}
