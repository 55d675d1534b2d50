/** zod validation for what a handler reads itself: a JSON body read after a check, form fields. */
import type { Context } from "hono";
import type { z } from "zod";
import { fail } from "../../kv/errors.ts";
import { describeZodError } from "./openapi.ts";

/**
 * Reads a JSON body and validates it; errors name the field. The body is bounded and strictly
 * decoded as UTF-8 by the area's `limitBody` (body_limit.ts), which every area mounts in front of
 * its routes: the text read here is the one it decoded.
 */
export async function validJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) fail("REQUEST_003", "Send the body as application/json");
  const text = await c.req.text();
  let value: unknown;
  try {
    value = text === "" ? {} : JSON.parse(text);
  } catch {
    fail("REQUEST_005", "The request body is not valid JSON");
  }
  return validValue(schema, value);
}

export function validValue<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const { field, message } = describeZodError(parsed.error);
    fail("REQUEST_001", message, field);
  }
  return parsed.data;
}

/** A positive integer path parameter, or REQUEST_001 naming it. */
export function seqFromPath(c: Context, name: string): number {
  const raw = c.req.param(name) ?? "";
  if (!/^[1-9]\d{0,15}$/.test(raw)) fail("REQUEST_001", `${name} must be a positive integer`, name);
  return Number(raw);
}
