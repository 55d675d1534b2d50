/** zod validation for hand-written routes (admin API, streaming endpoints). */
import type { Context } from "hono";
import type { z } from "zod";
import { fail } from "../../kv/errors.ts";
import { describeZodError } from "./openapi.ts";

/** Largest JSON body accepted by hand-written routes. */
export const MAX_JSON_BODY = 64 * 1024;

/** Reads a JSON body (bounded) and validates it; errors name the field. */
export async function validJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) fail("REQUEST_003", "Send the body as application/json");
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_JSON_BODY) {
    fail("REQUEST_002", `JSON bodies are limited to ${MAX_JSON_BODY} bytes`);
  }
  const text = await c.req.text();
  if (new TextEncoder().encode(text).byteLength > MAX_JSON_BODY) {
    fail("REQUEST_002", `JSON bodies are limited to ${MAX_JSON_BODY} bytes`);
  }
  let value: unknown;
  try {
    value = text === "" ? {} : JSON.parse(text);
  } catch {
    fail("REQUEST_005", "The request body is not valid JSON");
  }
  return validValue(schema, value);
}

/** Like validJson, but a request with no body at all (no type, no length) validates `{}`. */
export function validOptionalJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const length = c.req.header("content-length");
  if (!c.req.header("content-type") && (length === undefined || length === "0")) {
    return Promise.resolve(validValue(schema, {}));
  }
  return validJson(c, schema);
}

export function validValue<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const { field, message } = describeZodError(parsed.error);
    fail("REQUEST_001", message, field);
  }
  return parsed.data;
}

export function validQuery<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return validValue(schema, c.req.query());
}

/** A positive integer path parameter, or REQUEST_001 naming it. */
export function seqFromPath(c: Context, name: string): number {
  const raw = c.req.param(name) ?? "";
  if (!/^[1-9]\d{0,15}$/.test(raw)) fail("REQUEST_001", `${name} must be a positive integer`, name);
  return Number(raw);
}
