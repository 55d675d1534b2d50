/**
 * The end-user app at `/` in headless Chromium (issue 24): an administrator creates a user and
 * an invitation through the admin API; the user opens the link, sets a password, signs out and
 * in again, creates an app password, uses it with curl on the drive API, revokes it, and curl
 * gets 401. Screenshots go to tests/browser/artifacts/ (app-*.png).
 */
import assert from "node:assert/strict";
import { browserTest, submit } from "./helpers.ts";
import type { TestServer } from "../helpers/server.ts";

const PASSWORD = "amber-orchid-falcon-2931";

/** curl creates a folder with the app password: the HTTP status it got. */
async function curlCreateFolder(server: TestServer, appPassword: string): Promise<number> {
  const { stdout, success } = await new Deno.Command("curl", {
    args: [
      "--silent",
      "--output",
      "/dev/null",
      "--write-out",
      "%{http_code}",
      "--request",
      "POST",
      "--header",
      `Authorization: Bearer ${appPassword}`,
      "--header",
      "Content-Type: application/json",
      "--data",
      JSON.stringify({ fn: `from-curl-${crypto.randomUUID().slice(0, 8)}` }),
      `${server.url}/api/external/v1/folders`,
    ],
    stdout: "piped",
  }).output();
  assert.ok(success, "curl ran");
  return Number(new TextDecoder().decode(stdout));
}

browserTest(
  "app: invitation → password → sign in → app password works with curl → revoked → 401",
  async ({ page, server, screenshot }) => {
    const tenant = await server.admin.createTenant("Acme");
    const user = await server.admin.createUser(tenant.id, "dana", { name: "Dana Acme" });
    const invite = await server.admin.call("POST", `/users/${user.userSeq}/invitations`, {
      kind: "invitation",
    });
    assert.equal(invite.status, 201, JSON.stringify(invite.body));
    assert.match(invite.body.url, /\/#\/invitation\//);

    // Not signed in, `/` shows the sign-in page (with the way to the API docs and console).
    await page.goto(`${server.url}/`);
    await page.getByRole("heading", { level: 1, name: "Sign in to Drive" }).waitFor();
    await page.getByRole("link", { name: "API reference" }).first().waitFor();
    await page.getByRole("link", { name: "Admin console" }).waitFor();

    // The invitation: whose account it is, then a password the policy takes.
    await page.goto(invite.body.url);
    await page.getByRole("heading", { level: 1, name: "Welcome to Drive" }).waitFor();
    await page.getByText("Dana Acme").waitFor();
    const setForm = page.getByRole("form", { name: "Set your password" });
    const setPassword = (password: string) =>
      submit(
        setForm,
        { "New password": password, "Repeat the password": password },
        "Set password and sign in",
      );
    await setPassword("short");
    await setForm.getByText("Use at least 12 characters.").waitFor();
    await screenshot("app-invitation");
    await setPassword(PASSWORD);
    await page.getByRole("heading", { level: 1, name: "My account" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/account");
    assert.equal(new URL(page.url()).hash, "", "the token left the address bar");

    // Sign out, then in with the new password.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Sign in to Drive" }).waitFor();
    const signIn = page.getByRole("form", { name: "Sign in with a password" });
    const signInAs = (password: string) =>
      submit(signIn, { "Account id or e-mail": "dana", "Password": password }, "Sign in");
    await signInAs("not the password at all");
    await signIn.getByText("Wrong account or password").waitFor();
    await screenshot("app-signin-refused");
    await signInAs(PASSWORD);
    await page.getByRole("heading", { level: 1, name: "My drive" }).waitFor();
    await page.getByText("Dana Acme", { exact: true }).waitFor();
    await screenshot("app-home");
    await page.getByRole("navigation", { name: "App sections" })
      .getByRole("link", { name: "My account" }).click();
    await page.getByRole("heading", { level: 1, name: "My account" }).waitFor();
    // This browser's session is listed as such.
    await page.getByText("this browser").waitFor();

    // An app password, shown once.
    const create = page.getByRole("form", { name: "Create an app password" });
    await create.getByLabel("Label").fill("curl on my laptop");
    await create.getByLabel("Access").selectOption("read-write");
    await create.getByRole("button", { name: "Create app password" }).click();
    const secret = page.locator("#secret-value");
    await secret.waitFor();
    const appPassword = await secret.inputValue();
    assert.match(appPassword, /^drv_/);
    await page.getByRole("cell", { name: "curl on my laptop", exact: true }).waitFor();
    await screenshot("app-account-app-password");

    assert.equal(await curlCreateFolder(server, appPassword), 201);

    await page.getByRole("button", { name: "I have stored it, hide it" }).click();
    assert.equal(await secret.count(), 0, "hidden for good");
    await page.getByRole("button", { name: "Revoke curl on my laptop" }).click();
    await page.getByText("App password “curl on my laptop” revoked.").waitFor();
    await page.getByText(/^Revoked /).waitFor();
    await screenshot("app-account-revoked");

    assert.equal(await curlCreateFolder(server, appPassword), 401);
  },
);

browserTest(
  "app: a narrow screen shows the sign-in page without sideways scrolling",
  async ({ page, server, screenshot }) => {
    await page.goto(`${server.url}/signin`);
    await page.getByRole("heading", { level: 1, name: "Sign in to Drive" }).waitFor();
    await screenshot("app-signin-narrow");
    const wide = await page.evaluate(() =>
      document.documentElement.scrollWidth > globalThis.innerWidth
    );
    assert.equal(wide, false);
  },
  { viewport: { width: 360, height: 740 } },
);
