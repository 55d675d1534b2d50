/**
 * Every route of the drive, admin and public APIs (and the operations routes) is declared once,
 * as `app.openapi(createRoute(...), handler)`: its declaration is both its document entry and its
 * validation, so neither can drift from the handler. Two ways to break that fail here:
 * - a documentation-only declaration (`registerPath`) beside a plain handler, or a plain handler
 *   (`app.get("/…", …)`) with no declaration: the source scan;
 * - a documented operation nothing serves: the documents against the app's route table (the
 *   other direction, a served route missing from its document, is
 *   tests/runtime/openapi_docs_test.ts).
 */
import assert from "node:assert/strict";
import { boot } from "../../boot.ts";
import { readConfig } from "../../config.ts";
import { API_DOCUMENTS } from "../../api/http/docs_page.ts";

const API_DIR = new URL("../../api/", import.meta.url);

/**
 * The one file that may call registerPath: api/http/openapi.ts, whose helpers (bodyReadByHandler,
 * servedWithHead) document a route and hand the same declaration to app.openapi.
 */
const REGISTER_PATH_ALLOWED = new Set(["http/openapi.ts"]);

/** Plain handlers that are no API operation, each with its reason. */
const PLAIN_HANDLERS_ALLOWED: Record<string, string> = {
  "external/index.ts": "GET /docs, the page showing the documents, is no operation of them",
  "public/static.ts": "the console and share-page shells and static/ files: HTML, not an API",
};

/** `app.get("/…"`, `x.post('/…'`, `.on(`…: a route registered outside app.openapi. */
const PLAIN_ROUTE = /\.(get|post|put|patch|delete|options|head|all)\(\s*["'`]\/|\.on\(\s*["'`[]/g;

async function* sources(dir: URL, prefix = ""): AsyncGenerator<[string, string]> {
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix + entry.name;
    if (entry.isDirectory) yield* sources(new URL(`${entry.name}/`, dir), `${rel}/`);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) {
      yield [rel, await Deno.readTextFile(new URL(entry.name, dir))];
    }
  }
}

const lineOf = (text: string, index: number) => text.slice(0, index).split("\n").length;

Deno.test("no route in api/ is documented apart from its handler, or served undeclared", async () => {
  const problems: string[] = [];
  let scanned = 0;
  for await (const [rel, text] of sources(API_DIR)) {
    scanned++;
    if (!REGISTER_PATH_ALLOWED.has(rel)) {
      for (const m of text.matchAll(/registerPath\(/g)) {
        problems.push(
          `api/${rel}:${lineOf(text, m.index)}: registerPath (declare with app.openapi)`,
        );
      }
    }
    if (rel in PLAIN_HANDLERS_ALLOWED) continue;
    for (const m of text.matchAll(PLAIN_ROUTE)) {
      problems.push(
        `api/${rel}:${lineOf(text, m.index)}: plain handler "${m[0]}" (use app.openapi)`,
      );
    }
  }
  assert.ok(scanned > 20, "the scan found the route modules");
  assert.deepEqual(problems, [], `${problems.length} problems:\n${problems.join("\n")}`);
});

Deno.test("the source scan spots both kinds of undeclared route", () => {
  const plain = `app.get("/files/:rs", h);\napp.post('/x', h);\napp.on(["GET"], "/y", h);`;
  assert.equal([...plain.matchAll(PLAIN_ROUTE)].length, 3);
  const fine = `c.get("caller"); c.req.query("dt"); app.openapi(route, h); app.use("/uploads", m);`;
  assert.equal([...fine.matchAll(PLAIN_ROUTE)].length, 0);
});

/** OpenAPI's "{param}" and Hono's ":param" (with an optional pattern) spell the same path. */
const normalize = (path: string) =>
  path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, "{$1}").replace(/\/+$/, "");

Deno.test("every documented operation is served by a route of the app", async () => {
  const service = await boot(
    readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv", DRIVE_ADMIN_TOKEN: "x".repeat(32) }),
  );
  try {
    const served = new Set(
      service.app.routes.filter((r) => r.method !== "ALL").map((r) =>
        `${r.method} ${normalize(r.path)}`
      ),
    );
    const unserved: string[] = [];
    for (const source of API_DOCUMENTS) {
      const base = source.url.replace(/\/openapi\.json$/, "");
      const doc = await (await service.app.request(source.url)).json();
      for (const [path, ops] of Object.entries(doc.paths as Record<string, object>)) {
        for (const method of Object.keys(ops)) {
          // Hono answers HEAD with the path's GET route.
          const as = method === "head" ? "GET" : method.toUpperCase();
          const route = `${as} ${normalize(base + path)}`;
          if (!served.has(route)) unserved.push(`${source.slug}: ${method} ${path}`);
        }
      }
    }
    assert.deepEqual(unserved, [], `documented but not served: ${unserved.join(", ")}`);
  } finally {
    service.close();
  }
});
