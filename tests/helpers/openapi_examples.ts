/**
 * What an API reference's "try it" sends for a schema of an OpenAPI document: its example, else
 * one composed from its parts' and properties' examples. The examples tests of the drive and
 * account APIs send these.
 */

// deno-lint-ignore no-explicit-any
type Json = any;

/** The schema `node` refers to (a `$ref` into the document's components), or `node` itself. */
export const deref = (doc: Json, node: Json): Json =>
  typeof node?.$ref === "string" ? doc.components.schemas[node.$ref.split("/").pop()] : node;

/** The example a viewer shows for `schema`: its own, else one made of its properties'. */
export function composeExample(doc: Json, raw: Json): Json {
  const schema = deref(doc, raw);
  if (schema?.example !== undefined) return schema.example;
  for (const key of ["allOf", "anyOf", "oneOf"] as const) {
    if (!Array.isArray(schema?.[key])) continue;
    const parts = schema[key].map((s: Json) => composeExample(doc, s));
    if (key !== "allOf") return parts.find((p: Json) => p !== undefined);
    return Object.assign({}, ...parts.filter((p: Json) => typeof p === "object"));
  }
  if (schema?.properties) {
    const out: Record<string, Json> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const value = composeExample(doc, property);
      if (value !== undefined) out[name] = value;
    }
    return out;
  }
  if (schema?.type === "array" && schema.items) {
    const item = composeExample(doc, schema.items);
    return item === undefined ? undefined : [item];
  }
  return undefined;
}
