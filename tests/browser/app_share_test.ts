/**
 * The share dialog of the file browser and the public link pages it makes (issue 25, items 5
 * and 11): sharing a folder with a second user, who finds it under "Shared with me" in a browser
 * of their own; a password-protected public link opened in a fresh browser (wrong, then right
 * password) and downloaded whole as a ZIP; an upload-only file request filled by a visitor, whose
 * file the owner then has. axe on the dialog and both public pages. Screenshots:
 * docs/web-share.png, docs/web-file-request.png.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import sharp from "sharp";
import { browserTest, CHROMIUM, overflowsHorizontally } from "./helpers.ts";
import { assertAccessible } from "./axe.ts";
import { chromium, type Page } from "./playwright.ts";
import { driveUser, namesIn, row, signInToDrive, toDocs } from "./app_drive_helpers.ts";
import { readZip } from "../helpers/zip_reader.ts";

/** A browser of its own (no cookies, no storage of the first), closed after `fn`. */
async function inFreshBrowser(fn: (page: Page) => Promise<void>): Promise<void> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await fn(page);
  } finally {
    await browser.close();
  }
}

async function openShareDialog(page: Page, name: string) {
  await row(page, name).click();
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: `Share “${name}”` });
  await dialog.waitFor();
  return dialog;
}

browserTest(
  "app share: a folder shared with a second user shows under Shared with me",
  async ({ page, server, screenshot }) => {
    const erin = await driveUser(server, "erin");
    const bob = await driveUser(server, "bob", erin.tenantId);
    const folder = await erin.newFolder("Project X");
    await erin.newFile("plan.txt", "the plan\n", folder);
    await signInToDrive(page, server, "erin");
    const dialog = await openShareDialog(page, "Project X");
    await dialog.getByLabel("Find people by name or e-mail").fill("bob");
    await dialog.getByRole("button", { name: /^Add bob/ }).click();
    await dialog.getByRole("checkbox", { name: "Download" }).check();
    await assertAccessible(page, "the share dialog");
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByRole("status").getByText("Sharing saved.").waitFor();
    await dialog.getByRole("button", { name: "Remove bob" }).waitFor();
    await toDocs(await screenshot("share-dialog-1280"), "web-share.png");
    // The phone layout: the dialog fits 390 px.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await overflowsHorizontally(page), false);
    assert.ok((await dialog.boundingBox())!.width <= 390);
    await screenshot("share-dialog-390");
    await page.setViewportSize({ width: 1280, height: 860 });
    const shared = (await erin.call("GET", `/shares/1`)).body.data;
    assert.equal(shared.targets[0].userSeq, bob.userSeq);
    assert.equal(shared.targets[0].permissions.canDownload, true);
    await page.keyboard.press("Escape");

    await inFreshBrowser(async (other) => {
      await signInToDrive(other, server, "bob");
      await other.getByRole("link", { name: "Shared with me" }).click();
      await row(other, "Project X").waitFor();
    });
  },
);

browserTest(
  "app share: a public link with a password, opened in a fresh browser, downloaded as ZIP",
  async ({ page, server }) => {
    const erin = await driveUser(server, "erin");
    const folder = await erin.newFolder("Press kit");
    await erin.newFile("logo.txt", "logo\n", folder);
    const png = await sharp({
      create: { width: 64, height: 48, channels: 3, background: "#3a7" },
    }).png().toBuffer();
    await erin.newFile("photo.png", new Uint8Array(png), folder);
    await signInToDrive(page, server, "erin");
    const dialog = await openShareDialog(page, "Press kit");
    await dialog.getByRole("radio", { name: "Anyone with the link" }).check();
    await dialog.getByRole("checkbox", { name: "Download" }).check();
    await dialog.getByLabel("Password (optional)").fill("open sesame");
    await dialog.getByRole("button", { name: "Save" }).click();
    const url = await dialog.getByLabel("Link", { exact: true }).inputValue();
    assert.match(url, /\/s\/[A-Za-z0-9_-]{43}$/);

    await inFreshBrowser(async (visitor) => {
      await visitor.goto(url);
      await visitor.getByRole("heading", { name: "This link is protected" }).waitFor();
      await visitor.getByLabel("Password").fill("wrong one");
      await visitor.getByRole("button", { name: "Open" }).click();
      await visitor.getByText("Wrong password. Try again.").waitFor();
      await visitor.getByLabel("Password").fill("open sesame");
      await visitor.getByRole("button", { name: "Open" }).click();
      await visitor.getByRole("heading", { level: 1, name: "Press kit" }).waitFor();
      await visitor.getByText("logo.txt").waitFor();
      // The image shows as its thumbnail, loaded from the link's thumbnail route.
      const thumb = visitor.locator("img.thumb");
      await thumb.waitFor();
      await visitor.waitForFunction(() =>
        (document.querySelector("img.thumb") as HTMLImageElement | null)?.naturalWidth! > 0
      );
      await assertAccessible(visitor, "the public folder page");
      const [zip] = await Promise.all([
        visitor.waitForEvent("download"),
        visitor.getByRole("link", { name: "Download all as ZIP" }).click(),
      ]);
      assert.equal(zip.suggestedFilename(), "Press kit.zip");
      const archive = readZip(await Deno.readFile(await zip.path()));
      assert.equal(archive.text("Press kit/logo.txt"), "logo\n");
      assert.equal(archive.entries.length, 3);
    });
  },
);

