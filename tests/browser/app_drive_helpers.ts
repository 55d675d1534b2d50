/**
 * Shared steps of the file-browser tests (app_drive_test.ts): a user with an API key (to set up
 * and check through the API) and a password (to sign in through the app's form), and locators
 * for the list's rows.
 */
import type { Page } from "./playwright.ts";
import type { TestServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { GOOD_PASSWORD, setPasswordByInvitation } from "../helpers/browser_session.ts";

export async function driveUser(
  server: TestServer,
  accountId: string,
  tenantId?: number,
): Promise<ApiUser> {
  const user = await newApiUser(server, accountId, { tenantId });
  await setPasswordByInvitation(server.url, server.admin, user.userSeq);
  return user;
}

/** Signs in through the form; the app lands on My drive. */
export async function signInToDrive(page: Page, server: TestServer, accountId: string) {
  await page.goto(`${server.url}/signin`);
  const form = page.getByRole("form", { name: "Sign in with a password" });
  await form.getByLabel("Account id or e-mail").fill(accountId);
  await form.getByLabel("Password").fill(GOOD_PASSWORD);
  await form.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "My drive" }).waitFor();
}

/** The row of `name` in the file list (its accessible name is its cells' text, name first). */
export function row(page: Page, name: string) {
  const quoted = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return page.getByRole("listbox").getByRole("option", { name: new RegExp(`^${quoted}( |$)`) });
}

/** The row of `name` once it is selected (waits for the selection to show). */
export function selectedRow(page: Page, name: string) {
  return page.locator('[role="option"][aria-selected="true"]', { hasText: name });
}

/** The names in the user's folder `pfs` (root when omitted), through the API. */
export async function namesIn(user: ApiUser, pfs?: number): Promise<string[]> {
  const r = await user.call("GET", `/resources${pfs ? `?pfs=${pfs}` : ""}`);
  return r.body.data.items.map((x: { name: string }) => x.name).sort();
}

/** The element that has focus: its role and accessible label. */
export function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return `${el?.getAttribute("role") ?? el?.tagName.toLowerCase()}:${
      el?.getAttribute("aria-label") ?? el?.id ?? ""
    }`;
  });
}

const DOCS = new URL("../../docs/", import.meta.url);

/**
 * Copies a screenshot to docs/<name> (docs/web.md shows them) when it is missing there or
 * DRIVE_UPDATE_SCREENSHOT=1, like console_test.ts does for docs/console.png.
 */
export async function toDocs(shot: string, name: string): Promise<void> {
  const target = new URL(name, DOCS);
  const missing = await Deno.stat(target).then(() => false, () => true);
  if (missing || Deno.env.get("DRIVE_UPDATE_SCREENSHOT") === "1") await Deno.copyFile(shot, target);
}
