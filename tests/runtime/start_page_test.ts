/**
 * `GET /` leads somewhere (issue 21, bug 13c): until the web app exists, a redirect to a small
 * page that links the API reference, the admin console and the OpenAPI documents, each of which
 * answers.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";

Deno.test("GET / redirects to a page linking the API reference, the console and the documents", async () => {
  await withServer(async (server) => {
    const root = await fetch(`${server.url}/`, { redirect: "manual" });
    await root.body?.cancel();
    assert.equal(root.status, 302);
    const location = root.headers.get("location")!;
    const page = await fetch(new URL(location, server.url));
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    const html = await page.text();
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    for (
      const expected of [
        "/api/external/v1/docs",
        "/admin",
        "/api/external/v1/openapi.json",
        "/admin/api/openapi.json",
        "/public/v1/openapi.json",
      ]
    ) assert.ok(links.includes(expected), `the page links ${expected}`);
    for (const link of links) {
      const res = await fetch(new URL(link, server.url));
      await res.body?.cancel();
      assert.equal(res.status, 200, link);
    }
  });
});
