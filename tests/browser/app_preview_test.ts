/**
 * The app's preview overlay, details panel and live updates (issue 25, items 7 and 9) in
 * headless Chromium: an image, a PDF, a text file with HTML in it (shown as text), a WAV file
 * that loads in <audio>, a docx through the rendered preview (when soffice is installed), next and
 * previous with the keyboard, the details panel (owner, size, versions, sharing), and the open
 * folder following a file created through the API and one renamed through WebDAV. Axe runs with
 * the overlay and the panel open. Screenshot: docs/web-preview.png.
 */
import assert from "node:assert/strict";
import { browserTest, overflowsHorizontally } from "./helpers.ts";
import { assertAccessible } from "./axe.ts";
import { driveUser, row, selectedRow, signInToDrive, toDocs } from "./app_drive_helpers.ts";
import { davAs, driveUrl } from "../dav/client.ts";
import type { Page } from "./playwright.ts";

function crc32(bytes: Uint8Array): number {
  let c = ~0;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** A `w`×`h` PNG of a colour gradient (RGB, zlib through CompressionStream). */
async function gradientPng(w: number, h: number): Promise<Uint8Array<ArrayBuffer>> {
  const raw = new Uint8Array((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const at = y * (w * 3 + 1) + 1 + x * 3;
      raw.set([Math.round(255 * x / w), Math.round(255 * y / h), 160], at);
    }
  }
  const zipped = new Uint8Array(
    await new Response(new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate")))
      .arrayBuffer(),
  );
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const v = new DataView(out.buffer);
    v.setUint32(0, data.length);
    out.set(new TextEncoder().encode(type), 4);
    out.set(data, 8);
    v.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, w);
  hv.setUint32(4, h);
  header.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", header),
    chunk("IDAT", zipped),
    chunk("IEND", new Uint8Array()),
  ];
  const png = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (png.set(p, at), at + p.length), 0);
  return png;
}

/** One page with one line of text. */
const PDF = `%PDF-1.4
1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj
2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj
3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 300 144]/Contents 4 0 R/Resources<</Font<</F1 5 0 R>>>>>>endobj
4 0 obj<</Length 44>>stream
BT /F1 18 Tf 20 70 Td (Hello preview) Tj ET
endstream endobj
5 0 obj<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>endobj
trailer<</Root 1 0 R>>
%%EOF
`;

/** Half a second of silence, 8 kHz mono 8-bit PCM. */
function wav(): Uint8Array<ArrayBuffer> {
  const samples = 4000;
  const out = new Uint8Array(44 + samples);
  const v = new DataView(out.buffer);
  const text = (at: number, s: string) =>
    [...s].forEach((ch, i) => v.setUint8(at + i, ch.charCodeAt(0)));
  text(0, "RIFF");
  v.setUint32(4, 36 + samples, true);
  text(8, "WAVE");
  text(12, "fmt ");
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true);
  v.setUint16(22, 1, true);
  v.setUint32(24, 8000, true);
  v.setUint32(28, 8000, true);
  v.setUint16(32, 1, true);
  v.setUint16(34, 8, true);
  text(36, "data");
  v.setUint32(40, samples, true);
  out.fill(128, 44);
  return out;
}

const HTML_TEXT = "<h1>Not a heading</h1><script>window.pwned = true</script>\nline two\n";

const overlay = (page: Page) => page.getByRole("dialog");
const shown = (page: Page, name: string) =>
  overlay(page).getByRole("heading", { level: 2, name, exact: true }).waitFor();

