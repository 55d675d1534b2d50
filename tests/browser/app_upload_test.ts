/**
 * Uploads in the app's file browser (issue 25 item 2, ui/app/upload/): the file picker through
 * tus, a dropped folder tree, the name-conflict dialog, and resuming after a reload, each checked
 * through the API (names, versions, bytes by SHA-256); axe with the panel and the dialog open.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { browserTest, overflowsHorizontally } from "./helpers.ts";
import { assertAccessible } from "./axe.ts";
import { driveUser, namesIn, row, signInToDrive, toDocs } from "./app_drive_helpers.ts";
import type { ApiUser } from "../helpers/api.ts";
import type { Page } from "./playwright.ts";
import { until } from "../helpers/wait.ts";

const sha256 = async (bytes: ArrayBuffer | Uint8Array) =>
  Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new Uint8Array(bytes))))
    .map((b) => b.toString(16).padStart(2, "0")).join("");

/** Bytes that differ at every position, so a misplaced chunk changes the hash. */
function bytes(n: number, seed: number): Buffer {
  const out = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** The items of folder `pfs` (root when null), every page. */
async function itemsIn(user: ApiUser, pfs: number | null) {
  const r = await user.call("GET", `/resources?ps=1000${pfs ? `&pfs=${pfs}` : ""}`);
  assert.equal(r.status, 200);
  return r.body.data.items as { resourceSeq: number; name: string; type: string }[];
}

async function seqOf(user: ApiUser, name: string, pfs: number | null = null) {
  const item = (await itemsIn(user, pfs)).find((x) => x.name === name);
  assert.ok(item, `${name} in ${pfs ?? "root"}`);
  return item.resourceSeq;
}

async function hashOf(user: ApiUser, rs: number) {
  const res = await user.fetch(`/files/${rs}/download`);
  assert.equal(res.status, 200);
  return sha256(await res.arrayBuffer());
}

const panel = (page: Page) => page.getByRole("region", { name: "Uploads" });

browserTest(
  "app upload: the file picker uploads through tus, 3 at a time",
  async ({ page, server, screenshot }) => {
    const erin = await driveUser(server, "erin");
    await signInToDrive(page, server, "erin");
    const files = Array.from({ length: 5 }, (_, i) => ({
      name: `picked ${i}.bin`,
      mimeType: "application/octet-stream",
      buffer: bytes(200_000 + i * 1000, i + 1),
    }));
    const creates: string[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST" && r.url().endsWith("/api/external/v1/uploads")) {
        creates.push(r.url());
      }
    });
    await page.locator("#upload-files").setInputFiles(files);
    await panel(page).getByText("5 of 5 done · 100%").waitFor();
    for (const f of files) await row(page, f.name).waitFor();
    assert.equal(creates.length, 5, "every file went through the tus endpoint");
    assert.deepEqual(await namesIn(erin), files.map((f) => f.name).sort());
    for (const f of files) {
      assert.equal(await hashOf(erin, await seqOf(erin, f.name)), await sha256(f.buffer));
    }
    await assertAccessible(page, "the upload panel");
    await toDocs(await screenshot("upload-panel-1280"), "web-upload.png");

    // The folder picker: the folder and its subfolder are made first, the files go inside.
    const dir = await Deno.makeTempDir({ prefix: "drive-upload-" });
    try {
      await Deno.mkdir(`${dir}/Album/inner`, { recursive: true });
      await Deno.writeTextFile(`${dir}/Album/cover.txt`, "cover\n");
      await Deno.writeTextFile(`${dir}/Album/inner/page.txt`, "page\n");
      await page.locator("#upload-folder").setInputFiles(`${dir}/Album`);
      await panel(page).getByText("7 of 7 done · 100%").waitFor();
      await row(page, "Album").waitFor();
      const album = await seqOf(erin, "Album");
      assert.deepEqual(await namesIn(erin, album), ["cover.txt", "inner"]);
      assert.deepEqual(await namesIn(erin, await seqOf(erin, "inner", album)), ["page.txt"]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }

    // A phone in the dark: the panel fits 390 px and passes axe.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: "dark" });
    assert.equal(await overflowsHorizontally(page), false);
    await assertAccessible(page, "the upload panel, 390 px, dark");
    await screenshot("upload-panel-390-dark");
    // Folded to its head, it leaves the list usable; the button says so.
    await panel(page).getByRole("button", { name: "Hide" }).click();
    await panel(page).getByRole("list", { name: "Files being uploaded" }).waitFor({
      state: "hidden",
    });
    assert.equal(
      await panel(page).getByRole("button", { name: "Show" }).getAttribute("aria-expanded"),
      "false",
    );
    await assertAccessible(page, "the folded upload panel");
    await screenshot("upload-panel-390-dark-folded");
  },
);

