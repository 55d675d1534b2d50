/**
 * The console's Activity page in Chromium: entries newest first, the kind and resource filters,
 * a field error for a malformed filter, and the narrow layout without sideways scrolling.
 */
import assert from "node:assert/strict";
import { browserTest, openSection, overflowsHorizontally, signIn } from "./helpers.ts";
import { newApiUser } from "../helpers/api.ts";

browserTest(
  "console: activity lists changes and downloads, and filters them",
  async ({ page, server, screenshot }) => {
    const ana = await newApiUser(server, "ana");
    const folder = await ana.newFolder("Quarterly");
    const file = await ana.newFile("q3.txt", "numbers", folder);
    const res = await ana.fetch(`/files/${file}/download`);
    assert.equal(await res.text(), "numbers");

    await signIn(page, server);
    await openSection(page, "Activity");
    const rows = page.locator("tbody tr");
    await page.locator('td[data-label="What"]', { hasText: "Quarterly (seq" }).first().waitFor();
    await page.locator('td[data-label="Kind"]', { hasText: "downloaded" }).waitFor();
    // The newest first: the download is above the folder's creation.
    const kinds = await page.locator('td[data-label="Kind"]').allInnerTexts();
    assert.ok(kinds.indexOf("downloaded") < kinds.lastIndexOf("created"), kinds.join());
    await screenshot("console-activity");

    await page.getByLabel("Kind").selectOption("downloaded");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('td[data-label="Kind"]')].every((td) =>
        td.textContent === "downloaded"
      )
    );
    assert.equal(await rows.count(), 1);
    await page.locator('td[data-label="What"]', { hasText: "via: direct" }).waitFor();

    await page.getByLabel("Kind").selectOption("");
    await page.getByLabel("Resource seq").fill(String(folder));
    await page.getByRole("button", { name: "Show" }).click();
    // The folder's one entry replaces the download's.
    await page.locator('td[data-label="Kind"]', { hasText: "created" }).waitFor();
    assert.deepEqual(await page.locator('td[data-label="Kind"]').allInnerTexts(), ["created"]);

    await page.getByLabel("User seq").fill("ana");
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByText("Enter a positive whole number").waitFor();
    assert.equal(await page.getByLabel("User seq").getAttribute("aria-invalid"), "true");

    await page.setViewportSize({ width: 390, height: 800 });
    assert.equal(await overflowsHorizontally(page), false);
  },
);
