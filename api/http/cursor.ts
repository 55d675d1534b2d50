/**
 * Cursor pagination of the external API's listings (folder listing, trash): the ps/cursor
 * query and the cursor codec. A cursor is KV's own (pages never skip or repeat under
 * concurrent changes), wrapped with what it was issued for, so a cursor reused with other
 * parameters is refused instead of paging some other listing.
 */
import { z } from "@hono/zod-openapi";
import { fail } from "../../kv/errors.ts";
import { queryParam } from "./openapi.ts";

export const MAX_PAGE_SIZE = 1000;

/** ps and cursor, shared by every cursor-paginated listing of this API. */
export const PageQuery = z.object({
  ps: z.coerce.number({ error: `ps must be an integer from 1 to ${MAX_PAGE_SIZE}` }).int({
    error: `ps must be an integer from 1 to ${MAX_PAGE_SIZE}`,
  }).min(1, { error: `ps must be at least 1` }).max(MAX_PAGE_SIZE, {
    error: `ps must be at most ${MAX_PAGE_SIZE}`,
  }).default(100).openapi({ ...queryParam("ps"), description: `Page size, 1 to ${MAX_PAGE_SIZE}` }),
  cursor: z.string().max(2000).optional().openapi({
    ...queryParam("cursor"),
    description: "nextCursor of the previous page, with the same other parameters",
  }),
});

/**
 * The cursor handed out for KV cursor `kvCursor` of the listing `binding` names (its owner,
 * folder, sort...); null when the listing is complete.
 */
export function encodeCursor(binding: string, kvCursor: string | null): string | null {
  if (kvCursor === null) return null;
  return btoa(JSON.stringify({ b: binding, c: kvCursor })).replaceAll("+", "-").replaceAll(
    "/",
    "_",
  ).replace(/=+$/, "");
}

/** The KV cursor inside `cursor`, or RESOURCE_018 when it was not issued for `binding`. */
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
