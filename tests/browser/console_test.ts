/**
 * End-to-end tests of the admin console and the public share page in headless Chromium.
 * Each test saves screenshots under tests/artifacts/ (git-ignored); the console test also
 * refreshes docs/console.png when it is missing or DRIVE_UPDATE_SCREENSHOT=1. The console's
 * admin pages beyond sign-in and identities are in console_admin_test.ts.
 */
import assert from "node:assert/strict";
import type { Page } from "./playwright.ts";
import { browserTest, openSection, overflowsHorizontally, signIn } from "./helpers.ts";
import type { TestServer } from "../helpers/server.ts";
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { newApiUser, shareFlags, uploadAs } from "../helpers/api.ts";

const DOCS_SCREENSHOT = new URL("../../docs/console.png", import.meta.url);

function existsSync(url: URL): boolean {
  try {
    Deno.statSync(url);
    return true;
  } catch {
    return false;
  }
}

/** The external API answers this key (a folder can be created with it), or not. */
async function keyWorks(server: TestServer, apiKey: string): Promise<boolean> {
  const res = await fetch(`${server.url}/api/external/v1/folders`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ fn: `probe-${crypto.randomUUID()}` }),
  });
  await res.body?.cancel();
  if (res.status !== 201 && res.status !== 401) throw new Error(`unexpected ${res.status}`);
  return res.status === 201;
}

async function createTenantInUi(page: Page, name: string): Promise<void> {
  const form = page.getByRole("form", { name: "Create a tenant" });
  await form.getByLabel("Tenant name").fill(name);
  await form.getByRole("button", { name: "Create tenant" }).click();
  await form.getByRole("status").filter({ hasText: `Tenant “${name}” created` }).waitFor();
}

async function createUserInUi(
  page: Page,
  user: { tenant: string; accountId: string; email: string; name: string; quotaGiB?: string },
): Promise<void> {
  const form = page.getByRole("form", { name: "Create a user" });
  await form.getByLabel("Tenant").selectOption({ label: user.tenant });
  await form.getByLabel("Account id").fill(user.accountId);
  await form.getByLabel("E-mail").fill(user.email);
  await form.getByLabel("Display name").fill(user.name);
  if (user.quotaGiB) await form.getByLabel("Quota (optional)").fill(user.quotaGiB);
  await form.getByRole("button", { name: "Create user" }).click();
}

