/**
 * The file browser's file actions in headless Chromium (issue 25, items 1, 3 and 4): move and
 * copy of files and folders through the folder picker (by mouse and by keyboard alone, with the
 * API's refusal of a folder into itself shown by its code), rename, trash and restore, checked through the API;
 * the versions panel restoring an older version; new documents from the templates in English
 * and Korean; the grid view with image thumbnails in My drive and for a second user under
 * Shared with me, with 2-D arrows. axe on the picker, the panel and the grid; screenshots
 * docs/web-grid.png and docs/web-versions.png.
 */
import assert from "node:assert/strict";
import sharp from "sharp";
import type { Page } from "./playwright.ts";
import { browserTest, overflowsHorizontally } from "./helpers.ts";
import { assertAccessible } from "./axe.ts";
import { driveUser, namesIn, row, signInToDrive, toDocs } from "./app_drive_helpers.ts";
import type { ApiUser } from "../helpers/api.ts";

/** Presses Tab until the focused element's text or label is `name` (at most 40 times). */
async function tabTo(page: Page, name: string, back = false): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const here = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return (el?.getAttribute("aria-label") ?? el?.textContent ?? "").trim();
    });
    if (here === name) return;
    await page.keyboard.press(back ? "Shift+Tab" : "Tab");
  }
  throw new Error(`Tab never reached ${name}`);
}

async function seqOf(user: ApiUser, name: string, pfs?: number): Promise<number> {
  const r = await user.call("GET", `/resources${pfs ? `?pfs=${pfs}` : ""}`);
  return r.body.data.items.find((x: { name: string }) => x.name === name).resourceSeq;
}

async function bytesOf(user: ApiUser, rs: number): Promise<string> {
  return await (await user.fetch(`/files/${rs}/download`)).text();
}

browserTest(
  "app files: rename, move and copy through the picker, a refused move, trash and restore",
  async ({ page, server, screenshot }) => {
    const kim = await driveUser(server, "kim");
    const [archive, y2025] = await kim.newFolderPath("Archive", "2025");
    const projects = await kim.newFolder("Projects");
    await kim.newFile("a.txt", "a\n");
    await kim.newFile("b.txt", "b\n");
    await kim.newFile("c.txt", "c\n");
    await signInToDrive(page, server, "kim");

    // Rename inline.
    await row(page, "a.txt").click();
    await page.keyboard.press("F2");
    await page.getByRole("textbox", { name: "New name" }).fill("alpha.txt");
    await page.keyboard.press("Enter");
    await row(page, "alpha.txt").waitFor();

    // Move two files into Archive through the picker.
    await row(page, "b.txt").click({ modifiers: ["Control"] });
    await page.getByRole("button", { name: "Move to…" }).click();
    const move = page.getByRole("dialog", { name: "Move 2 items to…" });
    await move.getByRole("button", { name: "Archive" }).waitFor();
    await assertAccessible(page, "the folder picker");
    await screenshot("files-picker");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    assert.equal(await overflowsHorizontally(page), false);
    await assertAccessible(page, "the folder picker, dark, 390 px");
    await screenshot("files-picker-390-dark");
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.emulateMedia({ colorScheme: "light" });
    await move.getByRole("button", { name: "Archive" }).click();
    await move.getByRole("button", { name: "2025" }).waitFor();
    await move.getByRole("navigation", { name: "Destination path" })
      .getByRole("button", { name: "Archive" }).waitFor();
    await move.getByRole("button", { name: "Move here" }).click();
    await page.getByRole("status").getByText("2 items moved to “Archive”.").waitFor();
    await move.waitFor({ state: "detached" });
    assert.deepEqual(await namesIn(kim, archive), ["2025", "alpha.txt", "b.txt"]);
    assert.deepEqual(await namesIn(kim), ["Archive", "Projects", "c.txt"]);

    // Copy one into a folder made in the picker (Projects/Copies).
    await row(page, "Archive").dblclick();
    await row(page, "alpha.txt").click();
    await page.getByRole("button", { name: "Copy to…" }).click();
    const copy = page.getByRole("dialog", { name: "Copy “alpha.txt” to…" });
    await copy.getByRole("button", { name: "Projects" }).click();
    await copy.getByText("No folders here.").waitFor();
    await copy.getByRole("button", { name: "New folder here" }).click();
    await copy.getByLabel("Folder name").fill("Copies");
    await copy.getByRole("button", { name: "Create", exact: true }).click();
    await copy.getByRole("navigation", { name: "Destination path" })
      .getByRole("button", { name: "Copies" }).waitFor();
    await copy.getByRole("button", { name: "Copy here" }).click();
    await page.getByRole("status").getByText("“alpha.txt” copied to “Copies”.").waitFor();
    const copies = await seqOf(kim, "Copies", projects);
    assert.deepEqual(await namesIn(kim, copies), ["alpha.txt"]);
    assert.equal(await bytesOf(kim, await seqOf(kim, "alpha.txt", copies)), "a\n");
    assert.deepEqual(await namesIn(kim, archive), ["2025", "alpha.txt", "b.txt"]);

    // A folder into its own subfolder: the API refuses, the picker says so by code and stays.
    await page.keyboard.press("Backspace");
    await page.getByRole("heading", { level: 1, name: "My drive" }).waitFor();
    await row(page, "Archive").click();
    await page.getByRole("button", { name: "Move to…" }).click();
    const self = page.getByRole("dialog", { name: "Move “Archive” to…" });
    await self.getByRole("button", { name: "Archive" }).click();
    await self.getByRole("button", { name: "2025" }).click();
    await self.getByText("No folders here.").waitFor();
    await self.getByRole("button", { name: "Move here" }).click();
    await self.getByRole("alert").getByText(/RESOURCE_007/).waitFor();
    await assertAccessible(page, "the picker with an error");
    await page.keyboard.press("Escape");
    await self.waitFor({ state: "detached" });
    assert.deepEqual(await namesIn(kim, y2025), []);

    // Keyboard only: c.txt into Archive/2025.
    await page.getByRole("listbox").focus();
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowDown");
    await page.locator('[role="option"][aria-selected="true"]', { hasText: "c.txt" }).waitFor();
    await tabTo(page, "Move to…", true);
    await page.keyboard.press("Enter");
    const keys = page.getByRole("dialog", { name: "Move “c.txt” to…" });
    await keys.getByRole("button", { name: "Projects" }).waitFor();
    await tabTo(page, "Archive");
    await page.keyboard.press("Enter");
    await keys.getByRole("button", { name: "2025" }).waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await keys.getByText("No folders here.").waitFor();
    await tabTo(page, "Move here");
    await page.keyboard.press("Enter");
    await page.getByRole("status").getByText("“c.txt” moved to “2025”.").waitFor();
    assert.deepEqual(await namesIn(kim, y2025), ["c.txt"]);

    // Trash and restore.
    await row(page, "Projects").click();
    await page.keyboard.press("Delete");
    await page.getByText("“Projects” moved to the trash.").waitFor();
    assert.deepEqual(await namesIn(kim), ["Archive"]);
    await page.getByRole("navigation", { name: "Drive views" })
      .getByRole("link", { name: "Trash" }).click();
    await row(page, "Projects").click();
    await page.getByRole("button", { name: "Restore" }).click();
    await page.getByRole("status").getByText("“Projects” restored.").waitFor();
    assert.deepEqual(await namesIn(kim), ["Archive", "Projects"]);
    assert.deepEqual(await namesIn(kim, copies), ["alpha.txt"]);
  },
);

