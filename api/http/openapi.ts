/**
 * Helpers for declaring routes with @hono/zod-openapi: the zod schemas validate requests and
 * produce the OpenAPI document, so the two cannot drift.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Env } from "hono";
import { ERROR_CATALOG, type ErrorCode, fail } from "../../kv/errors.ts";

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

export const ErrorEnvelopeSchema = z.object({
  result: z.literal(false),
  code: z.number().int().openapi({ description: "HTTP status" }),
  message: z.string(),
  errorCode: z.string().openapi({ example: "RESOURCE_002" }),
  data: z.null(),
}).openapi("ErrorEnvelope");

export function envelopeOf<T extends z.ZodTypeAny>(data: T, status: 200 | 201 = 200) {
  return z.object({
    result: z.literal(true),
    code: z.literal(status),
    message: z.string().openapi({ example: status === 201 ? "Created" : "OK" }),
    data,
  });
}

/** A JSON request body validated by `schema`; with `required` false a request may send none. */
export function jsonBody<T extends z.ZodTypeAny>(schema: T, required = true) {
  return { required, content: { "application/json": { schema } } };
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
      content: { "application/json": { schema: envelopeOf(data, status) } },
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
 * and meanings. Every route adds the authentication and validation codes, and REQUEST_002: any
 * request may carry a body, and one over the limit is refused before the route runs.
 */
export function errorResponses(...codes: ErrorCode[]) {
  const all: ErrorCode[] = ["REQUEST_001", "REQUEST_002", "AUTH_001", "AUTH_002", ...codes];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(all)) {
    const status = ERROR_CATALOG[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: typeof ErrorEnvelopeSchema } } }
  > = {};
  for (const [status, list] of byStatus) {
    out[status] = {
      description: list.map((c) => `${c}: ${ERROR_CATALOG[c].meaning}`).join("; "),
      content: { "application/json": { schema: ErrorEnvelopeSchema } },
    };
  }
  return out;
}

/** The OpenAPI metadata placing a parameter in the query string under `name`. */
export const queryParam = (name: string) => ({ param: { name, in: "query" as const } });

/**
 * A seq in a path or query string: plain decimal digits only (z.coerce.number would also take
 * "1e3", "0x10" or " 7 "), at most 16 of them.
 */
const seqString = (message: string) =>
  z.string({ error: message }).regex(/^[1-9]\d{0,15}$/, message).transform(Number);

export const seqParam = (name: string) =>
  seqString(`${name} must be a positive integer`).openapi({
    param: { name, in: "path" },
    type: "integer",
    example: 1,
  });

export const optionalSeq = (description: string, name = "ss") =>
  seqString(`${name} must be a positive integer`).optional().openapi({
    type: "integer",
    description,
  });

/** Request-body seq fields are JSON numbers; null means "not given". */
export const bodySeq = (description: string) =>
  z.number().int().positive().nullish().openapi({ description });
