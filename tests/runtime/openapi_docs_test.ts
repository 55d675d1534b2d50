/**
 * The service's OpenAPI documents (api/http/docs_page.ts API_DOCUMENTS: the drive, admin and
 * public-link APIs) are complete: every route the app serves under a document's base is in that
 * document, and every operation carries what tests/runtime/openapi_audit.ts asks (operationId,
 * summary, descriptions, examples). A route added later without metadata, or without a
 * declaration at all, fails here.
 */
import assert from "node:assert/strict";
import { boot } from "../../boot.ts";
import { readConfig } from "../../config.ts";
import { API_DOCUMENTS } from "../../api/http/docs_page.ts";
import { auditDocument } from "./openapi_audit.ts";

/** Hono's ":param" (with an optional pattern) and OpenAPI's "{param}" spell the same path. */
const normalize = (path: string) =>
  path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, "{$1}").replace(/\/+$/, "");

/** Routes a document does not describe: the document itself and the page showing it. */
const NOT_OPERATIONS = new Set(["/openapi.json", "/docs"]);

async function withApp<T>(fn: (app: Awaited<ReturnType<typeof boot>>["app"]) => Promise<T>) {
  const service = await boot(
    readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv", DRIVE_ADMIN_TOKEN: "x".repeat(32) }),
  );
  try {
    return await fn(service.app);
  } finally {
    service.close();
  }
}

Deno.test("each API document is served without credentials and is OpenAPI 3.1", async () => {
  await withApp(async (app) => {
    assert.ok(API_DOCUMENTS.length >= 3);
    for (const source of API_DOCUMENTS) {
      const res = await app.request(source.url);
      assert.equal(res.status, 200, source.url);
      const doc = await res.json();
      assert.equal(doc.openapi, "3.1.0", source.url);
      assert.ok(Object.keys(doc.paths).length > 0, `${source.url} documents no path`);
      // The document's server is the base the routes are mounted at.
      assert.equal(doc.servers?.[0]?.url, source.url.replace(/\/openapi\.json$/, ""));
    }
  });
});

Deno.test("every route the app serves under a document's base is in that document", async () => {
  await withApp(async (app) => {
    for (const source of API_DOCUMENTS) {
      const base = source.url.replace(/\/openapi\.json$/, "");
      const doc = await (await app.request(source.url)).json();
      const documented = new Set<string>();
      for (const [path, ops] of Object.entries(doc.paths as Record<string, object>)) {
        for (const method of Object.keys(ops)) {
          documented.add(`${method.toUpperCase()} ${normalize(path)}`);
        }
      }
      const served = app.routes
        .filter((r) => r.path.startsWith(`${base}/`) && r.method !== "ALL")
        .map((r) => ({ method: r.method, path: normalize(r.path.slice(base.length)) }))
        .filter((r) => !NOT_OPERATIONS.has(r.path) && !r.path.endsWith("*"))
        .map((r) => `${r.method} ${r.path}`);
      assert.ok(served.length >= 4, `${base}: too few routes found (${served.length})`);
      const missing = [...new Set(served)].filter((r) => !documented.has(r));
      assert.deepEqual(missing, [], `${source.url} lacks: ${missing.join(", ")}`);
    }
  });
});

Deno.test("every operation has an operationId, a summary, descriptions and examples", async () => {
  await withApp(async (app) => {
    const problems: string[] = [];
    for (const source of API_DOCUMENTS) {
      const doc = await (await app.request(source.url)).json();
      problems.push(...auditDocument(doc).map((p) => `${source.slug}: ${p}`));
    }
    assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join("\n")}`);
  });
});

Deno.test("the audit finds each kind of missing metadata", () => {
  // deno-lint-ignore no-explicit-any
  const good: any = {
    openapi: "3.1.0",
    paths: {
      "/things/{id}": {
        get: {
          operationId: "getThing",
          summary: "Read a thing",
          parameters: [{
            name: "id",
            in: "path",
            description: "The thing",
            schema: { type: "integer", example: 1 },
          }],
          responses: {
            200: {
              description: "The thing",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: {
                      name: { type: "string", description: "Its name" },
                      part: { $ref: "#/components/schemas/Part" },
                    },
                  },
                },
              },
            },
          },
        },
        post: {
          operationId: "changeThing",
          summary: "Change a thing",
          requestBody: {
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  properties: { name: { type: "string", description: "Name", example: "x" } },
                },
              },
            },
          },
          responses: { 204: { description: "Changed" } },
        },
      },
    },
    components: {
      schemas: {
        Part: {
          type: "object",
          description: "A part",
          properties: { n: { type: "integer", description: "Number" } },
        },
      },
    },
  };
  assert.deepEqual(auditDocument(good), []);
  // deno-lint-ignore no-explicit-any
  const broken = (change: (doc: any) => void) => {
    const doc = structuredClone(good);
    change(doc);
    return auditDocument(doc).join("\n");
  };
  const things = "/things/{id}";
  const getSchema = (d: typeof good) =>
    d.paths[things].get.responses[200].content["application/json"].schema;
  assert.match(broken((d) => delete d.paths[things].get.operationId), /no operationId/);
  assert.match(broken((d) => d.paths[things].get.operationId = "get_thing"), /not camelCase/);
  assert.match(broken((d) => d.paths[things].post.operationId = "getThing"), /is also/);
  assert.match(broken((d) => delete d.paths[things].get.summary), /no summary/);
  assert.match(
    broken((d) => delete d.paths[things].get.parameters[0].description),
    /parameter id: no description/,
  );
  assert.match(
    broken((d) => delete d.paths[things].get.parameters[0].schema.example),
    /parameter id: no example/,
  );
  assert.match(
    broken((d) => delete getSchema(d).properties.name.description),
    /\.name: no description/,
  );
  assert.match(
    broken((d) => delete d.components.schemas.Part.properties.n.description),
    /component Part\.n: no description/,
  );
  assert.match(
    broken((d) => delete d.components.schemas.Part.description),
    /component Part: no description/,
  );
  assert.match(
    broken((d) =>
      delete d.paths[things].post.requestBody.content["application/json"].schema.properties.name
        .example
    ),
    /request application\/json: no example/,
  );
});
