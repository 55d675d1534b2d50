/**
 * What every OpenAPI document of the service must carry, as a list of problems (empty: none):
 * each operation an operationId (camelCase, unique in its document) and a summary; each parameter
 * a description and an example; each property of every schema a description (a property that is a
 * `$ref` is described by its component, and every component must be described); each JSON
 * request body at least one example. Used by tests/runtime/openapi_docs_test.ts, which also tries
 * it on small documents that break each rule.
 */

// deno-lint-ignore no-explicit-any
type Json = any;

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;
export const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;

/** `#/components/<kind>/<name>` → the object it names, or undefined. */
function deref(doc: Json, node: Json): Json {
  const ref = node?.$ref;
  if (typeof ref !== "string") return node;
  const [, , kind, name] = ref.split("/");
  return doc.components?.[kind]?.[name];
}

/** A `$ref` property, or `allOf: [$ref, {...}]` as zod-to-openapi writes a modified reference. */
function refersToComponent(schema: Json): boolean {
  if (typeof schema?.$ref === "string") return true;
  return Array.isArray(schema?.allOf) &&
    schema.allOf.some((s: Json) => typeof s?.$ref === "string");
}

function isDescribed(schema: Json): boolean {
  if (typeof schema?.description === "string" && schema.description.trim() !== "") return true;
  if (refersToComponent(schema)) return true;
  return Array.isArray(schema?.allOf) && schema.allOf.some(isDescribed);
}

/** Whether an example appears anywhere in a schema (components followed once). */
function hasExample(doc: Json, schema: Json, seen = new Set<Json>()): boolean {
  if (!schema || typeof schema !== "object" || seen.has(schema)) return false;
  seen.add(schema);
  if (schema.example !== undefined || Array.isArray(schema.examples)) return true;
  const target = deref(doc, schema);
  if (target !== schema) return hasExample(doc, target, seen);
  const children: Json[] = [
    ...Object.values(schema.properties ?? {}),
    schema.items,
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.allOf ?? []),
  ];
  return children.some((child) => hasExample(doc, child, seen));
}

/** Problems of the properties in `schema` (and below), each named from `where`. */
function schemaProblems(schema: Json, where: string, out: string[]): void {
  if (!schema || typeof schema !== "object" || typeof schema.$ref === "string") return;
  for (const [name, property] of Object.entries<Json>(schema.properties ?? {})) {
    if (!isDescribed(property)) out.push(`${where}.${name}: no description`);
    schemaProblems(property, `${where}.${name}`, out);
  }
  if (schema.items) schemaProblems(schema.items, `${where}[]`, out);
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    schemaProblems(schema.additionalProperties, `${where}{}`, out);
  }
  for (const key of ["anyOf", "oneOf", "allOf"] as const) {
    for (const [i, member] of (schema[key] ?? []).entries()) {
      schemaProblems(member, `${where}<${key}${i}>`, out);
    }
  }
}

/** Every problem of `doc`, each as "<where>: <what>". */
export function auditDocument(doc: Json): string[] {
  const out: string[] = [];
  const ids = new Map<string, string>();
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item?.[method];
      if (!op) continue;
      const at = `${method.toUpperCase()} ${path}`;
      const id = op.operationId;
      if (typeof id !== "string" || id === "") out.push(`${at}: no operationId`);
      else {
        if (!CAMEL_CASE.test(id)) out.push(`${at}: operationId "${id}" is not camelCase`);
        if (ids.has(id)) out.push(`${at}: operationId "${id}" is also ${ids.get(id)}'s`);
        ids.set(id, at);
      }
      if (typeof op.summary !== "string" || op.summary.trim() === "") {
        out.push(`${at}: no summary`);
      }
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = deref(doc, raw);
        const name = `${at} ${p?.in} parameter ${p?.name}`;
        if (!p?.description && !p?.schema?.description) out.push(`${name}: no description`);
        if (p?.example === undefined && p?.examples === undefined && !hasExample(doc, p?.schema)) {
          out.push(`${name}: no example`);
        }
      }
      const body = deref(doc, op.requestBody);
      for (const [type, media] of Object.entries<Json>(body?.content ?? {})) {
        schemaProblems(media.schema, `${at} request ${type}`, out);
        if (/json/.test(type) && !hasExample(doc, media.schema) && media.example === undefined) {
          out.push(`${at} request ${type}: no example`);
        }
      }
      for (const [status, raw] of Object.entries<Json>(op.responses ?? {})) {
        const response = deref(doc, raw);
        if (!response?.description) out.push(`${at} ${status}: no description`);
        for (const [type, media] of Object.entries<Json>(response?.content ?? {})) {
          schemaProblems(media.schema, `${at} ${status} ${type}`, out);
        }
        for (const [name, header] of Object.entries<Json>(response?.headers ?? {})) {
          if (!deref(doc, header)?.description) {
            out.push(`${at} ${status} header ${name}: no description`);
          }
        }
      }
    }
  }
  for (const [name, schema] of Object.entries<Json>(doc.components?.schemas ?? {})) {
    if (!isDescribed(schema)) out.push(`component ${name}: no description`);
    schemaProblems(schema, `component ${name}`, out);
  }
  return out;
}
