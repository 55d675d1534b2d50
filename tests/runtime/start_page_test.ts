/**
 * `GET /` is the end-user app (issue 24; before it, a redirect to the start page, issue 21 bug
 * 13c). The app's shell links the API reference and the start page without JavaScript, and the
 * start page links the API reference, the admin console and the OpenAPI documents, each of
 * which answers. The app's own links (footer) are checked in Chromium (tests/browser/app_test.ts).
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";

const linksOf = (html: string) => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);

Deno.test("GET / and the app's pages serve the app shell, which links the start page", async () => {
  await withServer(async (server) => {
    for (const path of ["/", "/signin", "/account"]) {
      const res = await fetch(`${server.url}${path}`, { redirect: "manual" });
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      const html = await res.text();
      assert.ok(html.includes('src="/static/build/app.js"'), path);
      assert.ok(linksOf(html).includes("/start"), path);
      assert.ok(linksOf(html).includes("/api/external/v1/docs"), path);
    }
    const bundle = await fetch(`${server.url}/static/build/app.js`);
    await bundle.body?.cancel();
    assert.equal(bundle.status, 200);
  });
});

Deno.test("the start page links the API reference, the console and the documents", async () => {
  await withServer(async (server) => {
    const page = await fetch(`${server.url}/start`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    const links = linksOf(await page.text());
    for (
      const expected of [
        "/",
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