/**
 * A dropped folder tree. Chromium gives a script-made DataTransfer no directory entries, so the
 * drop carries a real DataTransfer whose `items` is replaced (test-only) by items whose
 * webkitGetAsEntry answers objects shaped exactly like FileSystemDirectoryEntry and
 * FileSystemFileEntry: isFile, isDirectory, name, fullPath, createReader().readEntries in
 * batches ending with an empty one, and file(callback).
 */
browserTest(
  "app upload: dropping a folder of 50 files in nested subfolders",
  async ({ page, server }) => {
    const erin = await driveUser(server, "erin");
    await erin.newFolder("Trip"); // Merged into: the drop's top folder has this name.
    await signInToDrive(page, server, "erin");
    await row(page, "Trip").waitFor();
    await page.evaluate(() => {
      type Tree = { [name: string]: Tree | string };
      const tree: Tree = {};
      for (let i = 0; i < 50; i++) {
        const dir = [`day ${i % 3}`, `part ${i % 2}`].slice(0, i % 3 === 0 ? 1 : 2);
        let node: Tree = tree;
        for (const d of dir) node = (node[d] ??= {}) as Tree;
        node[`photo ${i}.txt`] = `photo ${i} in ${dir.join("/")}\n`;
      }
      const fileEntry = (name: string, path: string, text: string) => ({
        isFile: true,
        isDirectory: false,
        name,
        fullPath: path,
        file: (ok: (f: File) => void) => setTimeout(() => ok(new File([text], name)), 0),
      });
      const dirEntry = (name: string, path: string, node: Tree): unknown => ({
        isFile: false,
        isDirectory: true,
        name,
        fullPath: path,
        createReader() {
          const children = Object.entries(node).map(([n, v]) =>
            typeof v === "string" ? fileEntry(n, `${path}/${n}`, v) : dirEntry(n, `${path}/${n}`, v)
          );
          let at = 0;
          // Chromium answers at most 100 entries per call; smaller batches here test the loop.
          return {
            readEntries: (ok: (e: unknown[]) => void) =>
              setTimeout(() => ok(children.slice(at, at += 7)), 0),
          };
        },
      });
      const dt = new DataTransfer();
      dt.items.add(new File(["x"], "Trip"));
      const items = [{
        kind: "file",
        type: "",
        webkitGetAsEntry: () => dirEntry("Trip", "/Trip", tree),
        getAsFile: () => null,
      }];
      Object.defineProperty(dt, "items", { value: items });
      const list = document.querySelector('[role="listbox"]')!;
      list.dispatchEvent(
        new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }),
      );
      list.dispatchEvent(
        new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }),
      );
    });
    await panel(page).getByText("50 of 50 done · 100%").waitFor({ timeout: 60_000 });
    assert.deepEqual(await namesIn(erin), ["Trip"], "merged into the existing folder");
    // Walk the tree through the API: every file in its folder with its bytes.
    const found: string[] = [];
    const walk = async (pfs: number, path: string): Promise<void> => {
      for (const item of await itemsIn(erin, pfs)) {
        if (item.type === "FOLDER") await walk(item.resourceSeq, `${path}${item.name}/`);
        else {
          const text = await (await erin.fetch(`/files/${item.resourceSeq}/download`)).text();
          assert.equal(text, `${item.name.replace(".txt", "")} in ${path.slice(0, -1)}\n`);
          found.push(`${path}${item.name}`);
        }
      }
    };
    await walk(await seqOf(erin, "Trip"), "");
    assert.equal(found.length, 50);
  },
);

