/**
 * The file browser of the app at `/` in headless Chromium (issue 25): sign in, a new folder,
 * files uploaded through the API, rename, trash and restore, delete forever, search with a type
 * filter, downloads, keyboard-only use, a long folder paged under a virtualized list, the phone
 * layout, Korean and the dark theme, and axe on every page. Screenshots: tests/browser/artifacts/
 * (drive-*.png).
 */
import assert from "node:assert/strict";
import { browserTest, overflowsHorizontally } from "./helpers.ts";
import { assertAccessible } from "./axe.ts";
import {
  driveUser,
  focused,
  namesIn,
  row,
  selectedRow,
  signInToDrive,
  toDocs,
} from "./app_drive_helpers.ts";

browserTest(
  "app drive: new folder, rename, trash, restore, delete forever, search, downloads",
  async ({ page, server, screenshot }) => {
    const dana = await driveUser(server, "dana");
    await dana.newFile("Quarterly report.txt", "numbers\n");
    await dana.newFile("team photo.png", new Uint8Array([137, 80, 78, 71]));
    await signInToDrive(page, server, "dana");
    await row(page, "Quarterly report.txt").waitFor();
    await assertAccessible(page, "My drive");

    // A new folder, shown at once and there through the API.
    await page.getByRole("button", { name: "New folder" }).click();
    await page.getByLabel("Folder name").fill("Plans");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await page.getByRole("status").getByText("Folder “Plans” created.").waitFor();
    await row(page, "Plans").waitFor();
    assert.deepEqual(await namesIn(dana), ["Plans", "Quarterly report.txt", "team photo.png"]);

    // Rename inline with F2.
    await row(page, "Plans").click();
    await page.keyboard.press("F2");
    const field = page.getByRole("textbox", { name: "New name" });
    await field.fill("Plans 2026");
    await field.press("Enter");
    await row(page, "Plans 2026").waitFor();
    assert.deepEqual(await namesIn(dana), ["Plans 2026", "Quarterly report.txt", "team photo.png"]);
    await toDocs(await screenshot("drive-my-drive-1280"), "web-drive.png");

    // Into the folder and back with the breadcrumbs.
    const plans = (await dana.call("GET", "/resources")).body.data.items
      .find((x: { name: string }) => x.name === "Plans 2026").resourceSeq;
    await dana.newFile("inside.txt", "inside\n", plans);
    await row(page, "Plans 2026").dblclick();
    await page.getByRole("heading", { level: 1, name: "Plans 2026" }).waitFor();
    await row(page, "inside.txt").waitFor();
    await assertAccessible(page, "a folder");
    await page.getByRole("navigation", { name: "Folder path" })
      .getByRole("link", { name: "My drive" }).click();
    await page.getByRole("heading", { level: 1, name: "My drive" }).waitFor();

    // Sort by size, largest first: the report (8 B) before the photo (4 B) before the folder.
    await page.getByRole("button", { name: "Sort by Size" }).click();
    await page.getByRole("button", { name: "Sort by Size, ascending" }).click();
    await page.getByRole("button", { name: "Sort by Size, descending" }).waitFor();
    await page.getByRole("listbox").getByRole("option").nth(2).getByText("Plans 2026").waitFor();
    assert.match(
      await page.getByRole("listbox").getByRole("option").first().innerText(),
      /Quarterly report/,
    );

    // Download the file, and the folder as ZIP.
    await row(page, "Quarterly report.txt").click();
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download", exact: true }).click(),
    ]);
    assert.equal(file.suggestedFilename(), "Quarterly report.txt");
    assert.equal(await Deno.readTextFile(await file.path()), "numbers\n");
    await row(page, "Plans 2026").click();
    const [zip] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download as ZIP" }).click(),
    ]);
    assert.equal(zip.suggestedFilename(), "Plans 2026.zip");

    // Trash with the Delete key, restore from the trash.
    await row(page, "Quarterly report.txt").click();
    await page.keyboard.press("Delete");
    await page.getByRole("status").getByText("“Quarterly report.txt” moved to the trash.")
      .waitFor();
    assert.equal(await row(page, "Quarterly report.txt").count(), 0);
    assert.deepEqual(await namesIn(dana), ["Plans 2026", "team photo.png"]);
    await page.getByRole("navigation", { name: "Drive views" })
      .getByRole("link", { name: "Trash" }).click();
    await page.getByRole("heading", { level: 1, name: "Trash" }).waitFor();
    await row(page, "Quarterly report.txt").click();
    await assertAccessible(page, "Trash");
    await toDocs(await screenshot("drive-trash"), "web-trash.png");
    await page.getByRole("button", { name: "Restore" }).click();
    await page.getByRole("status").getByText("“Quarterly report.txt” restored.").waitFor();
    assert.equal(await row(page, "Quarterly report.txt").count(), 0);
    assert.deepEqual(await namesIn(dana), ["Plans 2026", "Quarterly report.txt", "team photo.png"]);

    // Delete forever, after the confirmation.
    await dana.call("PATCH", `/folders/${plans}/delete`);
    await page.reload();
    await row(page, "Plans 2026").click();
    page.once("dialog", (d) => d.accept());
    await page.getByRole("button", { name: "Delete forever" }).click();
    await page.getByRole("status").getByText("“Plans 2026” deleted for good.").waitFor();
    assert.deepEqual((await dana.call("GET", "/trash")).body.data.items, []);

    // Search as you type, then narrow by type.
    await page.keyboard.press("/");
    assert.equal(await focused(page), "input:drive-search");
    await page.keyboard.type("quart");
    await page.getByRole("heading", { level: 1, name: "Search results" }).waitFor();
    await row(page, "Quarterly report.txt").waitFor();
    await assertAccessible(page, "search results");
    await page.getByLabel("Type", { exact: true }).selectOption("image");
    await page.getByText("Nothing matches.").waitFor();
    await page.getByRole("searchbox").fill("team");
    await row(page, "team photo.png").waitFor();
    assert.match(new URL(page.url()).search, /view=search&q=team&type=image/);
    await toDocs(await screenshot("drive-search"), "web-search.png");
  },
);

