/**
 * The API reference page (/api/external/v1/docs, api/http/docs_page.ts) in Chromium on a 390 px
 * phone screen: Scalar renders from this server alone (the harness fails any request to another
 * origin), the operation paths read as paths, not one letter per line, nothing scrolls sideways,
 * and try-it-out is offered; the admin and public-link documents are one choice away.
 */
import assert from "node:assert/strict";
import { browserTest, overflowsHorizontally } from "./helpers.ts";

/** The elements Scalar writes an operation's path into (sidebar and operation headings). */
const PATH_SELECTOR = ".endpoint-path, .operation-path";

browserTest(
  "the API reference reads well at 390 px, with try-it-out, from this server only",
  async ({
    server,
    page,
  }) => {
    await page.goto(`${server.url}/api/external/v1/docs`);
    await page.locator(PATH_SELECTOR).first().waitFor();
    const paths = await page.locator(PATH_SELECTOR).evaluateAll((elements) =>
      elements.filter((e) => (e as HTMLElement).offsetParent !== null).map((e) => {
        // The lines the text occupies: the distinct tops of its rendered fragments.
        const range = document.createRange();
        range.selectNodeContents(e);
        const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return {
          text: (e.textContent ?? "").trim(),
          width: e.getBoundingClientRect().width,
          lines: Math.max(1, tops.size),
        };
      })
    );
    assert.ok(paths.length >= 5, `too few paths rendered: ${paths.length}`);
    assert.ok(paths.some((p) => p.text === "/folders"), "the /folders operation is shown");
    for (const p of paths) {
      // One letter per line would give about 1 character a line; a readable path has many.
      const perLine = p.text.length / p.lines;
      assert.ok(
        perLine >= Math.min(p.text.length, 12),
        `"${p.text}" wraps into ${p.lines} lines ${p.width}px wide`,
      );
    }
    assert.equal(await overflowsHorizontally(page), false, "the page scrolls sideways");
    // Try-it-out: each operation offers to send a test request. Scalar renders operations as
    // they scroll into view, and the first one is below the introduction on a phone.
    const testRequest = page.getByRole("button", { name: /test request/i }).first();
    for (let i = 0; i < 20 && !(await testRequest.isVisible()); i++) {
      await page.mouse.wheel(0, 600);
      await page.waitForTimeout(200);
    }
    await testRequest.waitFor();
    // The other documents are offered too.
    const html = await page.content();
    for (const title of ["Admin API", "Public share-link API"]) {
      assert.ok(html.includes(title), `${title} is not offered`);
    }
  },
  { viewport: { width: 390, height: 844 } },
);
