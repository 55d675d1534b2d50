/**
 * WebDAV's methods are declared once, in dav/routes.ts's DAV_METHODS (they are no OpenAPI
 * operations, so tests/runtime/routes_declared_once_test.ts, which scans api/, does not apply):
 * no other file of dav/ registers a route, and routes.ts registers only the one catch-all handler.
 */
import assert from "node:assert/strict";

const DAV_DIR = new URL("../../dav/", import.meta.url);
/** A route registered on a Hono app (named `app`, as everywhere in the service). */
const ROUTE = /\bapp\.(get|post|put|patch|delete|options|head|all|on|route|mount)\(/g;

Deno.test("dav/ registers routes in routes.ts only: the catch-all dispatching on DAV_METHODS", async () => {
  const found: string[] = [];
  for await (const e of Deno.readDir(DAV_DIR)) {
    if (!e.name.endsWith(".ts") || e.name.endsWith("_test.ts")) continue;
    const text = await Deno.readTextFile(new URL(e.name, DAV_DIR));
    for (const m of text.matchAll(ROUTE)) found.push(`${e.name}: ${m[0]}`);
  }
  assert.deepEqual(found.sort(), ["routes.ts: app.all(", "routes.ts: app.all("]);
});
