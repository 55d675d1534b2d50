/**
 * What each operation of the three served OpenAPI documents says about itself holds:
 * - it carries only Operation Object fields (a route's `middleware` once leaked into HEAD
 *   /uploads/{uploadId} as `middleware: [null]`);
 * - its `security` is what the server enforces: every operation sent without credentials is
 *   refused as unauthenticated exactly when it does not declare `security: []`, and each one
 *   declares its security (on itself or on the document).
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { type Json, writeDocuments } from "./openapi_tools.ts";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
/** The fields of an OpenAPI 3.1 Operation Object (plus `x-` extensions). */
const OPERATION_FIELDS = new Set([
  "tags",
  "summary",
  "description",
  "externalDocs",
  "operationId",
  "parameters",
  "requestBody",
  "responses",
  "callbacks",
  "deprecated",
  "security",
  "servers",
]);

async function servedDocuments() {
  const dir = await Deno.makeTempDir({ prefix: "openapi-ops-" });
  try {
    return await withServer((server) => writeDocuments(server.url, dir));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

function* operations(doc: Json): Generator<[string, string, Json]> {
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of METHODS) if (item[method]) yield [method, path, item[method]];
  }
}

Deno.test("every operation carries only OpenAPI Operation Object fields", async () => {
  const docs = await servedDocuments();
  const stray: string[] = [];
  for (const { slug, doc } of docs) {
    for (const [method, path, op] of operations(doc)) {
      for (const key of Object.keys(op)) {
        if (!OPERATION_FIELDS.has(key) && !key.startsWith("x-")) {
          stray.push(`${slug} ${method.toUpperCase()} ${path}: ${key}`);
        }
      }
    }
  }
  assert.deepEqual(stray, []);
});

/** `path` with each path parameter replaced by its example (else 1). */
function concretePath(path: string, op: Json): string {
  return path.replace(/\{([^}]+)\}/g, (_, name) => {
    const p = (op.parameters ?? []).find((x: Json) => x.in === "path" && x.name === name);
    return encodeURIComponent(String(p?.example ?? p?.schema?.example ?? 1));
  });
}

/** Whether a response is the API's "who are you?" refusal (401 with its area's code). */
async function unauthenticated(res: Response): Promise<boolean> {
  const text = await res.text();
  if (res.status !== 401) return false;
  if (text === "") return true; // HEAD: the status says it
  const body = JSON.parse(text);
  return ["AUTH_001", "AUTH_004", "AUTH_009"].includes(body.errorCode ?? body.error);
}

Deno.test("an operation declares security: [] exactly when it answers without credentials", async () => {
  await withServer(async (server) => {
    const dir = await Deno.makeTempDir({ prefix: "openapi-ops-" });
    try {
      const wrong: string[] = [];
      let anonymous = 0;
      for (const { slug, doc, base } of await writeDocuments(server.url, dir)) {
        for (const [method, path, op] of operations(doc)) {
          // Without either, a reader cannot tell "anyone" from "forgotten": each must say.
          const declared = op.security ?? doc.security;
          if (declared === undefined) {
            wrong.push(`${slug} ${method.toUpperCase()} ${path}: declares no security`);
            continue;
          }
          const open = declared.length === 0 ||
            declared.some((s: Json) => Object.keys(s).length === 0);
          if (open) anonymous++;
          const res = await fetch(`${server.url}${base}${concretePath(path, op)}`, {
            method: method.toUpperCase(),
          });
          const refused = await unauthenticated(res);
          if (refused === open) {
            const says = open ? "security: [] but answered 401" : "needs credentials but answered";
            wrong.push(`${slug} ${method.toUpperCase()} ${path}: ${says} ${res.status}`);
          }
        }
      }
      assert.deepEqual(wrong, []);
      // The public link API's four, and the drive API's two token downloads.
      assert.ok(anonymous >= 6, `${anonymous} anonymous operations`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
