/**
 * The web app (ui/app/) in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core
 * as tests/browser/ does), against main.ts (docs/benchmarks.md, "Web app"; issue 25):
 *   - first-load JS: every script the drive page loads, gzipped here (level 6) and as sent;
 *   - cold load (a new browser context: empty cache, signed in) to the first folder rendered: from
 *     navigation start to the first row in the DOM (a MutationObserver installed before the app
 *     runs stamps performance.now());
 *   - a `--entries`-entry folder (default 100,000, written straight into the KV file as a create
 *     writes them, 100 per commit): first screen the same way; then scrolling to the end (to the
 *     bottom every frame until the last entry is in the DOM), with the app's listing page fetches
 *     per second against a bare loop over the same listing API with the same session, and the
 *     frame times meanwhile, and against the same loop run inside the page by its own fetch (where
 *     the browser shares the CPU as the app does); then, every entry loaded, frame times while
 *     scrolling from the top (`--frames` frames, 400 px per requestAnimationFrame). Frame times are p50/p95 of the
 *     requestAnimationFrame deltas.
 * Medians of `--runs` (default 3). `--trace <file>`: a Chrome performance trace of one scroll.
 * Usage: deno run -A bench/web_app.ts [--entries N] [--runs N] [--frames N] [--trace file]
 */
import { gzipSync } from "node:zlib";
import { chromium } from "../tests/browser/playwright.ts";
import { AdminClient } from "../tests/helpers/admin.ts";
import { GOOD_PASSWORD, setPasswordByInvitation } from "../tests/helpers/browser_session.ts";
import { readConfig } from "../config.ts";
import { openKv } from "../kv/db.ts";
import { requireUser } from "../kv/identity/users.ts";
import { newResource } from "../kv/tree/placement.ts";
import { writeResource } from "../kv/tree/resources.ts";
import { createDeps } from "../kv/deps.ts";
import { openKvBlobStore } from "../blobs/kv.ts";
import { blobStoreKeys } from "../kv/keys.ts";
import { ADMIN_TOKEN, freePort, mainEnv, median, numberArg, stringArg, waitFor } from "./lib.ts";

const ENTRIES = numberArg("entries", 100_000);
const RUNS = numberArg("runs", 3);
const FRAMES = numberArg("frames", 300);
const TRACE = stringArg("trace");
const CHROMIUM = "/usr/bin/chromium";
const PER_COMMIT = 100;

/** `n` folders "item NNNNNN" under `parentRs`, written as createFolder writes each one. */
async function writeBigFolder(dir: string, userSeq: number, parentRs: number, n: number) {
  const kv = await openKv(`${dir}/drive.kv`);
  const d = createDeps(readConfig({ DRIVE_KV: `${dir}/drive.kv`, DRIVE_BLOB_STORE: "kv" }), {
    kv,
    blobs: openKvBlobStore(kv, blobStoreKeys),
  });
  const owner = await requireUser(kv, userSeq);
  for (let i = 0; i < n; i += PER_COMMIT) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + PER_COMMIT); j++) {
      const r = newResource({
        rs: await d.ids.next("resource"),
        ownerSeq: owner.userSeq,
        tenantId: owner.tenantId,
        parentRs,
        name: `item ${String(j).padStart(6, "0")}`,
        actorSeq: owner.userSeq,
        content: null,
      });
      writeResource(op, null, r, owner.userSeq);
    }
    if (!(await op.commit()).ok) throw new Error("batch commit failed");
  }
  kv.close();
}

/** Stamps the first row's arrival (ms after navigation start) in window.__firstRow. */
const FIRST_ROW_PROBE = `(() => {
  const seen = () => {
    if (window.__firstRow === undefined && document.querySelector('[role="option"]')) {
      window.__firstRow = performance.now();
    }
  };
  new MutationObserver(seen).observe(document, { childList: true, subtree: true });
})();`;

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