browserTest(
  "app drive: keyboard only — open, rename, up, select all, trash, shortcut sheet",
  async ({ page, server, screenshot }) => {
    const eve = await driveUser(server, "eve");
    const alpha = await eve.newFolder("Alpha");
    await eve.newFolder("Beta");
    await eve.newFolder("Gamma");
    await eve.newFile("deep.txt", "deep\n", alpha);
    await signInToDrive(page, server, "eve");
    await row(page, "Gamma").waitFor();
    const renames: string[] = [];
    page.on("request", (req) => {
      if (req.url().endsWith("/rename")) renames.push(req.postData() ?? "");
    });

    // Tab reaches the list; the active row is outlined while the list has focus.
    for (let i = 0; i < 40 && await focused(page) !== "listbox:My drive"; i++) {
      await page.keyboard.press("Tab");
    }
    assert.equal(await focused(page), "listbox:My drive");
    await page.keyboard.press("ArrowDown");
    await selectedRow(page, "Alpha").waitFor();
    const outline = await row(page, "Alpha").evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.equal(outline, "solid", "the keyboard's row is visibly marked");

    // Enter opens the folder, F2 renames, Backspace goes up.
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Alpha" }).waitFor();
    await row(page, "deep.txt").waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("F2");
    // The field opens with the name selected up to its extension, as in Drive.
    await page.waitForFunction(() =>
      document.activeElement?.getAttribute("aria-label") === "New name"
    );
    await page.keyboard.type("deeper");
    await page.keyboard.press("Enter");
    await row(page, "deeper.txt").waitFor();
    assert.deepEqual(await namesIn(eve, alpha), ["deeper.txt"]);
    assert.deepEqual(renames, [JSON.stringify({ rn: "deeper.txt" })], "one rename request");
    assert.equal(await focused(page), "listbox:Alpha", "focus is back on the list");
    await page.keyboard.press("Backspace");
    await page.getByRole("heading", { level: 1, name: "My drive" }).waitFor();
    await row(page, "Gamma").waitFor();

    // Ctrl+A selects everything loaded, Escape clears; End and Delete trash the last row.
    await page.keyboard.press("Control+A");
    await page.getByRole("status").getByText("3 selected").waitFor();
    await page.keyboard.press("Escape");
    await page.keyboard.press("End");
    await selectedRow(page, "Gamma").waitFor();
    await page.keyboard.press("Delete");
    await page.getByText("“Gamma” moved to the trash.").waitFor();
    assert.deepEqual(await namesIn(eve), ["Alpha", "Beta"]);

    // `?` shows the sheet (a modal dialog), Escape closes it and focus comes back.
    await page.keyboard.press("?");
    const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await sheet.waitFor();
    await sheet.getByText("Go up one folder").waitFor();
    await assertAccessible(page, "the shortcut sheet");
    await toDocs(await screenshot("drive-shortcuts"), "web-shortcuts.png");
    await page.keyboard.press("Escape");
    await sheet.waitFor({ state: "detached" });
    assert.equal(await focused(page), "listbox:My drive");
  },
);