browserTest(
  "console: sign in, create tenant, user, key and adapter, connection test passes, revoke the key",
  async ({ page, server, screenshot }) => {
    // Sign-in validates before sending, then rejects a wrong token with the API's verdict.
    await page.goto(`${server.url}/admin`);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    const tokenField = page.getByLabel("Admin token");
    assert.equal(await tokenField.getAttribute("aria-invalid"), "true");
    await page.getByText("Enter the admin token.").waitFor();
    await tokenField.fill("not-the-token");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("This admin token is not valid.").waitFor();
    await tokenField.fill(ADMIN_TOKEN);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Tenants" }).waitFor();
    assert.equal(
      await page.evaluate(() => sessionStorage.getItem("drive.adminToken")),
      ADMIN_TOKEN,
    );

    // Tenant
    await createTenantInUi(page, "Acme");
    await page.getByRole("cell", { name: "Acme", exact: true }).waitFor();
    const tenants = await server.admin.call("GET", "/tenants");
    assert.deepEqual(tenants.body.items.map((t: { name: string }) => t.name), ["Acme"]);

    // User: an invalid e-mail is caught before sending; then created.
    await openSection(page, "Users");
    await createUserInUi(page, {
      tenant: "Acme (id 1)",
      accountId: "ana",
      email: "ana@",
      name: "Ana Lima",
    });
    await page.getByText("Enter a valid e-mail address").waitFor();
    assert.equal((await server.admin.call("GET", "/users")).body.items.length, 0);
    const createUser = page.getByRole("form", { name: "Create a user" });
    await createUser.getByLabel("E-mail").fill("ana@example.com");
    await createUser.getByRole("button", { name: "Create user" }).click();
    await createUser.getByRole("status").filter({ hasText: "User “ana” created" }).waitFor();
    await page.getByRole("cell", { name: /ana/ }).first().waitFor();
    const users = (await server.admin.call("GET", "/users")).body.items;
    assert.deepEqual(users.map((u: { accountId: string }) => u.accountId), ["ana"]);
    await screenshot("console-users");

    // API key: shown once, it works, and is gone from the page once hidden.
    await openSection(page, "API keys");
    const issue = page.getByRole("form", { name: "Issue an API key" });
    await issue.getByLabel("User").selectOption({ label: `ana (seq ${users[0].userSeq})` });
    await issue.getByLabel("Label (optional)").fill("backup job");
    await issue.getByRole("button", { name: "Issue key" }).click();
    const secretBox = page.getByLabel("API key", { exact: true });
    await secretBox.waitFor();
    await page.getByText("This is the only time it is shown").waitFor();
    const apiKey = await secretBox.inputValue();
    assert.match(apiKey, /^drv_/);
    assert.equal(await keyWorks(server, apiKey), true);
    await screenshot("console-key-issued");
    await page.getByRole("button", { name: "I have stored it, hide it" }).click();
    assert.equal(await page.getByLabel("API key", { exact: true }).count(), 0);
    assert.equal((await page.content()).includes(apiKey), false);

    // Adapter for ana's drive, rename switched off: its secret is shown once.
    await openSection(page, "Adapters");
    const register = page.getByRole("form", { name: "Register an adapter" });
    await register.getByLabel("Adapter name").fill("office host");
    await register.getByRole("button", { name: "Register adapter" }).click();
    await register.getByText("Use letters, digits").waitFor();
    await register.getByLabel("Adapter name").fill("office-host");
    await register.getByLabel("User (whose drive it serves)").selectOption({
      label: `ana (seq ${users[0].userSeq})`,
    });
    await register.getByRole("switch", { name: "rename" }).uncheck();
    await register.getByRole("switch", { name: "Read-only" }).check();
    await register.getByRole("button", { name: "Register adapter" }).click();
    const adapterSecret = page.getByLabel("Adapter secret", { exact: true });
    const firstSecret = await adapterSecret.inputValue();
    assert.ok(firstSecret.length >= 32);
    const adapters = (await server.admin.call("GET", "/adapters")).body.items;
    assert.equal(adapters.length, 1);
    assert.equal(adapters[0].name, "office-host");
    assert.equal(adapters[0].readOnly, true);
    assert.equal(adapters[0].operations.includes("rename"), false);
    assert.equal(adapters[0].operations.includes("lock"), true);
    assert.equal(JSON.stringify(adapters[0]).includes(firstSecret), false);
    await page.getByRole("button", { name: "I have stored it, hide it" }).click();

    // Connection test: progress while it runs, then the verdict in words.
    await page.getByRole("button", { name: "Connection test of office-host" }).click();
    await page.getByRole("button", { name: "Run connection test" }).click();
    const result = page.getByRole("region", { name: "Connection test result" });
    await result.waitFor();
    await result.getByText("Passed").waitFor();
    await result.getByText("No problems found.").waitFor();
    assert.match(await result.innerText(), /HTTP status\s*200/);

    // Rotating issues a different secret, again shown once.
    await page.getByRole("button", { name: "Rotate the secret of office-host" }).click();
    await page.getByRole("button", { name: "Rotate secret", exact: true }).click();
    const rotated = await page.getByLabel("Adapter secret", { exact: true }).inputValue();
    assert.ok(rotated.length >= 32);
    assert.notEqual(rotated, firstSecret);
    await page.getByRole("button", { name: "I have stored it, hide it" }).click();
    await page.getByRole("button", { name: "Run connection test" }).click();
    await result.getByText("Passed").waitFor();
    const consoleShot = await screenshot("console-adapters");
    if (Deno.env.get("DRIVE_UPDATE_SCREENSHOT") === "1" || !existsSync(DOCS_SCREENSHOT)) {
      await Deno.copyFile(consoleShot, DOCS_SCREENSHOT);
    }

    // Revoke the key, with an inline confirmation.
    await openSection(page, "API keys");
    const keyId = apiKey.split("_")[1];
    await page.getByRole("button", { name: `Revoke key ${keyId}` }).click();
    await page.getByRole("button", { name: "Revoke key", exact: true }).click();
    await page.getByText(/^revoked/).waitFor();
    assert.equal(await keyWorks(server, apiKey), false);
    await screenshot("console-key-revoked");
  },
);