browserTest(
  "app files: the versions panel restores version 1, downloads it, deletes another",
  async ({ page, server, screenshot }) => {
    const lia = await driveUser(server, "lia");
    const max = await driveUser(server, "max", lia.tenantId);
    const rs = await lia.newFile("plan.txt", "first draft\n");
    await lia.shareWith(rs, max, "ce");
    // Version 2 comes from someone else: the panel names them.
    const v2 = await max.upload("plan.txt", "second, longer draft\n", {
      st: "version",
      rs,
      ss: lia.userSeq,
    });
    assert.equal(v2.status, 201, JSON.stringify(v2.body));
    await signInToDrive(page, server, "lia");
    await row(page, "plan.txt").click();
    await page.getByRole("button", { name: "Versions" }).click();
    const panel = page.getByRole("dialog", { name: "Versions of “plan.txt”" });
    await panel.getByRole("button", { name: "Restore version 1" }).waitFor();
    assert.equal(await panel.getByRole("row").count(), 3, "a header and two versions");
    assert.match(await panel.getByRole("row").nth(1).innerText(), /^2\s.*\bmax\b/s);
    assert.match(await panel.getByRole("row").nth(2).innerText(), /^1\s.*\bYou\b/s);
    await assertAccessible(page, "the versions panel");
    await toDocs(await screenshot("files-versions-1280"), "web-versions.png");

    const [old] = await Promise.all([
      page.waitForEvent("download"),
      panel.getByRole("link", { name: "Download version 1" }).click(),
    ]);
    assert.equal(await Deno.readTextFile(await old.path()), "first draft\n");

    await panel.getByRole("button", { name: "Restore version 1" }).click();
    await panel.getByText("Version 1 restored: it is the current content now.").waitFor();
    assert.equal(await bytesOf(lia, rs), "first draft\n");
    await panel.getByRole("button", { name: "Restore version 2" }).waitFor();

    page.once("dialog", (d) => d.accept());
    await panel.getByRole("button", { name: "Delete version 2" }).click();
    await panel.getByText("Version 2 deleted.").waitFor();
    const left = (await lia.call("GET", `/files/${rs}/versions`)).body.data.items;
    assert.ok(!left.some((v: { version: number }) => v.version === 2), JSON.stringify(left));
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });

    const [now] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download", exact: true }).click(),
    ]);
    assert.equal(await Deno.readTextFile(await now.path()), "first draft\n");
  },
);