browserTest(
  "app drive: shared with me and pinned — open the owner's folder, download inside, go back",
  async ({ page, server, screenshot }) => {
    const ivy = await driveUser(server, "ivy");
    const hal = await driveUser(server, "hal", ivy.tenantId);
    const board = await ivy.newFolder("Board papers");
    await ivy.newFile("minutes.txt", "minutes\n", board);
    await ivy.shareWith(board, hal, "cd");
    const pin = await hal.call("POST", "/pinned-folders", { rs: board, ss: ivy.userSeq });
    assert.equal(pin.status, 201, JSON.stringify(pin.body));
    await signInToDrive(page, server, "hal");
    const views = page.getByRole("navigation", { name: "Drive views" });

    await views.getByRole("link", { name: "Shared with me" }).click();
    await page.getByRole("heading", { level: 1, name: "Shared with me" }).waitFor();
    await row(page, "Board papers").waitFor();
    assert.match(await row(page, "Board papers").innerText(), /ivy/);
    await assertAccessible(page, "Shared with me");
    await screenshot("drive-shared");
    await row(page, "Board papers").dblclick();
    await page.getByRole("heading", { level: 1, name: "Board papers" }).waitFor();
    assert.equal(
      await views.getByRole("link", { name: "Shared with me" }).getAttribute("aria-current"),
      "page",
    );
    // Enter previews the owner's file; the preview's Download gets its bytes.
    await row(page, "minutes.txt").click();
    await page.keyboard.press("Enter");
    const preview = page.getByRole("dialog", { name: "minutes.txt" });
    const [file] = await Promise.all([
      page.waitForEvent("download"),
      preview.getByRole("link", { name: "Download" }).click(),
    ]);
    assert.equal(await Deno.readTextFile(await file.path()), "minutes\n");
    await page.keyboard.press("Escape");
    await preview.waitFor({ state: "detached" });
    await page.keyboard.press("Backspace");
    await page.getByRole("heading", { level: 1, name: "Shared with me" }).waitFor();

    await views.getByRole("link", { name: "Pinned" }).click();
    await page.getByRole("heading", { level: 1, name: "Pinned" }).waitFor();
    await row(page, "Board papers").dblclick();
    await row(page, "minutes.txt").waitFor();
    await assertAccessible(page, "a shared folder");
  },
);

browserTest(
  "app drive: a long folder comes a page at a time and renders only the rows in view",
  async ({ page, server }) => {
    const fay = await driveUser(server, "fay");
    const parent = await fay.newFolder("Many");
    const names = Array.from({ length: 700 }, (_, i) => `f-${String(i).padStart(3, "0")}`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(names.slice(i, i + 20).map((n) => fay.newFolder(n, parent)));
    }
    await signInToDrive(page, server, "fay");
    const listings: URLSearchParams[] = [];
    page.on("request", (req) => {
      const url = new URL(req.url());
      if (url.pathname.endsWith("/resources") && url.searchParams.get("pfs") === `${parent}`) {
        listings.push(url.searchParams);
      }
    });
    await page.goto(`${server.url}/?folder=${parent}`);
    await row(page, "f-000").waitFor();
    // A small first page for the first screen, then one bigger page ahead of the reader; the
    // third waits until the rows in view come near the end of what is loaded.
    await page.getByRole("status").getByText("600+ items").waitFor();
    assert.deepEqual(listings.map((q) => [q.get("ps"), q.has("cursor")]), [
      ["100", false],
      ["500", true],
    ]);
    const options = page.getByRole("listbox").getByRole("option");
    const rendered = await options.count();
    assert.ok(rendered > 5 && rendered < 60, `${rendered} rows in the DOM`);
    const list = page.locator(".vlist");
    for (let i = 0; i < 50 && !(await page.getByText("700 items").count()); i++) {
      await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForTimeout(100);
    }
    await page.getByRole("status").getByText("700 items").waitFor();
    assert.equal(listings.length, 3);
    await list.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await row(page, "f-699").waitFor();
    assert.ok((await options.count()) < 60, "still only the rows in view");
    assert.equal(await row(page, "f-699").getAttribute("aria-posinset"), "700");
  },
);

browserTest(
  "app drive: 390 px phone layout, Korean, dark theme",
  async ({ page, server, screenshot }) => {
    const gus = await driveUser(server, "gus");
    await gus.newFolder("Receipts");
    await gus.newFile("a rather long file name for a small phone screen.pdf", "%PDF-1.4\n");
    await signInToDrive(page, server, "gus");
    await row(page, "Receipts").waitFor();
    assert.equal(await overflowsHorizontally(page), false);
    await assertAccessible(page, "My drive at 390 px");
    await toDocs(await screenshot("drive-phone-390"), "web-phone.png");

    await page.getByLabel("Language").selectOption("ko");
    await page.getByRole("heading", { level: 1, name: "내 드라이브" }).waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.lang), "ko");
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "내 드라이브" }).waitFor();
    await row(page, "Receipts").waitFor();
    await page.emulateMedia({ colorScheme: "dark" });
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, "rgb(21, 24, 28)");
    assert.equal(await overflowsHorizontally(page), false);
    await assertAccessible(page, "My drive in Korean, dark");
    await toDocs(await screenshot("drive-phone-390-ko-dark"), "web-phone-ko-dark.png");
  },
  { viewport: { width: 390, height: 844 } },
);
