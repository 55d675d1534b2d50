/**
 * The file browser's Starred and Recent views, the star action (button and `s`), the quota bar,
 * a multiple selection downloaded as one ZIP, and emptying the trash after a confirm dialog, in
 * headless Chromium; axe on the new views and the dialog. Screenshots: tests/browser/artifacts/
 * (views-*.png).
 */
import assert from "node:assert/strict";
import { browserTest } from "./helpers.ts";
import { assertAccessible } from "./axe.ts";
import { driveUser, row, selectedRow, signInToDrive } from "./app_drive_helpers.ts";
import { readZip } from "../helpers/zip_reader.ts";
import { untilValue } from "../helpers/wait.ts";

browserTest(
  "app views: star, Starred, Recent, quota bar, selection ZIP, empty trash",
  async ({ page, server, screenshot }) => {
    const erin = await driveUser(server, "erin");
    const docs = await erin.newFolder("Docs");
    await erin.newFile("inside.txt", "in docs\n", docs);
    await erin.newFile("plan.txt", "plan\n");
    await erin.newFile("budget.csv", "a,b\n1,2\n");
    await signInToDrive(page, server, "erin");
    await row(page, "plan.txt").waitFor();

    // The quota bar: what the files take of the default quota (10 GiB).
    const quota = page.getByRole("meter", { name: "Storage used" });
    await quota.waitFor();
    await page.getByText(/^\d+ B of 10 GB used$/).waitFor();
    assert.equal(Number(await quota.getAttribute("value")), 5 + 8 + 8);

    // Star with the button, then with `s`; both are in Starred.
    await row(page, "plan.txt").click();
    await page.getByRole("button", { name: "Add star" }).click();
    await page.getByRole("status").getByText("Starred “plan.txt”.").waitFor();
    await page.getByRole("button", { name: "Remove star" }).waitFor();
    await row(page, "Docs").click();
    await page.keyboard.press("s");
    await page.getByRole("status").getByText("Starred “Docs”.").waitFor();
    await page.getByRole("navigation", { name: "Drive views" })
      .getByRole("link", { name: "Starred" }).click();
    await page.getByRole("heading", { level: 1, name: "Starred" }).waitFor();
    await row(page, "plan.txt").waitFor();
    await row(page, "Docs").waitFor();
    assert.equal(await page.getByRole("listbox").getByRole("option").count(), 2);
    await assertAccessible(page, "Starred");
    await screenshot("views-starred-1280");
    const starred = (await erin.call("GET", "/starred")).body.data.items;
    assert.deepEqual(starred.map((i: { name: string }) => i.name).sort(), ["Docs", "plan.txt"]);
    // `s` on a starred row removes it from the view.
    await row(page, "plan.txt").click();
    await page.keyboard.press("s");
    await page.getByRole("status").getByText("Removed the star from “plan.txt”.").waitFor();
    await row(page, "plan.txt").waitFor({ state: "detached" });

    // Recent: a file uploaded just now comes first.
    await erin.newFile("fresh upload.txt", "new\n");
    await page.getByRole("navigation", { name: "Drive views" })
      .getByRole("link", { name: "Recent" }).click();
    await page.getByRole("heading", { level: 1, name: "Recent" }).waitFor();
    // The log is written just after the commit: open Recent again until the file is there.
    await untilValue("Recent shows the upload", async () => {
      if (await row(page, "fresh upload.txt").count()) return true;
      await page.reload();
      await page.getByRole("heading", { level: 1, name: "Recent" }).waitFor();
      await page.getByRole("listbox").getByRole("option").first().waitFor();
      return null;
    });
    assert.match(
      await page.getByRole("listbox").getByRole("option").first().innerText(),
      /^fresh upload\.txt/,
    );
    await assertAccessible(page, "Recent");
    await screenshot("views-recent-1280");

    // Three items from My drive, one ZIP.
    await page.getByRole("navigation", { name: "Drive views" })
      .getByRole("link", { name: "My drive" }).click();
    await row(page, "plan.txt").click();
    await row(page, "budget.csv").click({ modifiers: ["Control"] });
    await row(page, "Docs").click({ modifiers: ["Control"] });
    await selectedRow(page, "Docs").waitFor();
    const [zip] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download as ZIP" }).click(),
    ]);
    assert.equal(zip.suggestedFilename(), "download.zip");
    const archive = readZip(await Deno.readFile(await zip.path()));
    assert.deepEqual(archive.entries.map((e) => e.name).sort(), [
      "Docs/",
      "Docs/inside.txt",
      "budget.csv",
      "plan.txt",
    ]);
    assert.equal(archive.text("Docs/inside.txt"), "in docs\n");

    // Trash two, then empty the trash through the confirm dialog.
    await row(page, "plan.txt").click();
    await row(page, "budget.csv").click({ modifiers: ["Control"] });
    await page.getByRole("button", { name: "Move to trash" }).click();
    await page.getByRole("status").getByText("2 items moved to the trash.").waitFor();
    await page.getByRole("navigation", { name: "Drive views" })
      .getByRole("link", { name: "Trash" }).click();
    await row(page, "budget.csv").waitFor();
    await page.getByRole("button", { name: "Empty trash" }).click();
    const dialog = page.getByRole("dialog", { name: "Empty the trash?" });
    await dialog.waitFor();
    await assertAccessible(page, "the empty-trash dialog");
    await screenshot("views-empty-trash-1280");
    // Cancel keeps everything; then empty for real.
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    assert.equal((await erin.call("GET", "/trash")).body.data.items.length, 2);
    await page.getByRole("button", { name: "Empty trash" }).click();
    await dialog.getByRole("button", { name: "Empty trash" }).click();
    await page.getByRole("status").getByText("Trash emptied: 2 items deleted for good.").waitFor();
    assert.deepEqual((await erin.call("GET", "/trash")).body.data.items, []);
    // The quota bar follows: only Docs/inside.txt and the upload are left.
    await untilValue(
      "the quota bar shows the freed bytes",
      async () => Number(await quota.getAttribute("value")) === 8 + 4 ? true : null,
    );
  },
);