browserTest(
  "console: the API's error is shown next to the field it names",
  async ({ page, server, screenshot }) => {
    const tenant = await server.admin.createTenant("Acme");
    await server.admin.createUser(tenant.id, "ana");
    await signIn(page, server);
    await openSection(page, "Users");
    await createUserInUi(page, {
      tenant: `Acme (id ${tenant.id})`,
      accountId: "ana",
      email: "other@example.com",
      name: "Another Ana",
    });
    // 409 USER_002 names accountId: its message sits under that input, which is marked invalid.
    const form = page.getByRole("form", { name: "Create a user" });
    const accountId = form.getByLabel("Account id");
    // Field names in words, not the API's (accountId).
    await form.getByText('Account id "ana" is already taken').waitFor();
    assert.equal(await accountId.getAttribute("aria-invalid"), "true");
    const describedBy = await accountId.getAttribute("aria-describedby");
    assert.ok(describedBy);
    assert.match(await page.locator(`#${describedBy}`).innerText(), /already taken/);
    assert.equal(await form.getByLabel("E-mail").getAttribute("aria-invalid"), null);
    await screenshot("console-field-error");
  },
);

browserTest("console: a 401 from the API signs out", async ({ page, server }) => {
  await signIn(page, server);
  // Another tab rotated the token: the stored one no longer works.
  await page.evaluate(() => sessionStorage.setItem("drive.adminToken", "stale-token"));
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "Drive admin" }).waitFor();
  await page.getByText("The admin token was not accepted. Sign in again.").waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem("drive.adminToken")), null);
  // Signing out by hand also forgets the token.
  await signIn(page, server);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Admin token").waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem("drive.adminToken")), null);
});

browserTest(
  "console: usable by keyboard alone, with visible focus",
  async ({ page, server, screenshot }) => {
    await page.goto(`${server.url}/admin`);
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "form1-token");
    await page.keyboard.type(ADMIN_TOKEN);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Tenants" }).waitFor();

    // Tab to the tenant name field, type, submit with Enter.
    const nameField = page.getByRole("form", { name: "Create a tenant" }).getByLabel("Tenant name");
    for (
      let i = 0;
      i < 30 && !(await nameField.evaluate((el) => el === document.activeElement));
      i++
    ) {
      await page.keyboard.press("Tab");
    }
    assert.equal(await nameField.evaluate((el) => el === document.activeElement), true);
    const outline = await nameField.evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.notEqual(outline, "none");
    await page.keyboard.type("Keyboard Co");
    await page.keyboard.press("Enter");
    await page.getByRole("cell", { name: "Keyboard Co", exact: true }).waitFor();

    // Navigation links are reachable and followable with the keyboard.
    const usersLink = page.getByRole("link", { name: "Users", exact: true });
    await usersLink.focus();
    assert.notEqual(await usersLink.evaluate((el) => getComputedStyle(el).outlineStyle), "none");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Users" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/admin/users");
    await screenshot("console-keyboard");
  },
);

browserTest(
  "console: readable at 360 px, every input labelled",
  async ({ page, server, screenshot }) => {
    const tenant = await server.admin.createTenant("Acme");
    const user = await server.admin.createUser(tenant.id, "ana", { quotaBytes: 5 * 1024 ** 3 });
    await server.admin.createKey(user.userSeq);
    await signIn(page, server);
    for (
      const title of [
        "Tenants",
        "Users",
        "API keys",
        "Adapters",
        "Share links",
        "Locks",
        "Single sign-on",
      ]
    ) {
      await openSection(page, title);
      await page.getByText("Loading…").first().waitFor({ state: "detached" });
      assert.equal(await overflowsHorizontally(page), false, `${title} overflows at 360 px`);
      const unlabelled = await page.evaluate(() =>
        [...document.querySelectorAll("input, select, textarea")]
          .filter((el) =>
            !(el as HTMLInputElement).labels?.length && !el.getAttribute("aria-label")
          )
          .map((el) => el.outerHTML)
      );
      assert.deepEqual(unlabelled, [], `${title} has unlabelled inputs`);
      await screenshot(`console-360-${title.toLowerCase().replace(/ /g, "-")}`);
    }
  },
  { viewport: { width: 360, height: 740 } },
);