/** The bytes of the shipped template `file` of `lang`. */
const template = (lang: string, file: string) =>
  Deno.readFile(new URL(`../../static/templates/${lang}/${file}`, import.meta.url));

browserTest(
  "app files: new documents from the templates in English and in Korean, name ready to edit",
  async ({ page, server }) => {
    const moe = await driveUser(server, "moe");
    const docs = await moe.newFolder("Docs");
    await signInToDrive(page, server, "moe");
    await page.goto(`${server.url}/?folder=${docs}`);
    await page.getByRole("heading", { level: 1, name: "Docs" }).waitFor();
    await page.getByRole("status").getByText("Nothing here yet.").waitFor();

    await page.getByRole("button", { name: "New document" }).click();
    await page.getByRole("button", { name: "Word document" }).waitFor();
    await assertAccessible(page, "the new document menu");
    await page.getByRole("button", { name: "Word document" }).click();
    const field = page.getByRole("textbox", { name: "New name" });
    await field.waitFor();
    assert.equal(await field.inputValue(), "New Document.docx");
    // The name is selected up to its extension: typing replaces it.
    await page.keyboard.type("Minutes");
    await page.keyboard.press("Enter");
    await row(page, "Minutes.docx").waitFor();
    assert.deepEqual(await namesIn(moe, docs), ["Minutes.docx"]);
    const word =
      await (await moe.fetch(`/files/${await seqOf(moe, "Minutes.docx", docs)}/download`))
        .bytes();
    assert.deepEqual(word, await template("en-US", "blank.docx"));

    await page.getByLabel("Language").selectOption("ko");
    await page.getByRole("button", { name: "새 문서" }).click();
    await page.getByRole("button", { name: "스프레드시트" }).click();
    await page.getByRole("textbox", { name: "새 이름" }).waitFor();
    assert.equal(
      await page.getByRole("textbox", { name: "새 이름" }).inputValue(),
      "새 스프레드시트.xlsx",
    );
    await page.keyboard.press("Escape");
    await row(page, "새 스프레드시트.xlsx").waitFor();
    assert.deepEqual(await namesIn(moe, docs), ["Minutes.docx", "새 스프레드시트.xlsx"]);
    const sheet = await moe.fetch(
      `/files/${await seqOf(moe, "새 스프레드시트.xlsx", docs)}/download`,
    );
    assert.deepEqual(await sheet.bytes(), await template("ko-KR", "blank.xlsx"));
  },
);

/** The natural size of the thumbnail <img> in the card of `name`, once it has loaded. */
async function thumbSize(page: Page, name: string): Promise<[number, number]> {
  const img = row(page, name).locator("img");
  await img.waitFor();
  await page.waitForFunction(
    (el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
    await img.elementHandle(),
  );
  return await img.evaluate((el) => [
    (el as HTMLImageElement).naturalWidth,
    (el as HTMLImageElement).naturalHeight,
  ]) as [number, number];
}

browserTest(
  "app files: the grid shows thumbnails in My drive and under Shared with me, arrows in 2-D",
  async ({ page, server, context, screenshot }) => {
    const ned = await driveUser(server, "ned");
    const ora = await driveUser(server, "ora", ned.tenantId);
    const png = async (r: number, g: number, b: number) =>
      new Uint8Array(
        await sharp({
          create: { width: 600, height: 400, channels: 3, background: { r, g, b } },
        }).png().toBuffer(),
      );
    const photos = await ned.newFolder("Photos");
    const shot = await ned.newFile("harbour.png", await png(30, 110, 170));
    await ned.newFile("inside.png", await png(200, 120, 40), photos);
    for (let i = 0; i < 14; i++) {
      await ned.newFile(`note ${String(i).padStart(2, "0")}.txt`, `${i}`);
    }
    await ned.shareWith(photos, ora, "cd");
    await ned.shareWith(shot, ora, "cd");

    await signInToDrive(page, server, "ned");
    await page.getByRole("button", { name: "Grid" }).click();
    assert.deepEqual(await thumbSize(page, "harbour.png"), [256, 171]);
    await assertAccessible(page, "the grid");
    await toDocs(await screenshot("files-grid-1280"), "web-grid.png");

    // Arrows: right is the next card, down is the card below (same column, next line).
    await page.getByRole("listbox").focus();
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    const box = async () => {
      const id = await page.getByRole("listbox").getAttribute("aria-activedescendant");
      return (await page.locator(`#${id}`).boundingBox())!;
    };
    const before = await box();
    await page.keyboard.press("ArrowDown");
    const after = await box();
    assert.equal(after.x, before.x, "the same column");
    assert.ok(after.y > before.y, "the next line");

    // The choice is remembered; dark and the phone width stay accessible.
    await page.reload();
    await row(page, "harbour.png").locator("img").waitFor();
    await page.emulateMedia({ colorScheme: "dark" });
    await assertAccessible(page, "the grid, dark");
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await overflowsHorizontally(page), false);
    await screenshot("files-grid-390-dark");
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.emulateMedia({ colorScheme: "light" });

    // A second user sees the thumbnails of what is shared with them.
    await context.clearCookies();
    await signInToDrive(page, server, "ora");
    await page.getByRole("navigation", { name: "Drive views" })
      .getByRole("link", { name: "Shared with me" }).click();
    await page.getByRole("heading", { level: 1, name: "Shared with me" }).waitFor();
    assert.deepEqual(await thumbSize(page, "harbour.png"), [256, 171]);
    await assertAccessible(page, "the grid of Shared with me");
    await row(page, "Photos").dblclick();
    await page.getByRole("heading", { level: 1, name: "Photos" }).waitFor();
    assert.deepEqual(await thumbSize(page, "inside.png"), [256, 171]);
  },
);

