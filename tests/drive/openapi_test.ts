import assert from "node:assert/strict";
import { boot } from "../../boot.ts";
import { readConfig } from "../../config.ts";
import { withServer } from "../helpers/server.ts";

const BASE = "/api/external/v1";

/** Hono's ":param" and our "{param}" spell the same path. */
const normalize = (path: string) => path.replace(/:([A-Za-z_]+)/g, "{$1}").replace(/\/+$/, "");

Deno.test("every external API route is in openapi.json, with its error codes", async () => {
  const service = await boot(
    readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv", DRIVE_ADMIN_TOKEN: "x".repeat(32) }),
  );
  try {
    const { app } = service;
    const res = await app.request(`${BASE}/openapi.json`);
    assert.equal(res.status, 200);
    const doc = await res.json();
    assert.equal(doc.openapi, "3.1.0");
    const documented = new Set<string>();
    for (
      const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    ) {
      for (const method of Object.keys(ops)) {
        documented.add(`${method.toUpperCase()} ${normalize(path)}`);
      }
    }
    const served = app.routes
      .filter((r) => r.path.startsWith(BASE) && r.method !== "ALL")
      .map((r) => `${r.method} ${normalize(r.path.slice(BASE.length))}`)
      .filter((r) => !r.endsWith(" /openapi.json") && !r.endsWith(" /docs"));
    assert.ok(served.length >= 1);
    const missing = served.filter((r) => !documented.has(r));
    assert.deepEqual(missing, [], `routes missing from openapi.json: ${missing.join(", ")}`);
    // Every operation documents at least its auth/validation failures next to its success.
    for (
      const [path, ops] of Object.entries(
        doc.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
      )
    ) {
      for (const [method, op] of Object.entries(ops)) {
        const statuses = Object.keys(op.responses);
        assert.ok(
          statuses.some((s) => s.startsWith("2") || s.startsWith("3")),
          `${method} ${path} has no success response`,
        );
        assert.ok(
          statuses.some((s) => s.startsWith("4")),
          `${method} ${path} documents no error response`,
        );
      }
    }
  } finally {
    service.close();
  }
});

Deno.test("the API docs page is served locally and loads openapi.json without an API key", async () => {
  await withServer(async (server) => {
    const page = await fetch(`${server.url}${BASE}/docs`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /openapi\.json/);
    assert.doesNotMatch(html, /https?:\/\/(?!localhost)[a-z]/i, "no external assets");
    const spec = await fetch(`${server.url}${BASE}/openapi.json`);
    assert.equal(spec.status, 200);
    assert.ok((await spec.json()).paths["/folders"]);
  });
});