browserTest(
  "app share: a file request takes a visitor's upload, which the owner then has",
  async ({ page, server }) => {
    const erin = await driveUser(server, "erin");
    const folder = await erin.newFolder("Applications");
    await erin.newFile("someone else.txt", "private\n", folder);
    await signInToDrive(page, server, "erin");
    const dialog = await openShareDialog(page, "Applications");
    await dialog.getByRole("radio", { name: "Anyone with the link" }).check();
    await dialog.getByRole("checkbox", { name: /^File request/ }).check();
    await dialog.getByRole("button", { name: "Save" }).click();
    const url = await dialog.getByLabel("Link", { exact: true }).inputValue();
    const share = (await erin.call("GET", "/shares/1")).body.data;
    assert.equal(share.fileRequest, true);
    assert.equal(share.permissions.canDownload, false);

    await inFreshBrowser(async (visitor) => {
      await visitor.goto(url);
      await visitor.getByRole("heading", { name: "Send files to “Applications”" }).waitFor();
      // Nothing of the folder shows: not the other file's name.
      assert.equal(await visitor.getByText("someone else.txt").count(), 0);
      await assertAccessible(visitor, "the file-request page");
      await visitor.getByTestId("link-upload-input").setInputFiles({
        name: "my cv.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("hire me\n"),
      });
      await visitor.getByText("Sent", { exact: true }).waitFor();
      const shot = new URL("./artifacts/file-request-1280.png", import.meta.url).pathname;
      await visitor.screenshot({ path: shot, fullPage: true });
      await toDocs(shot, "web-file-request.png");
    });
    assert.deepEqual(await namesIn(erin, folder), ["my cv.txt", "someone else.txt"]);
    const file = (await erin.call("GET", `/resources?pfs=${folder}`)).body.data.items
      .find((x: { name: string }) => x.name === "my cv.txt");
    const res = await erin.fetch(`/files/${file.resourceSeq}/download`);
    assert.equal(await res.text(), "hire me\n");
  },
);

browserTest(
  "app share: a recipient allowed to re-share adds someone; one who may not sees it read-only",
  async ({ page, server }) => {
    const erin = await driveUser(server, "erin");
    const bob = await driveUser(server, "bob", erin.tenantId);
    const carol = await driveUser(server, "carol", erin.tenantId);
    const folder = await erin.newFolder("Team notes");
    await erin.newShare({
      rs: folder,
      st: "SPECIFIC_USERS",
      cv: true,
      cs: true,
      ts: [{ us: bob.userSeq, cv: true, ce: false, cd: false, cu: false, cs: true }],
    });
    await signInToDrive(page, server, "bob");
    await page.getByRole("link", { name: "Shared with me" }).click();
    const dialog = await openShareDialog(page, "Team notes");
    await dialog.getByLabel("Find people by name or e-mail").fill("carol");
    await dialog.getByRole("button", { name: /^Add carol/ }).click();
    // bob may change the recipients, not the type or the permissions.
    assert.equal(
      await dialog.getByRole("radio", { name: "Anyone with the link" }).isDisabled(),
      true,
    );
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByRole("status").getByText("Sharing saved.").waitFor();
    const targets = (await erin.call("GET", "/shares/1")).body.data.targets;
    const carolGot = targets.find((x: { userSeq: number }) => x.userSeq === carol.userSeq);
    assert.equal(carolGot.permissions.canView, true);
    assert.equal(carolGot.permissions.canShare, true);

    // carol was given cs by bob's own grant; a recipient without cs sees no Save.
    await erin.call("PUT", "/shares/1/targets", {
      ts: [{ us: bob.userSeq, cv: true, ce: false, cd: false, cu: false, cs: false }],
    });
    await page.keyboard.press("Escape");
    const again = await openShareDialog(page, "Team notes");
    await again.getByText("You cannot change how this is shared.").waitFor();
    assert.equal(await again.getByRole("button", { name: "Save" }).count(), 0);
  },
);