browserTest(
  "app upload: a taken name asks keep both, replace or skip",
  async ({ page, server }) => {
    const erin = await driveUser(server, "erin");
    for (const n of ["a.txt", "b.txt", "c.txt"]) await erin.newFile(n, `old ${n}\n`);
    await signInToDrive(page, server, "erin");
    await row(page, "c.txt").waitFor();
    const choice: Record<string, string> = {
      "a.txt": "Keep both",
      "b.txt": "Replace (new version)",
      "c.txt": "Skip",
    };
    await page.locator("#upload-files").setInputFiles(
      Object.keys(choice).map((name) => ({
        name,
        mimeType: "text/plain",
        buffer: Buffer.from(`new ${name}\n`),
      })),
    );
    const dialog = page.getByRole("dialog", { name: "Name already taken" });
    for (let i = 0; i < 3; i++) {
      await dialog.waitFor();
      const text = await dialog.locator("#conflict-text").innerText();
      const name = Object.keys(choice).find((n) => text.includes(`“${n}”`))!;
      if (i === 0) await assertAccessible(page, "the conflict dialog over the upload panel");
      await dialog.getByRole("button", { name: choice[name], exact: true }).click();
      // The next clash's question follows at once, in a new dialog.
      await page.waitForFunction(
        (asked) => !document.querySelector("#conflict-text")?.textContent?.includes(asked),
        name,
      );
    }
    await dialog.waitFor({ state: "hidden" });
    await panel(page).getByText("2 of 2 done · 100%").waitFor();
    const names = await namesIn(erin);
    assert.equal(names.length, 4, `kept both a.txt: ${names}`);
    const copy = names.find((n) => !["a.txt", "b.txt", "c.txt"].includes(n))!;
    assert.equal(
      await (await erin.fetch(`/files/${await seqOf(erin, copy)}/download`)).text(),
      "new a.txt\n",
    );
    assert.equal(
      await (await erin.fetch(`/files/${await seqOf(erin, "a.txt")}/download`)).text(),
      "old a.txt\n",
    );
    const b = await seqOf(erin, "b.txt");
    assert.equal(await (await erin.fetch(`/files/${b}/download`)).text(), "new b.txt\n");
    const versions = await erin.call("GET", `/files/${b}/versions`);
    assert.equal(versions.status, 200);
    assert.equal(versions.body.data.items.length, 2, "replace made a second version");
    const c = await seqOf(erin, "c.txt");
    assert.equal(await (await erin.fetch(`/files/${c}/download`)).text(), "old c.txt\n");
    await panel(page).getByText("Skipped").waitFor();

    // "Apply to all", by keyboard only: one question for a batch of three clashes, all skipped.
    await panel(page).getByRole("button", { name: "Clear finished" }).click();
    await page.locator("#upload-files").setInputFiles(
      ["a.txt", "b.txt", "c.txt"].map((name) => ({
        name,
        mimeType: "text/plain",
        buffer: Buffer.from(`newer ${name}\n`),
      })),
    );
    await dialog.waitFor();
    await dialog.getByRole("checkbox", { name: "Apply to all" }).focus();
    await page.keyboard.press("Space");
    await page.keyboard.press("Tab"); // Keep both
    await page.keyboard.press("Tab"); // Replace
    await page.keyboard.press("Tab"); // Skip
    await page.keyboard.press("Enter");
    await panel(page).getByText("0 of 0 done · 100%").waitFor();
    assert.equal(await panel(page).getByText("Skipped").count(), 3);
    assert.equal((await namesIn(erin)).length, 4, "nothing new");
    assert.equal(await (await erin.fetch(`/files/${c}/download`)).text(), "old c.txt\n");
  },
);