const dir = await Deno.makeTempDir({ prefix: "bench-webapp-" });
// main.ts on a fixed port, so its public URL (the Origin the session routes ask for) is right.
const port = freePort();
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", new URL("../main.ts", import.meta.url).pathname],
  env: { ...mainEnv(port, dir), DRIVE_KV: `${dir}/drive.kv` },
  stdout: "null",
  stderr: "null",
}).spawn();
const app = { url: `http://127.0.0.1:${port}` };
await waitFor(`${app.url}/healthz`);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const admin = new AdminClient(app.url, ADMIN_TOKEN);
  const user = await admin.createUser((await admin.createTenant("bench")).id, "bench", {});
  const key = await admin.createKey(user.userSeq);
  await setPasswordByInvitation(app.url, admin, user.userSeq);
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${app.url}/api/external/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    });
  const mk = async (name: string) =>
    (await (await api("/folders", { method: "POST", body: JSON.stringify({ fn: name }) })).json())
      .data.resourceSeq as number;
  for (let i = 0; i < 30; i++) await mk(`folder ${i}`);
  const bigRs = await mk("big");
  const t0 = performance.now();
  await writeBigFolder(dir, user.userSeq, bigRs, ENTRIES);
  console.error(`wrote ${ENTRIES} entries in ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  // Signed in once through the form; every measured context starts from its cookies alone.
  const signin = await browser.newContext();
  const p0 = await signin.newPage();
  await p0.goto(`${app.url}/signin`);
  const form = p0.getByRole("form", { name: "Sign in with a password" });
  await form.getByLabel("Account id or e-mail").fill("bench");
  await form.getByLabel("Password").fill(GOOD_PASSWORD);
  await form.getByRole("button", { name: "Sign in" }).click();
  await p0.getByRole("heading", { level: 1, name: "My drive" }).waitFor();
  const storageState = await signin.storageState();
  await signin.close();

  /** A cold page (new context) opened at `path`: ms to the first row, and its scripts. */
  const coldOpen = async (path: string) => {
    const context = await browser.newContext({
      storageState,
      viewport: { width: 1280, height: 860 },
    });
    const page = await context.newPage();
    await page.addInitScript(FIRST_ROW_PROBE);
    const scripts: { url: string; raw: number; gz: number; sent: number }[] = [];
    const pending: Promise<void>[] = [];
    page.on("response", (res) => {
      if (res.request().resourceType() !== "script") return;
      pending.push((async () => {
        const body = await res.body();
        const sent = Number(res.headers()["content-length"] ?? body.length);
        scripts.push({ url: res.url(), raw: body.length, gz: gzipSync(body).length, sent });
      })());
    });
    const listUrls: string[] = [];
    page.on("request", (req) => {
      if (/\/resources\?/.test(req.url())) listUrls.push(req.url());
    });
    await page.goto(`${app.url}${path}`);
    await page.waitForFunction(() => (window as { __firstRow?: number }).__firstRow !== undefined);
    const firstRow = await page.evaluate(() => (window as { __firstRow?: number }).__firstRow!);
    await Promise.all(pending);
    return { context, page, firstRow, scripts, listUrls };
  };

  const cold: number[] = [];
  const bigFirst: number[] = [];
  const frameP50: number[] = [];
  const frameP95: number[] = [];
  const endMs: number[] = [];
  const loadP50: number[] = [];
  const loadP95: number[] = [];
  const appPagesPerS: number[] = [];
  const barePagesPerS: number[] = [];
  let scripts: { url: string; raw: number; gz: number; sent: number }[] = [];
  let pageSizes = "";
  const appRowsPerS: number[] = [];
  const bareRowsPerS: number[] = [];
  const pageRowsPerS: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const root = await coldOpen("/");
    cold.push(root.firstRow);
    scripts = root.scripts;
    await root.context.close();

    const big = await coldOpen(`/?folder=${bigRs}`);
    bigFirst.push(big.firstRow);
    const { page } = big;
    // To the end first, from the first page: the bottom every frame until the last entry is in
    // the DOM; the frame deltas meanwhile are the frames while pages arrive.
    const lastName = `item ${String(ENTRIES - 1).padStart(6, "0")}`;
    const toEnd = await page.evaluate(async (last) => {
      const el = document.querySelector(".vlist") as HTMLElement;
      const t = performance.now();
      const has = () =>
        [...document.querySelectorAll('[role="option"] .label')].some((n) =>
          n.textContent === last
        );
      const deltas: number[] = [];
      let prev = t;
      while (!has()) {
        el.scrollTop = el.scrollHeight;
        const now = await new Promise<number>((r) => requestAnimationFrame(r));
        deltas.push(now - prev);
        prev = now;
      }
      return { ms: performance.now() - t, deltas };
    }, lastName);
    endMs.push(toEnd.ms);
    loadP50.push(pct(toEnd.deltas, 0.5));
    loadP95.push(pct(toEnd.deltas, 0.95));
    appPagesPerS.push((big.listUrls.length - 1) / (toEnd.ms / 1000));
    if (TRACE && run === 0) await browser.startTracing(page, { path: TRACE, screenshots: false });
    // Frame times with every entry loaded: from the top, 400 px further every frame.
    const deltas = await page.evaluate(async (frames) => {
      const el = document.querySelector(".vlist") as HTMLElement;
      el.scrollTop = 0;
      const out: number[] = [];
      let last = await new Promise<number>((r) => requestAnimationFrame(r));
      for (let i = 0; i < frames; i++) {
        el.scrollTop += 400;
        const now = await new Promise<number>((r) => requestAnimationFrame(r));
        out.push(now - last);
        last = now;
      }
      return out;
    }, FRAMES);
    if (TRACE && run === 0) await browser.stopTracing();
    frameP50.push(pct(deltas, 0.5));
    frameP95.push(pct(deltas, 0.95));

    // The same listing, page after page, from a bare loop with the page's own session and the
    // app's page sizes (a small first page, then bigger ones).
    const cookie = (await big.context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const sizes = big.listUrls.map((u) => new URL(u).searchParams.get("ps")!);
    const first = new URL(big.listUrls[0]);
    let cursor: string | null = null;
    let pages = 0;
    const tb = performance.now();
    do {
      const u = new URL(first);
      u.searchParams.set("ps", sizes[Math.min(pages, sizes.length - 1)]);
      if (cursor) u.searchParams.set("cursor", cursor);
      const res = await fetch(u, { headers: { cookie, origin: app.url } });
      if (!res.ok) throw new Error(`bare listing: ${res.status} ${await res.text()}`);
      cursor = (await res.json()).data.nextCursor;
      pages++;
    } while (cursor);
    const bareMs = performance.now() - tb;
    barePagesPerS.push(pages / (bareMs / 1000));
    // The same loop inside the page (its fetch, its cookies, the same browser sharing the CPU):
    // the listing's speed as the app itself can see it.
    const inPageMs = await page.evaluate(async ({ url, sizes }) => {
      let cursor: string | null = null;
      let n = 0;
      const t = performance.now();
      do {
        const u = new URL(url);
        u.searchParams.set("ps", sizes[Math.min(n, sizes.length - 1)]);
        if (cursor) u.searchParams.set("cursor", cursor);
        const res = await fetch(u, { headers: { accept: "application/json" } });
        if (!res.ok) throw new Error(`in-page listing: ${res.status}`);
        cursor = (await res.json()).data.nextCursor;
        n++;
      } while (cursor);
      return performance.now() - t;
    }, { url: first.href, sizes });
    pageRowsPerS.push(ENTRIES / (inPageMs / 1000));
    // Rows per second: the app's pages after its first, against the bare loop's whole listing.
    appRowsPerS.push((ENTRIES - Number(sizes[0])) / (toEnd.ms / 1000));
    bareRowsPerS.push(ENTRIES / (bareMs / 1000));
    pageSizes = [...new Set(sizes)].join(" then ");
    await big.context.close();
  }

  const kb = (n: number) => (n / 1024).toFixed(1);
  const gz = scripts.reduce((s, x) => s + x.gz, 0);
  console.log(`first-load scripts (${scripts.length}):`);
  for (const s of scripts) {
    console.log(
      `  ${new URL(s.url).pathname}: ${kb(s.raw)} KB raw, ${kb(s.gz)} KB gzipped, ${
        kb(s.sent)
      } KB sent`,
    );
  }
  const r1 = (x: number) => x.toFixed(1);
  console.log(`| measure (${RUNS} runs, medians) | figure | target |`);
  console.log("|---|---:|---|");
  console.log(`| first-load JS, gzipped | ${kb(gz)} KB | ≤ 150 KB |`);
  console.log(
    `| cold load to the first folder rendered | ${r1(median(cold))} ms (${
      cold.map(r1).join(", ")
    }) | ≤ 1,000 ms |`,
  );
  console.log(
    `| ${ENTRIES}-entry folder, first screen | ${r1(median(bigFirst))} ms (${
      bigFirst.map(r1).join(", ")
    }) | ≤ 1,000 ms |`,
  );
  console.log(
    `| frame time while scrolling, every entry loaded, p50 / p95 | ${r1(median(frameP50))} / ${
      r1(median(frameP95))
    } ms | recorded |`,
  );
  console.log(
    `| frame time while scrolling to the end (pages arriving), p50 / p95 | ${
      r1(median(loadP50))
    } / ${r1(median(loadP95))} ms | recorded |`,
  );
  console.log(
    `| scrolling to the end | ${r1(median(endMs) / 1000)} s (${
      endMs.map((x) => r1(x / 1000)).join(", ")
    }) | pages at the listing's speed |`,
  );
  console.log(
    `| app's listing pages (ps ${pageSizes}) | ${r1(median(appPagesPerS))}/s, ${
      median(appRowsPerS).toFixed(0)
    } rows/s | |`,
  );
  console.log(
    `| bare loop over the listing API (same sizes, same session) | ${
      r1(median(barePagesPerS))
    }/s, ${median(bareRowsPerS).toFixed(0)} rows/s | |`,
  );
  console.log(
    `| app ÷ bare (rows/s) | ${(median(appRowsPerS) / median(bareRowsPerS)).toFixed(2)}× | |`,
  );
  console.log(
    `| the same loop inside the page (its fetch and cookies) | ${
      median(pageRowsPerS).toFixed(0)
    } rows/s | |`,
  );
  console.log(
    `| app ÷ the loop inside the page (rows/s) | ${
      (median(appRowsPerS) / median(pageRowsPerS)).toFixed(2)
    }× | |`,
  );
} finally {
  await browser.close();
  child.kill("SIGTERM");
  await child.status;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
