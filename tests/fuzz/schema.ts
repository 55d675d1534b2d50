/**
 * Request values from a JSON Schema (the drive API's OpenAPI document, the admin API's zod
 * schemas through `z.toJSONSchema`): values that look valid (the declared type, enum, pattern
 * and range, and the ids of things that exist when the field names one), into which hostile
 * values are mixed field by field: a wrong type, a huge or invisible string, a missing required
 * field, an unknown extra field.
 */
import fc from "./fast_check.ts";
import { hostileJson, hostileNumber, hostileString, nameLike, oneIn } from "./values.ts";

// deno-lint-ignore no-explicit-any
export type JsonSchema = Record<string, any>;

export interface SchemaContext {
  /** Resolves a `$ref` ("#/components/schemas/X"). */
  resolve(ref: string): JsonSchema;
  /** Valid-looking values for a field the test world knows (ids, tokens), by field name. */
  known(field: string): fc.Arbitrary<unknown> | undefined;
}

function deref(schema: JsonSchema, ctx: SchemaContext): JsonSchema {
  let s = schema;
  for (let i = 0; i < 10 && typeof s.$ref === "string"; i++) s = ctx.resolve(s.$ref);
  return s;
}

/** Fields whose strings are names of files, folders or people. */
const NAME_FIELDS = new Set(["fn", "rn", "name", "filename", "accountId", "label", "releasedBy"]);

/** A value of the schema's own type and shape ("valid-looking"), with hostile leaves mixed in. */
export function valueOf(
  schema: JsonSchema,
  ctx: SchemaContext,
  field = "",
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = deref(schema, ctx);
  const known = field ? ctx.known(field) : undefined;
  const plain = plainValueOf(s, ctx, field, depth);
  const valid = known ? fc.oneof({ weight: 3, arbitrary: known }, plain) : plain;
  return fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: 1, arbitrary: hostileJson },
  );
}

function plainValueOf(
  s: JsonSchema,
  ctx: SchemaContext,
  field: string,
  depth: number,
): fc.Arbitrary<unknown> {
  for (const key of ["anyOf", "oneOf"]) {
    if (Array.isArray(s[key]) && s[key].length) {
      return fc.oneof(
        ...s[key].map((x: JsonSchema) => plainValueOf(deref(x, ctx), ctx, field, depth)),
      );
    }
  }
  if (Array.isArray(s.allOf) && s.allOf.length) {
    return plainValueOf(deref(s.allOf[0], ctx), ctx, field, depth);
  }
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) {
    return fc.oneof(
      ...types.map((t) => ({
        weight: t === "null" ? 1 : 4,
        arbitrary: plainValueOf({ ...s, type: t }, ctx, field, depth),
      })),
    );
  }
  switch (types[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
    case "number": {
      const min = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
      const max = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : 1_000);
      const lo = Math.max(min, -1e9);
      const hi = Math.max(lo, Math.min(max, 1e12));
      return types[0] === "integer"
        ? fc.oneof(
          fc.integer({ min: lo, max: Math.min(hi, lo + 100) }),
          fc.integer({ min: lo, max: hi }),
        )
        : fc.double({ min: lo, max: hi, noNaN: true });
    }
    case "string":
      return stringOf(s, field);
    case "array":
      if (depth > 3) return fc.constant([]);
      return fc.array(valueOf(s.items ?? {}, ctx, field, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.min(s.maxItems ?? 4, 4),
      });
    case "object":
      if (depth > 3) return fc.constant({});
      return objectOf(s, ctx, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(s: JsonSchema, field: string): fc.Arbitrary<string> {
  if (s.format === "binary") return fc.string({ maxLength: 16 });
  if (s.format === "email") {
    return fc.oneof(fc.emailAddress(), fc.constant("a@b.c"), fc.constant("not-an-email"));
  }
  if (typeof s.pattern === "string") {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((x) =>
        x.length <= (s.maxLength ?? 1_000) && x.length >= (s.minLength ?? 0)
      );
    } catch { /* a pattern fast-check cannot generate from: fall through */ }
  }
  if (NAME_FIELDS.has(field)) return nameLike;
  const min = s.minLength ?? 0;
  const max = Math.max(min, Math.min(s.maxLength ?? 40, 40));
  return fc.oneof(
    { weight: 8, arbitrary: fc.string({ minLength: min, maxLength: max }) },
    { weight: 1, arbitrary: fc.constant("x".repeat(Math.max(min, s.maxLength ?? 64))) },
    { weight: 1, arbitrary: fc.constant("x".repeat((s.maxLength ?? 64) + 1)) },
  );
}

/**
 * An object of the schema's properties: required ones nearly always, optional ones half the
 * time, sometimes an unknown extra field.
 */
function objectOf(s: JsonSchema, ctx: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const required = new Set<string>(s.required ?? []);
  const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>);
  const fields = props.map(([name, sub]) =>
    fc.tuple(
      fc.constant(name),
      required.has(name)
        ? fc.oneof({ weight: 15, arbitrary: fc.constant(true) }, fc.constant(false))
        : fc.boolean(),
      valueOf(sub, ctx, name, depth + 1),
    )
  );
  const extra = oneIn(
    6,
    fc.tuple(fc.constantFrom("extra", "__proto__", "constructor", "password", ""), hostileJson),
  );
  return fc.tuple(fc.tuple(...fields), extra).map(([entries, more]) => {
    const out: Record<string, unknown> = {};
    for (const [name, present, value] of entries) {
      if (present) {
        Object.defineProperty(out, name, { value, enumerable: true, writable: true });
      }
    }
    if (more) {
      // defineProperty: an own "__proto__" key, as JSON.parse would produce on the server.
      Object.defineProperty(out, more[0], { value: more[1], enumerable: true, writable: true });
    }
    return out;
  });
}

/** A query or path value of the schema's kind (or a known id), as text. */
export function validTextOf(
  schema: JsonSchema,
  ctx: SchemaContext,
  field: string,
): fc.Arbitrary<string> {
  const s = deref(schema, ctx);
  const known = ctx.known(field);
  const plain = plainValueOf(s, ctx, field, 0).map((v) =>
    typeof v === "string" ? v : JSON.stringify(v) ?? ""
  );
  return known ? fc.oneof({ weight: 3, arbitrary: known.map(String) }, plain) : plain;
}

/** A hostile query or path value. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: hostileNumber.map(String) },
);

/** A query, path or form value: mostly of the schema's kind, sometimes hostile. */
export function textOf(
  schema: JsonSchema,
  ctx: SchemaContext,
  field: string,
): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: validTextOf(schema, ctx, field) },
    { weight: 1, arbitrary: hostileText },
  );
}
