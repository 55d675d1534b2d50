/**
 * The console's sign-in controls in headless Chromium: creating a user makes an invitation link
 * at once (shown once, with a copy button), "Make admin" grants the role, and that user then
 * signs in to the console by name (account and password, no token), makes a reset link, and is
 * named in the activity log.
 */
import assert from "node:assert/strict";
import { browserTest, openSection, signIn } from "./helpers.ts";
import { Browser, GOOD_PASSWORD, tokenOf } from "../helpers/browser_session.ts";

browserTest(
  "console: invitation at user creation, admin role, sign-in by name",
  async ({ page, server }) => {
    await server.admin.createTenant("Acme");
    const bob = await server.admin.createUser(1, "bob");
    await signIn(page, server);
    await openSection(page, "Users");

    const create = page.getByRole("form", { name: "Create a user" });
    await create.getByLabel("Account id").fill("ada");
    await create.getByLabel("E-mail").fill("ada@example.com");
    await create.getByLabel("Display name").fill("Ada Admin");
    await create.getByRole("button", { name: "Create user" }).click();
    const link = await page.getByLabel("One-time link", { exact: true }).inputValue();
    assert.ok(link.startsWith(`${server.url}/#/invitation/`), link);
    await page.getByRole("button", { name: "Copy" }).waitFor();
    await page.getByRole("button", { name: "I have stored it, hide it" }).click();

    // Ada opens the link (the app shell's call) and sets her password.
    const accepted = await new Browser(server.url).account("POST", "/invitations/accept", {
      token: tokenOf(link),
      password: GOOD_PASSWORD,
    });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));

    await page.getByRole("button", { name: "Make admin ada" }).click();
    await page.getByRole("button", { name: "Remove the admin role of ada" }).waitFor();

    // Ada signs in to the console with her account.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Account id or e-mail").fill("ada");
    await page.getByLabel("Password").fill(GOOD_PASSWORD);
    await page.getByRole("form", { name: "Sign in with your account" })
      .getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Signed in as ada").waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem("drive.adminToken")), null);

    // A reload keeps her signed in (the cookie), and she can make a reset link for bob.
    await page.reload();
    await page.getByText("Signed in as ada").waitFor();
    await openSection(page, "Users");
    await page.getByRole("button", { name: "Password-reset link for bob" }).click();
    const reset = await page.getByLabel("One-time link", { exact: true }).inputValue();
    assert.ok(reset.startsWith(`${server.url}/#/reset/`), reset);

    await server.deps.events.sequenceNow();
    const log = await server.admin.call("GET", `/activity?kind=account&userSeq=${bob.userSeq}`);
    const made = log.body.items.find((e: { detail: { action: string } }) =>
      e.detail.action === "invitation_created"
    );
    assert.ok(made, JSON.stringify(log.body));

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin token").waitFor();
    assert.equal((await new Browser(server.url).account("GET", "/me")).status, 401);
  },
);
