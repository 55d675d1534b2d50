/**
 * Cursor pagination of the external API's listings (folder listing, trash): the ps/cursor
 * query and the cursor codec. A cursor is KV's own (pages never skip or repeat under
 * concurrent changes), wrapped with what it was issued for, so a cursor reused with other
 * parameters is refused instead of paging some other listing.
 */
import { z } from "@hono/zod-openapi";
import { fail } from "../../kv/errors.ts";
import { queryParam } from "./openapi.ts";
import { BadCursorError } from "../../lib/kv_pages.ts";

export const MAX_PAGE_SIZE = 1000;

/**
 * `?ps=`, the page size of a paged listing (any area): an integer from 1 to `max`, `fallback`
 * when omitted; each refusal names the bound it broke.
 */
export const pageSizeQuery = (
  max: number,
  fallback: number,
  description = `Page size, 1 to ${max} (default ${fallback})`,
) =>
  z.coerce.number({ error: `ps must be an integer from 1 to ${max}` })
    .int(`ps must be an integer from 1 to ${max}`).min(1, "ps must be at least 1")
    .max(max, `ps must be at most ${max}`).default(fallback)
    .openapi({ ...queryParam("ps"), description, example: fallback });

/** ps and cursor, shared by every cursor-paginated listing of this API. */
export const PageQuery = z.object({
  ps: pageSizeQuery(MAX_PAGE_SIZE, 100),
  cursor: z.string().max(2000).optional().openapi({
    ...queryParam("cursor"),
    description: "nextCursor of the previous page, with the same other parameters",
    example: "eyJrIjoiLi4uIn0",
  }),
});

/**
 * The fields of a page of a cursor-paginated listing: its `items` (`what` they are) and the
 * nextCursor to send for the next page (`next` says when it is null).
 */
export const pageFields = <T extends z.ZodTypeAny>(
  item: T,
  what: string,
  next = "null on the last page",
) => ({
  items: z.array(item).describe(what),
  nextCursor: z.string().nullable().openapi({ description: next }),
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

/**
 * One page of a listing read by `read` from a lib/kv_pages.ts cursor, with the cursor handed out
 * bound to `binding` (the listing's filters): a cursor of other filters, or one that does not
 * decode, is RESOURCE_018.
 */
async function pageWithCursor<T>(
  binding: string,
  cursor: string | undefined,
  read: (innerCursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const inner = decodeCursor(binding, cursor);
  try {
    const page = await read(inner);
    return { items: page.items, nextCursor: encodeCursor(binding, page.nextCursor) };
  } catch (err) {
    if (!(err instanceof BadCursorError)) throw err;
    fail("RESOURCE_018", "cursor is not one this listing returned for these parameters", "cursor");
  }
}

/** A page of a searched list, as the kv listing functions take and return it. */
export type PageRead<F, T> = (
  kv: Deno.Kv,
  filter: F & { q?: string },
  page: { cursor?: string; limit: number },
) => Promise<{ items: T[]; nextCursor: string | null }>;

/**
 * One page of the searched list `name` (tenants, users, API keys, share links) read by `list`:
 * the cursor handed out is bound to q and the list's `filters`, in the order they are given.
 */
export function searchedPage<F extends Record<string, unknown>, T>(
  kv: Deno.Kv,
  list: PageRead<F, T>,
  name: string,
  query: { q?: string; limit: number; cursor?: string },
  filters: F,
) {
  const { q, limit, cursor } = query;
  const binding = JSON.stringify([name, q ?? "", ...Object.values(filters).map((v) => v ?? null)]);
  return pageWithCursor(
    binding,
    cursor,
    (inner) => list(kv, { ...filters, q }, { cursor: inner, limit }),
  );
}
