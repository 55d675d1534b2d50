/**
 * Helpers for declaring routes with @hono/zod-openapi: the zod schemas validate requests and
 * produce the OpenAPI document, so the two cannot drift.
 */
import { createRoute, OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
// The generator @hono/zod-openapi itself uses (same pinned version): tells a component from an
// inline schema.
import { getRefId } from "@asteasolutions/zod-to-openapi";
import type { Env } from "hono";
import { ERROR_CATALOG, type ErrorCode, fail } from "../../kv/errors.ts";

/**
 * The Markdown that shows `text` as written. Document viewers render descriptions as CommonMark,
 * where a backslash escapes the punctuation after it: the catalog's "'/', '\\'" would lose it.
 */
export const markdownText = (text: string) => text.replaceAll("\\", "\\\\");

/** First zod issue as "field: problem", naming the field for REQUEST_001. */
export function describeZodError(error: z.ZodError): { field: string; message: string } {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join(".") || "body";
  return { field, message: `${field}: ${issue?.message ?? "invalid"}` };
}

/** An OpenAPIHono whose validation failures become REQUEST_001 naming the field. */
export function newOpenApiApp<E extends Env>(): OpenAPIHono<E> {
  return new OpenAPIHono<E>({
    defaultHook: (result) => {
      if (!result.success) {
        const { field, message } = describeZodError(result.error as z.ZodError);
        fail("REQUEST_001", message, field);
      }
    },
  });
}

/**
 * The declarations of one tag's routes (`const route = tagRoutes("Folders")`), each given once
 * with its handler to `app.openapi`: `route(method, path, operationId, { summary, ... })`. The
 * rest of the RouteConfig follows in the document's order (summary, description, request,
 * responses).
 */
export const tagRoutes = (tag: string) =>
<
  M extends RouteConfig["method"],
  P extends string,
  S extends Omit<RouteConfig, "method" | "path" | "operationId" | "tags">,
>(method: M, path: P, operationId: string, spec: S) =>
  createRoute({ method, path, operationId, tags: [tag], ...spec });

export const ErrorEnvelopeSchema = z.object({
  result: z.literal(false).describe("Always false on an error"),
  code: z.number().int().describe("The HTTP status, repeated").openapi({ example: 404 }),
  message: z.string().describe("What went wrong, in words").openapi({
    example: "No such file or folder (or it is in the trash)",
  }),
  errorCode: z.string().describe("The catalog code (docs/errors.md)").openapi({
    example: "RESOURCE_002",
  }),
  data: z.null().describe("Always null on an error"),
}).openapi("ErrorEnvelope", { description: "A drive API error: the catalog code and a message" });

/**
 * The success envelope around `data`. An inline `data` schema gets `description`; a component
 * keeps its own (describing it here would replace the component's description everywhere).
 */
function envelopeOf<T extends z.ZodTypeAny>(
  data: T,
  status: 200 | 201 = 200,
  description = "The answer",
) {
  return z.object({
    result: z.literal(true).describe("Always true on a success"),
    code: z.literal(status).describe("The HTTP status, repeated"),
    message: z.string().describe("A short word on the outcome").openapi({
      example: status === 201 ? "Created" : "OK",
    }),
    data: (getRefId(data) || data.description ? data : data.describe(description)) as T,
  });
}

/**
 * A JSON request body validated by `schema`; with `required` false a request may send none.
 * `example` is the body "try it" sends (else the viewer composes one from every property's
 * example, optional ones included); tests/drive/openapi_examples_test.ts replays it.
 */
export function jsonBody<T extends z.ZodTypeAny>(
  schema: T,
  required = true,
  example?: z.input<T>,
) {
  const media = example === undefined ? { schema } : { schema, example };
  return { required, content: { "application/json": media } };
}

/** A JSON envelope success response entry. */
export function jsonOk<T extends z.ZodTypeAny>(
  data: T,
  description: string,
  status: 200 | 201 = 200,
) {
  return {
    [status]: {
      description,
      content: { "application/json": { schema: envelopeOf(data, status, description) } },
    },
  } as {
    [K in typeof status]: {
      description: string;
      content: { "application/json": { schema: ReturnType<typeof envelopeOf<T>> } };
    };
  };
}

/**
 * Error response entries for the given codes, grouped by HTTP status, each listing its codes
 * and meanings, answered in `schema` (the drive envelope or the admin API's error object).
 */
export function errorResponsesWith<S extends z.ZodTypeAny>(schema: S, codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: S } } }
  > = {};
  for (const [status, list] of byStatus) {
    out[status] = {
      description: markdownText(list.map((c) => `${c}: ${ERROR_CATALOG[c].meaning}`).join("; ")),
      content: { "application/json": { schema } },
    };
  }
  return out;
}

/** A JSON answer without the drive API's envelope (the admin and account APIs): `schema`. */
export const plainJson = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/**
 * The answers of a route of an API without the envelope, whose errors `errors` declares:
 * `schema` as JSON (200, `description`), or one of the errors `codes` name.
 */
