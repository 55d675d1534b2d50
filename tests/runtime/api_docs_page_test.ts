/**
 * The API reference page and its script: the page loads Scalar from this server (no other
 * origin), under a content security policy that keeps it there, and the committed copy of
 * Scalar's standalone build (static/vendor/scalar/) is exactly the pinned npm package's file
 * (scripts/vendor_api_reference.ts).
 */
import assert from "node:assert/strict";
import { API_DOCUMENTS, SCALAR_SCRIPT_PATH } from "../../api/http/docs_page.ts";
import { scalarStandalone, VENDORED } from "../../scripts/vendor_api_reference.ts";
import { withServer } from "../helpers/server.ts";

const sha256 = async (bytes: Uint8Array) =>
  Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");

Deno.test("the committed Scalar build is the pinned npm package's file", async () => {
  const committed = await Deno.readFile(VENDORED);
  assert.equal(
    await sha256(committed),
    await sha256(await scalarStandalone()),
    "static/vendor/scalar/standalone.js is stale: run deno run -A scripts/vendor_api_reference.ts",
  );
});

Deno.test("the docs page loads Scalar and the three documents from this server only", async () => {
  await withServer(async (server) => {
    const page = await fetch(`${server.url}/api/external/v1/docs`);
    assert.equal(page.status, 200);
    const csp = page.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'(;|$)/);
    const html = await page.text();
    assert.ok(html.includes(`<script src="${SCALAR_SCRIPT_PATH}">`));
    assert.doesNotMatch(html, /https?:\/\//, "no absolute URL: everything comes from this server");
    for (const source of API_DOCUMENTS) assert.ok(html.includes(source.url), source.url);
    const script = await fetch(`${server.url}${SCALAR_SCRIPT_PATH}`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type") ?? "", /javascript/);
    assert.equal((await script.bytes()).length, (await Deno.readFile(VENDORED)).length);
  });
});