browserTest(
  "app upload: a reload mid-upload, then the same file resumes from the server's offset",
  async ({ page, server }) => {
    const erin = await driveUser(server, "erin");
    await signInToDrive(page, server, "erin");
    // On disk, so picking it again gives the same name, size and modification time (the fingerprint).
    const dir = await Deno.makeTempDir({ prefix: "drive-upload-" });
    const path = `${dir}/big.bin`;
    const content = bytes(10 * 1024 * 1024 + 12345, 7); // three PATCHes of CHUNK_SIZE (4 MiB)
    await Deno.writeFile(path, content);
    try {
      // The second PATCH is held (never sent), so the reload comes with one chunk stored.
      let patches = 0;
      let firstStored!: () => void;
      const stored = new Promise<void>((resolve) => firstStored = resolve);
      await page.route("**/api/external/v1/uploads/*", async (route) => {
        if (route.request().method() !== "PATCH") return route.continue();
        if (++patches > 1) return; // held until the reload drops it
        const res = await route.fetch();
        await route.fulfill({ response: res });
        firstStored();
      });
      await page.locator("#upload-files").setInputFiles(path);
      await stored;
      await panel(page).getByText("Uploading").waitFor();
      // Reloaded with the second PATCH still held: the page drops it, nothing of it is sent.
      await page.reload();
      await page.unrouteAll({ behavior: "ignoreErrors" });

      const interrupted = page.getByRole("list", { name: "Interrupted uploads" });
      await interrupted.getByText("big.bin", { exact: true }).waitFor();
      await assertAccessible(page, "the panel with an interrupted upload");
      // What resumes it: HEAD (the server's offset), then PATCHes from that offset.
      const seen: { method: string; offset: string | null }[] = [];
      page.on("response", (res) => {
        const req = res.request();
        if (!/\/api\/external\/v1\/uploads\/[^/]+$/.test(req.url())) return;
        const offset = req.method() === "HEAD"
          ? res.headers()["upload-offset"]
          : req.headers()["upload-offset"];
        seen.push({ method: req.method(), offset: offset ?? null });
      });
      await page.locator("#upload-files").setInputFiles(path);
      await panel(page).getByText("1 of 1 done · 100%").waitFor({ timeout: 60_000 });
      await interrupted.waitFor({ state: "detached" });
      assert.equal(seen[0]?.method, "HEAD", `resumed with HEAD first: ${JSON.stringify(seen)}`);
      const from = Number(seen[0].offset);
      assert.equal(from, 4 * 1024 * 1024, "the first chunk was stored");
      assert.deepEqual(seen[1], { method: "PATCH", offset: String(from) }, "sent from there on");
      assert.deepEqual(await namesIn(erin), ["big.bin"]);
      assert.equal(await hashOf(erin, await seqOf(erin, "big.bin")), await sha256(content));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

browserTest(
  "app upload: pause then resume, and cancel deletes the server's upload",
  async ({ page, server }) => {
    const erin = await driveUser(server, "erin");
    await signInToDrive(page, server, "erin");
    const dir = await Deno.makeTempDir({ prefix: "drive-upload-" });
    const one = bytes(9_000_000, 3);
    await Deno.writeFile(`${dir}/one.bin`, one);
    await Deno.writeFile(`${dir}/two.bin`, bytes(9_000_000, 4));
    try {
      // Each file's second PATCH waits here (never sent), so the clicks land mid-upload.
      const held: string[] = [];
      const counts = new Map<string, number>();
      await page.route("**/api/external/v1/uploads/*", async (route) => {
        const url = route.request().url();
        if (route.request().method() !== "PATCH") return route.continue();
        const n = (counts.get(url) ?? 0) + 1;
        counts.set(url, n);
        if (n === 2) return void held.push(url);
        await route.continue();
      });
      const deleted: string[] = [];
      page.on("request", (r) => r.method() === "DELETE" && deleted.push(r.url()));

      await page.locator("#upload-files").setInputFiles([`${dir}/one.bin`, `${dir}/two.bin`]);
      await until("both second PATCHes held", () => Promise.resolve(held.length === 2));

      // Pause one.bin (its held request is dropped), and cancel two.bin.
      await panel(page).getByRole("button", { name: "Pause one.bin" }).click();
      await panel(page).getByText("Paused").waitFor();
      await panel(page).getByRole("button", { name: "Cancel two.bin" }).click();
      await panel(page).getByText("Canceled").waitFor();
      await until("two.bin's upload deleted", () => Promise.resolve(deleted.length === 1));

      // Resumed, one.bin goes on from the server's offset (its second PATCH is sent this time).
      await panel(page).getByRole("button", { name: "Resume one.bin" }).click();
      await panel(page).getByText("1 of 1 done · 100%").waitFor({ timeout: 60_000 });
      assert.deepEqual(await namesIn(erin), ["one.bin"]);
      assert.equal(await hashOf(erin, await seqOf(erin, "one.bin")), await sha256(one));

      const id = new URL(deleted[0]).pathname.split("/").at(-1);
      assert.ok(held.some((u) => u.endsWith(`/${id}`)), "the DELETE ended two.bin's upload");
      const gone = await erin.call("GET", `/uploads/${id}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.body.errorCode, "UPLOAD_001");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);