browserTest(
  "app files: the grid is virtualized like the list — a long folder renders only its visible cards",
  async ({ page, server }) => {
    const pia = await driveUser(server, "pia");
    const parent = await pia.newFolder("Many");
    const names = Array.from({ length: 700 }, (_, i) => `g-${String(i).padStart(3, "0")}`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(names.slice(i, i + 20).map((n) => pia.newFolder(n, parent)));
    }
    await signInToDrive(page, server, "pia");
    await page.getByRole("button", { name: "Grid" }).click();
    await page.goto(`${server.url}/?folder=${parent}`);
    await row(page, "g-000").waitFor();
    await page.getByRole("status").getByText("600+ items").waitFor();
    const cards = page.getByRole("listbox").getByRole("option");
    const rendered = await cards.count();
    assert.ok(rendered > 5 && rendered < 80, `${rendered} cards in the DOM`);
    // End goes to the last loaded card; scrolling there pulls the rest.
    const grid = page.locator(".vgrid");
    for (let i = 0; i < 50 && !(await page.getByText("700 items").count()); i++) {
      await grid.evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForTimeout(100);
    }
    await page.getByRole("status").getByText("700 items").waitFor();
    await grid.evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await row(page, "g-699").waitFor();
    assert.ok((await cards.count()) < 80, "still only the cards in view");
    assert.equal(await row(page, "g-699").getAttribute("aria-posinset"), "700");
  },
);

browserTest(
  "app files: a folder with two files is copied through the picker",
  async ({ page, server, screenshot }) => {
    const kim = await driveUser(server, "kim");
    const reports = await kim.newFolder("Reports");
    await kim.newFile("q1.txt", "first quarter\n", reports);
    await kim.newFile("q2.txt", "second quarter\n", reports);
    const backup = await kim.newFolder("Backup");
    await signInToDrive(page, server, "kim");

    await row(page, "Reports").click();
    await page.getByRole("button", { name: "Copy to…" }).click();
    const copy = page.getByRole("dialog", { name: "Copy “Reports” to…" });
    await copy.getByRole("button", { name: "Backup" }).click();
    await copy.getByRole("navigation", { name: "Destination path" })
      .getByRole("button", { name: "Backup" }).waitFor();
    await assertAccessible(page, "the folder picker copying a folder");
    await screenshot("files-picker-copy-folder");
    await copy.getByRole("button", { name: "Copy here" }).click();
    await page.getByRole("status").getByText("“Reports” copied to “Backup”.").waitFor();
    await copy.waitFor({ state: "detached" });

    // Through the API: Backup/Reports holds both files with their bytes; the original stays.
    assert.deepEqual(await namesIn(kim, backup), ["Reports"]);
    const copied = await seqOf(kim, "Reports", backup);
    assert.notEqual(copied, reports);
    assert.deepEqual(await namesIn(kim, copied), ["q1.txt", "q2.txt"]);
    assert.equal(await bytesOf(kim, await seqOf(kim, "q1.txt", copied)), "first quarter\n");
    assert.equal(await bytesOf(kim, await seqOf(kim, "q2.txt", copied)), "second quarter\n");
    assert.deepEqual(await namesIn(kim, reports), ["q1.txt", "q2.txt"]);
  },
);