export const plainAnswersWith = <S extends z.ZodTypeAny>(
  errors: (...codes: ErrorCode[]) => ReturnType<typeof errorResponsesWith<S>>,
) =>
<T extends z.ZodTypeAny>(schema: T, description: string, ...codes: ErrorCode[]) => ({
  200: plainJson(schema, description),
  ...errors(...codes),
});

/**
 * Error response entries of a drive API route. Every route adds the authentication and
 * validation codes, and REQUEST_002: any request may carry a body, and one over the limit is
 * refused before the route runs.
 */
export function errorResponses(...codes: ErrorCode[]) {
  return errorResponsesWith(ErrorEnvelopeSchema, [
    "REQUEST_001",
    "REQUEST_002",
    "AUTH_001",
    "AUTH_002",
    ...codes,
  ]);
}

/**
 * A drive route's answers: `data` in the success envelope (200, `description`), and the errors
 * `codes` name beside those every route has (errorResponses).
 */
export function jsonAnswers<T extends z.ZodTypeAny>(
  data: T,
  description: string,
  ...codes: ErrorCode[]
) {
  return { ...jsonOk(data, description), ...errorResponses(...codes) };
}

/** A drive route that creates something: `data` in the 201 envelope, and the errors `codes` name. */
export function createdAnswers<T extends z.ZodTypeAny>(
  data: T,
  description: string,
  ...codes: ErrorCode[]
) {
  return { ...jsonOk(data, description, 201), ...errorResponses(...codes) };
}

/** Why a file named by its seq cannot be reached: missing, not a file, or not the caller's. */
export const FILE_ACCESS_ERRORS = [
  "RESOURCE_002",
  "RESOURCE_006",
  "PERMISSION_002",
  "PERMISSION_004",
] as const;

/** Why a folder named by its seq cannot be reached: missing, not a folder, or not the caller's. */
export const FOLDER_ACCESS_ERRORS = [
  "RESOURCE_002",
  "RESOURCE_005",
  "PERMISSION_002",
  "PERMISSION_004",
] as const;

/** Why a new name is refused: the folder has one like it, or it is no valid name. */
export const NAME_ERRORS = ["RESOURCE_003", "RESOURCE_004"] as const;

/** The OpenAPI metadata placing a parameter in the query string under `name`. */
export const queryParam = (name: string) => ({ param: { name, in: "query" as const } });

/**
 * A seq in a path or query string: plain decimal digits only (z.coerce.number would also take
 * "1e3", "0x10" or " 7 "), at most 16 of them.
 */
const seqString = (message: string) =>
  z.string({ error: message }).regex(/^[1-9]\d{0,15}$/, message).transform(Number);

/** A seq in the path; `description` says whose (the caller may refine it with .describe()). */
export const seqParam = (name: string, description = `The ${name} (a positive integer)`) =>
  seqString(`${name} must be a positive integer`).openapi({
    param: { name, in: "path" },
    type: "integer",
    description,
    example: 1,
  });

export const optionalSeq = (description: string, name = "ss") =>
  seqString(`${name} must be a positive integer`).optional().openapi({
    type: "integer",
    description,
    example: 2,
  });

/** Request-body seq fields are JSON numbers; null means "not given". */
export const bodySeq = (description: string) =>
  z.number().int().positive().nullish().openapi({ description, example: 3 });

/**
 * Documents `route` whole on `app` and returns it without its body, for `app.openapi`: the
 * parameters are validated as on any route, the body is read by the handler itself (a streamed
 * upload; a password whose throttle is checked before the body is parsed). app.openapi would
 * otherwise parse a JSON or form body before the handler runs.
 */
export function bodyReadByHandler<E extends Env, R extends RouteConfig>(
  app: OpenAPIHono<E>,
  route: R,
): R {
  const { middleware: _middleware, hide: _hide, ...documented } = route;
  app.openAPIRegistry.registerPath(documented);
  const { body: _body, ...request } = route.request ?? {};
  return { ...route, request, hide: true };
}

/**
 * Documents the HEAD operation `head` of `route`'s path and returns `route` (a GET) for
 * `app.openapi`: Hono answers HEAD with the path's GET route and drops the body, so a HEAD route
 * of its own would never run. The handler tells the two apart by `c.req.method`.
 */
export function servedWithHead<E extends Env, R extends RouteConfig & { method: "get" }>(
  app: OpenAPIHono<E>,
  route: R,
  head: Omit<RouteConfig, "method" | "path" | "middleware">,
): R {
  // The type keeps `middleware` out, but a spread RouteConfig could still carry it (or `hide`),
  // and the generator copies every key it does not know into the operation: the document once
  // showed `middleware: [null]` on this HEAD. Dropped here, whatever the caller passes.
  const { middleware: _middleware, hide: _hide, ...documented } = head as RouteConfig;
  app.openAPIRegistry.registerPath({ ...documented, method: "head", path: route.path });
  return route;
}

/**
 * The `content` of a response that is a stored file's bytes. They are answered in the file's
 * own Content-Type (application/octet-stream when none is known), so the media range is any:
 * one fixed type here would be wrong for every other file (a validating proxy reports it).
 */
export const fileBytes = (description: string) => ({
  "*/*": { schema: z.string().openapi({ format: "binary", description }) },
});