browserTest(
  "share page: a password link asks for it, then shows and downloads the file",
  async ({ page, server, screenshot }) => {
    const ana = await newApiUser(server, "ana");
    const content = `quarterly numbers ${crypto.randomUUID()}\n`;
    const rs = await uploadAs(server, ana, "report.txt", content);
    const share = await ana.newShare({
      rs,
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
      password: "open sesame",
      expireDate: "2099-12-31",
    });

    await page.goto(share.linkUrl);
    await page.getByRole("heading", { name: "This link is protected" }).waitFor();
    await page.getByText(/This link expires .*2099/).waitFor();
    assert.equal(await page.getByText("report.txt").count(), 0);
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByText("Enter the password.").waitFor();
    await page.getByLabel("Password").fill("wrong guess");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByText("Wrong password. Try again.").waitFor();
    assert.equal(await page.getByLabel("Password").getAttribute("aria-invalid"), "true");
    await screenshot("share-password");

    await page.getByLabel("Password").fill("open sesame");
    await page.getByRole("button", { name: "Open" }).click();
    await page.getByRole("heading", { level: 1, name: "report.txt" }).waitFor();
    await screenshot("share-file");
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Download report.txt" }).click(),
    ]);
    assert.equal(download.suggestedFilename(), "report.txt");
    assert.equal(await Deno.readTextFile((await download.path())!), content);
  },
);

browserTest(
  "share page: a visitor's wrong passwords cost growing waits, then the password opens",
  async ({ page, server, screenshot }) => {
    const ana = await newApiUser(server, "ana");
    const rs = await uploadAs(server, ana, "secret.txt", "x");
    const share = await ana.newShare({
      rs,
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
      password: "right password",
    });
    await page.goto(share.linkUrl);
    const password = page.getByLabel("Password");
    const open = page.getByRole("button", { name: "Open" });
    // After 5 free tries this visitor waits 1 s, then 2 s, ...; keep guessing (each time the
    // button is back) until a wait of at least 2 s, long enough to look at.
    let wait = 0;
    for (let attempt = 0; attempt < 20 && wait < 2; attempt++) {
      await open.waitFor();
      await password.fill(`guess ${attempt}`);
      const [res] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/access")),
        open.click(),
      ]);
      if (res.status() === 429) wait = Number(res.headers()["retry-after"]);
      else assert.equal(res.status(), 401);
    }
    assert.ok(wait >= 2, `Retry-After ${wait}`);
    await page.getByText(/^Too many attempts\. Wait \d+ seconds, then try again\.$/).waitFor();
    // The button waits out Retry-After instead of sending more guesses.
    const waiting = page.getByRole("button", { name: /^Wait \d+ s$/ });
    await waiting.waitFor();
    assert.equal(await waiting.isDisabled(), true);
    await screenshot("share-rate-limited");
    // The wait is the visitor's own and short: then the right password opens the link.
    await open.waitFor();
    await password.fill("right password");
    await open.click();
    await page.getByRole("heading", { level: 1, name: "secret.txt" }).waitFor();
  },
);

browserTest(
  "share page: a folder link browses its subtree and nothing beyond",
  async ({ page, server, screenshot }) => {
    const ana = await newApiUser(server, "ana");
    const project = await ana.newFolder("Project");
    const drafts = await ana.newFolder("Drafts", project);
    const outside = await ana.newFolder("Private");
    await ana.upload("readme.txt", "read me", { pfs: project });
    await ana.upload("draft.txt", "draft", { pfs: drafts });
    await ana.upload("diary.txt", "private", { pfs: outside });
    // View only: no download buttons anywhere.
    const share = await ana.newShare({ rs: project, st: "PUBLIC_LINK", ...shareFlags() });

    await page.goto(share.linkUrl);
    await page.getByRole("heading", { level: 1, name: "Project" }).waitFor();
    await page.getByText("readme.txt").waitFor();
    assert.equal(await page.getByRole("link", { name: /^Download/ }).count(), 0);
    await screenshot("share-folder");

    await page.getByRole("link", { name: "Drafts" }).click();
    await page.getByRole("heading", { level: 1, name: "Drafts" }).waitFor();
    await page.getByText("draft.txt").waitFor();
    const crumbs = page.getByRole("navigation", { name: "Folder path" });
    assert.deepEqual(await crumbs.getByRole("listitem").allInnerTexts(), ["Project", "Drafts"]);
    await crumbs.getByRole("link", { name: "Project" }).click();
    await page.getByRole("heading", { level: 1, name: "Project" }).waitFor();
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: "Drafts" }).waitFor();

    // A folder outside the shared one cannot be opened through the link.
    await page.goto(`${share.linkUrl}?folder=${outside}`);
    await page.getByRole("heading", { name: "Not in this shared folder" }).waitFor();
    assert.equal(await page.getByText("diary.txt").count(), 0);
    await page.getByRole("link", { name: "Back to the shared folder" }).click();
    await page.getByRole("heading", { level: 1, name: "Project" }).waitFor();
  },
);