browserTest("app preview: images, PDF, text, audio, office, next/previous, details, live", async ({
  page,
  context,
  server,
  screenshot,
}) => {
  // The browser's own PDF viewer loads its parts from chrome:// and chrome-extension://: that is
  // not the network, so it is let through (the harness blocks any other origin).
  await context.route(/^chrome(-extension)?:\/\//, (route) => route.continue());
  const dana = await driveUser(server, "dana");
  const bob = await driveUser(server, "bob", dana.tenantId);
  await dana.newFile("a-photo.png", await gradientPng(640, 400));
  const pdf = await dana.newFile("b-paper.pdf", PDF);
  await dana.newFile("c-notes.txt", HTML_TEXT);
  await dana.newFile("d-sound.wav", wav());
  const docx = await Deno.readFile(
    new URL("../../static/templates/en-US/blank.docx", import.meta.url),
  );
  await dana.newFile("e-letter.docx", docx);
  await dana.newFile("f-data.bin", new Uint8Array([1, 2, 3]));
  await dana.shareWith(pdf, bob);
  // A second version of the PDF, for the details panel's count.
  const v2 = await dana.upload("b-paper.pdf", PDF + "% v2\n", { st: "version", rs: pdf });
  assert.equal(v2.status, 201, JSON.stringify(v2.body));

  await signInToDrive(page, server, "dana");
  await row(page, "a-photo.png").click();
  await page.keyboard.press("Enter");

  // The image, loaded.
  await shown(page, "a-photo.png");
  const img = overlay(page).getByRole("img", { name: "a-photo.png" });
  await img.waitFor();
  await page.waitForFunction(() =>
    (document.querySelector(".preview-image") as HTMLImageElement)?.naturalWidth === 640
  );

  // The details panel: owner, size, versions (of the image: one).
  await overlay(page).getByRole("button", { name: "Details" }).click();
  const details = overlay(page).getByRole("region", { name: "Details" });
  await details.getByText("You", { exact: true }).waitFor();
  await details.getByText("1 (latest: version 1", { exact: false }).waitFor();
  await assertAccessible(page, "the preview with the details panel");
  await toDocs(await screenshot("drive-preview-1280"), "web-preview.png");

  // → the PDF: the browser's viewer in a frame, fed by the view route as a PDF; its details
  // show two versions and Bob.
  await page.keyboard.press("ArrowRight");
  await shown(page, "b-paper.pdf");
  const frame = overlay(page).locator("iframe[title='Preview of b-paper.pdf']");
  await frame.waitFor();
  const pdfType = await page.evaluate(
    async (src) => (await fetch(src!)).headers.get("content-type"),
    await frame.getAttribute("src"),
  );
  assert.equal(pdfType, "application/pdf");
  await screenshot("drive-preview-pdf");
  await details.getByText("2 (latest: version 2", { exact: false }).waitFor();
  await details.getByText("bob (", { exact: false }).waitFor();
  await details.getByText("SPECIFIC_USERS").waitFor();

  // → the text: its HTML shown as text, never run or rendered.
  await page.keyboard.press("ArrowRight");
  await shown(page, "c-notes.txt");
  const pre = overlay(page).locator("pre.preview-text");
  await pre.waitFor();
  assert.equal(await pre.textContent(), HTML_TEXT);
  assert.equal(await overlay(page).getByRole("heading", { name: "Not a heading" }).count(), 0);
  assert.equal(await page.evaluate("window.pwned"), undefined);

  // → the sound: <audio> with its metadata loaded (through Range requests of the view route).
  await page.keyboard.press("ArrowRight");
  await shown(page, "d-sound.wav");
  await page.waitForFunction(() => {
    const a = document.querySelector("audio.preview-media") as HTMLAudioElement | null;
    return !!a && a.readyState >= 1 && a.duration > 0.4;
  });

  // ← and → again: back to the text, then on.
  await page.keyboard.press("ArrowLeft");
  await shown(page, "c-notes.txt");
  await overlay(page).getByRole("button", { name: "Next" }).click();
  await shown(page, "d-sound.wav");

  // → the docx, rendered to PDF by LibreOffice.
  await page.keyboard.press("ArrowRight");
  await shown(page, "e-letter.docx");
  if (await Deno.stat("/usr/bin/soffice").then(() => true, () => false)) {
    await overlay(page).locator("iframe[title='Preview of e-letter.docx']").waitFor({
      timeout: 90_000,
    });
  } else {
    console.log("skipped the docx preview: /usr/bin/soffice is not installed");
  }

  // → a type with no preview: a clear message; → stops at the last file.
  await page.keyboard.press("ArrowRight");
  await shown(page, "f-data.bin");
  await overlay(page).getByText("This type of file cannot be previewed here.", { exact: false })
    .waitFor();
  assert.equal(await overlay(page).getByRole("button", { name: "Next" }).isDisabled(), true);

  // Escape closes; focus is back on the list, on the last file shown.
  await page.keyboard.press("Escape");
  await overlay(page).waitFor({ state: "detached" });
  await page.waitForFunction(() => document.activeElement?.getAttribute("role") === "listbox");
  await selectedRow(page, "f-data.bin").waitFor();

  // Live: with the root open, a file created through the API and one renamed through WebDAV
  // show up without a reload; the selection stays.
  await row(page, "a-photo.png").click();
  await dana.newFile("g-new.txt", "new\n");
  const moved = await davAs(dana, "MOVE", driveUrl(dana, "c-notes.txt"), {
    destination: driveUrl(dana, "c-renamed.txt"),
  });
  await moved.body?.cancel();
  assert.equal(moved.status, 201);
  await row(page, "g-new.txt").waitFor({ timeout: 15_000 });
  await row(page, "c-renamed.txt").waitFor({ timeout: 15_000 });
  await row(page, "c-notes.txt").waitFor({ state: "detached" });
  await selectedRow(page, "a-photo.png").waitFor();
  await assertAccessible(page, "My drive after live updates");
});

browserTest(
  "app preview: someone else's file from Shared with me, on a phone, in the dark",
  async ({ page, server, screenshot }) => {
    const ivy = await driveUser(server, "ivy");
    const hal = await driveUser(server, "hal", ivy.tenantId);
    const memo = await ivy.newFile("memo.txt", "For hal's eyes.\n");
    await ivy.shareWith(memo, hal, "cd");
    await page.emulateMedia({ colorScheme: "dark" });
    await signInToDrive(page, server, "hal");
    await page.goto(`${server.url}/?view=shared`);
    await page.getByRole("heading", { level: 1, name: "Shared with me" }).waitFor();
    await row(page, "memo.txt").dblclick();
    await shown(page, "memo.txt");
    await overlay(page).getByText("For hal's eyes.").waitFor();
    await overlay(page).getByRole("button", { name: "Details" }).click();
    const details = overlay(page).getByRole("region", { name: "Details" });
    await details.getByText("ivy", { exact: true }).waitFor();
    await details.getByText("1 (latest: version 1", { exact: false }).waitFor();
    assert.equal(await overflowsHorizontally(page), false);
    await assertAccessible(page, "the preview of a shared file, 390 px, dark");
    await screenshot("drive-preview-390-dark");
    // The download button fetches the owner's file for the recipient.
    const href = await overlay(page).getByRole("link", { name: "Download" }).getAttribute("href");
    assert.equal(
      await page.evaluate(async (u) => (await fetch(u!)).text(), href),
      "For hal's eyes.\n",
    );
  },
  { viewport: { width: 390, height: 844 } },
);
