/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, against the real
 * app served by startTestServer. Every request the page makes to another origin is blocked and
 * recorded, so a test also proves the console needs no network beyond this server.
 */
import { type BrowserContext, chromium, type Page } from "./playwright.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { ADMIN_TOKEN } from "../helpers/admin.ts";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = new URL("./artifacts/", import.meta.url);

export function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

export interface BrowserEnv {
  server: TestServer;
  page: Page;
  context: BrowserContext;
  /** Saves a full-page screenshot as tests/artifacts/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>;
}

export interface BrowserTestOptions {
  viewport?: { width: number; height: number };
  /** Extra environment variables for the server's readConfig. */
  env?: Record<string, string>;
  /**
   * Lets the page reach other servers of the test on 127.0.0.1 (an OpenID provider's login
   * pages); everything else off this server stays blocked.
   */
  allowLoopback?: boolean;
}

/** The address of the page that made a request ("" for one made by no page). */
function frameUrlOf(request: { frame(): { url(): string } }): string {
  try {
    return request.frame().url();
  } catch {
    return "";
  }
}

/** A Deno test with a fresh server and a fresh browser profile; skipped without Chromium. */
export function browserTest(
  name: string,
  fn: (env: BrowserEnv) => Promise<void>,
  opts: BrowserTestOptions = {},
): void {
  if (!hasChromium()) {
    Deno.test({ name: `${name} (skipped: ${CHROMIUM} is not installed)`, ignore: true, fn() {} });
    return;
  }
  Deno.test({
    name,
    // Chromium's pipes and playwright's timers outlive single steps by design.
    sanitizeOps: false,
    sanitizeResources: false,
    async fn() {
      const server = await startTestServer({ env: opts.env });
      const profile = await Deno.makeTempDir({ prefix: "drive-chromium-" });
      const downloads = await Deno.makeTempDir({ prefix: "drive-downloads-" });
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        acceptDownloads: true,
        downloadsPath: downloads,
        viewport: opts.viewport ?? { width: 1280, height: 860 },
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
      const foreign: string[] = [];
      const pageErrors: string[] = [];
      const origin = new URL(server.url).origin;
      await context.route("**/*", (route) => {
        const url = route.request().url();
        if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
        if (opts.allowLoopback && url.startsWith("http://127.0.0.1:")) return route.continue();
        // Pages of those other servers may want the internet (the provider's fonts): blocked,
        // but only this server's pages are held to the rule.
        if (opts.allowLoopback && !frameUrlOf(route.request()).startsWith(origin)) {
          return route.abort();
        }
        foreign.push(url);
        return route.abort();
      });
      const page = context.pages()[0] ?? await context.newPage();
      page.on("pageerror", (err) => pageErrors.push(err.message));
      page.setDefaultTimeout(15_000);
      await Deno.mkdir(ARTIFACTS, { recursive: true });
      const screenshot = async (shot: string) => {
        const path = new URL(`${shot}.png`, ARTIFACTS).pathname;
        await page.screenshot({ path, fullPage: true });
        return path;
      };
      const slug = name.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "").toLowerCase();
      try {
        await fn({ server, page, context, screenshot });
        // Every test leaves at least its final state behind.
        await screenshot(`end-${slug}`);
        if (pageErrors.length) throw new Error(`uncaught errors in the page: ${pageErrors}`);
        if (foreign.length) throw new Error(`the page reached other origins: ${foreign}`);
      } catch (err) {
        await screenshot(`FAILED-${slug}`).catch(() => {});
        throw err;
      } finally {
        await context.close();
        await server.close();
        await Deno.remove(profile, { recursive: true }).catch(() => {});
        await Deno.remove(downloads, { recursive: true }).catch(() => {});
      }
    },
  });
}

/** Signs in through the sign-in form and waits for the console. */
export async function signIn(page: Page, server: TestServer, token = ADMIN_TOKEN): Promise<void> {
  await page.goto(`${server.url}/admin`);
  await page.getByLabel("Admin token").fill(token);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("navigation", { name: "Console sections" }).waitFor();
}

/** Fills the labelled fields of a form (or page) in order, then clicks its `button`. */
export async function submit(
  form: Pick<Page, "getByLabel" | "getByRole">,
  fields: Record<string, string>,
  button: string,
): Promise<void> {
  for (const [label, value] of Object.entries(fields)) await form.getByLabel(label).fill(value);
  await form.getByRole("button", { name: button }).click();
}

/** Opens a console page through its navigation link. */
export async function openSection(page: Page, title: string): Promise<void> {
  await page.getByRole("navigation", { name: "Console sections" })
    .getByRole("link", { name: title, exact: true }).click();
  await page.getByRole("heading", { level: 1, name: title }).waitFor();
}

/** Whether the document is wider than the viewport (content cut off or scrolling sideways). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > globalThis.innerWidth);
}
