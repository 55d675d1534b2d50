/**
 * What every admin route shares (docs/api.md, admin API): the error answer, the JSON answer
 * entry, a short name field, and paging (q, limit, cursor and a page of items).
 */
import { createRoute, type OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import { audit, type AuditMeta } from "../../http/admin_audit.ts";
import type { ErrorCode } from "../../../kv/errors.ts";
import {
  errorResponsesWith,
  jsonBody,
  plainAnswersWith,
  plainJson,
  queryParam,
} from "../../http/openapi.ts";
import { type PageRead, searchedPage } from "../../http/cursor.ts";
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from "../../../kv/identity/admin_lists.ts";

// ---------------------------------------------------------------- errors

/** Every admin API error answer: the catalog code (kv/errors.ts), a message, the field if any. */
const AdminErrorSchema = z.object({
  error: z.string().describe("The error code from the catalog (docs/errors.md)"),
  message: z.string().describe("What went wrong, in words"),
  field: z.string().optional().describe("The request field at fault, when there is one"),
}).openapi("AdminError", {
  description: "An admin API error: the catalog code, a message, the field if any",
});

/**
 * The error answers of an admin route, by status with their codes: the token, validation and
 * body-size failures every route has, and `codes`.
 */
export const adminErrors = (...codes: ErrorCode[]) =>
  errorResponsesWith(AdminErrorSchema, ["REQUEST_001", "REQUEST_002", "AUTH_004", ...codes]);

/** What a route with a JSON body may also answer: not JSON (415), malformed JSON (400). */
export const BODY_ERRORS = ["REQUEST_003", "REQUEST_005"] as const;

/** A JSON answer of an admin route: `schema`, described. */
export const adminJson = plainJson;

/** An admin route's answers: `schema` as JSON (200, `description`), or one of `codes`' errors. */
export const adminAnswers = plainAnswersWith(adminErrors);

/** A name or label typed by a person: trimmed, 1 to 200 characters. */
export const Name = z.string().trim().min(1, "must not be empty").max(
  200,
  "must be at most 200 characters",
);

// ---------------------------------------------------------------- paging and search

/**
 * q, limit and cursor of a paged admin list (tenants, users, API keys, share links); `searches`
 * says what q is matched against.
 */
export const adminPageQuery = (searches: string, example: string) =>
  z.object({
    q: z.string().trim().max(200, "q must be at most 200 characters").optional().openapi({
      ...queryParam("q"),
      description: `Search: a case-insensitive prefix of ${searches}`,
      example,
    }),
    limit: z.coerce.number({
      error: `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`,
    }).int(`limit must be an integer from 1 to ${MAX_PAGE_LIMIT}`)
      .min(1, "limit must be at least 1").max(
        MAX_PAGE_LIMIT,
        `limit must be at most ${MAX_PAGE_LIMIT}`,
      )
      .default(DEFAULT_PAGE_LIMIT).openapi({
        ...queryParam("limit"),
        description: `Items per page, 1 to ${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT})`,
        example: 50,
      }),
    cursor: z.string().max(4000, "cursor must be a nextCursor this API returned").optional()
      .openapi({
        ...queryParam("cursor"),
        description: "nextCursor of the previous page, sent with the same q and filters",
        example: "WyJ1c2VycyIsImFsaSIsbnVsbF0",
      }),
  });

/** An optional filter of a paged admin list naming a record by its seq. */
export const optionalSeqQuery = (name: string, description: string) =>
  z.coerce.number().int().positive().optional().openapi({
    ...queryParam(name),
    description,
    example: 1,
  });

/** A page of a paged admin list: its items and where the next page starts. */
export const pageOf = <T extends z.ZodTypeAny>(item: T, what: string) =>
  z.object({
    items: z.array(item).describe(`${what}, at most limit of them`),
    nextCursor: z.string().nullable().describe(
      "Send as cursor for the next page; null: this page reached the end. A page may hold " +
        "fewer than limit items and still have a nextCursor (a search reads a bounded number " +
        "of entries per page).",
    ).openapi({ example: null }),
  });

/** A page as the console receives it. */
export interface Paged<T> {
  items: T[];
  nextCursor: string | null;
}

/** The summaries of the disable and enable routes (tenants, users, API keys). */
export const SWITCH_SUMMARY = {
  disable: "Disable (data kept; its API keys, adapters and share links stop working)",
  enable: "Enable again (a no-op when enabled)",
} as const;

/** What names an admin route: its tag in the document, operationId, summary, audit action. */
interface RouteName {
  tag: string;
  id: string;
  summary: string;
  audit?: AuditMeta;
}

/** The names of one tag's routes: `(operationId, summary, audit?)`. */
export const operation = (tag: string) => (id: string, summary: string, audit?: AuditMeta) => ({
  tag,
  id,
  summary,
  audit,
});

/**
 * The declaration of an admin route, given once with its handler to `app.openapi`: the method
 * and path, its name (`operation`), and the request and responses that validate and document
 * it. The audit action, when the route changes something, becomes its `x-audit` extension.
 */
export function adminRoute<
  M extends RouteConfig["method"],
  P extends string,
  S extends Omit<RouteConfig, "method" | "path" | "tags" | "operationId" | "summary">,
>(method: M, path: P, name: RouteName, spec: S) {
  return createRoute({
    method,
    path,
    tags: [name.tag],
    operationId: name.id,
    summary: name.summary,
    ...(name.audit ? audit(name.audit) : {}),
    ...spec,
  });
}

/**
 * The declaration of a paged, searchable list (tenants, users, API keys, share links): `query`
 * is an adminPageQuery with the list's filters, the answer a page of `item`.
 */
const adminListRoute = <
  P extends string,
  Q extends z.ZodObject,
  T extends z.ZodTypeAny,
>(
  path: P,
  name: RouteName,
  query: Q,
  item: T,
  what: { items: string; page: string },
) =>
  adminRoute("get", path, name, {
    request: { query },
    responses: adminAnswers(pageOf(item, what.items), what.page, "RESOURCE_018"),
  });

/** How a searched list is read: its kv lister, the filters its query carries, its item view. */
export interface SearchedListSource<Q, F extends Record<string, unknown>, R, V> {
  list: PageRead<F, R>;
  /** The filters of `query`, in the order the cursor binds them. */
  filters: (query: Q) => F;
  /** The answer's items from the lister's (default: as they are). */
  view?: (items: R[]) => V[] | Promise<V[]>;
}

/**
 * Declares and serves GET `path`, a paged, searchable list (adminListRoute), read one page at a
 * time by `source` with the cursor bound to q and the filters.
 */
export function serveSearchedList<
  P extends string,
  Q extends z.ZodObject,
  T extends z.ZodTypeAny,
  F extends Record<string, unknown>,
  R,
>(
  kv: Deno.Kv,
  app: OpenAPIHono,
  route: { path: P; name: RouteName; query: Q; item: T; what: { items: string; page: string } },
  source: SearchedListSource<z.infer<Q>, F, R, z.infer<T>>,
) {
  const { path, name, query, item, what } = route;
  app.openapi(adminListRoute(path, name, query, item, what), async (c) => {
    // The route's query schema is an adminPageQuery extended with the list's filters.
    const q = c.req.valid("query" as never) as z.infer<Q> & {
      q?: string;
      limit: number;
      cursor?: string;
    };
    const page = await searchedPage(kv, source.list, path.slice(1), q, source.filters(q));
    const items = source.view ? await source.view(page.items) : page.items;
    return c.json({ items, nextCursor: page.nextCursor }, 200);
  });
}

/**
 * Declares and serves GET `path`, one record named by `params`: `read` gives it (`schema`, what
 * it holds in `description`) or fails with `missing`.
 */
export function serveRecord<Q extends z.ZodObject, T extends z.ZodTypeAny>(
  app: OpenAPIHono,
  record: {
    path: string;
    name: RouteName;
    params: Q;
    schema: T;
    description: string;
    missing: ErrorCode;
  },
  read: (params: z.infer<Q>) => Promise<z.infer<T>>,
) {
  const route = adminRoute("get", record.path, record.name, {
    request: { params: record.params },
    responses: adminAnswers(record.schema, record.description, record.missing),
  });
  app.openapi(route, async (c) => {
    return c.json(await read(c.req.valid("param" as never) as z.infer<Q>), 200);
  });
}

/**
 * Declares and serves DELETE `path`, one record named by `params`: `remove` deletes it (204
 * `done`) or fails with `missing`.
 */
export function serveDelete<Q extends z.ZodObject>(
  app: OpenAPIHono,
  record: { path: string; name: RouteName; params: Q; done: string; missing: ErrorCode },
  remove: (params: z.infer<Q>) => Promise<unknown>,
) {
  const route = adminRoute("delete", record.path, record.name, {
    request: { params: record.params },
    responses: { 204: { description: record.done }, ...adminErrors(record.missing) },
  });
  app.openapi(route, async (c) => {
    await remove(c.req.valid("param" as never) as z.infer<Q>);
    return c.body(null, 204);
  });
}

/**
 * Declares and serves POST `<record>/disable` and `<record>/enable` for the record `params` name:
 * `set` switches it and gives the record as it is now (`description`), or fails with `missing`.
 */
export function serveSwitches<Q extends z.ZodObject, T extends z.ZodTypeAny>(
  app: OpenAPIHono,
  record: {
    path: string;
    name: (action: "disable" | "enable") => RouteName;
    params: Q;
    schema: T;
    description: string;
    missing: ErrorCode;
  },
  set: (params: z.infer<Q>, disabled: boolean) => Promise<z.infer<T>>,
) {
  for (const action of ["disable", "enable"] as const) {
    const route = adminRoute("post", `${record.path}/${action}`, record.name(action), {
      request: { params: record.params },
      responses: adminAnswers(record.schema, record.description, record.missing),
    });
    app.openapi(route, async (c) => {
      const params = c.req.valid("param" as never) as z.infer<Q>;
      return c.json(await set(params, action === "disable"), 200);
    });
  }
}

/**
 * The declaration of POST `path` creating a record from the JSON `body`: 201 with `created`
 * (the record's schema and what it holds), or one of `codes`.
 */
export const creationRoute = <P extends string, B extends z.ZodTypeAny, T extends z.ZodTypeAny>(
  path: P,
  name: RouteName,
  body: B,
  created: { record: T; description: string },
  ...codes: ErrorCode[]
) =>
  adminRoute("post", path, name, {
    request: { body: jsonBody(body) },
    responses: { 201: adminJson(created.record, created.description), ...adminErrors(...codes) },
  });
