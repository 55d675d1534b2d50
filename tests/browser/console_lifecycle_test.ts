/**
 * The console's lifecycle and list fixes in headless Chromium: disabling, enabling and deleting
 * users and tenants (and what that does to their API keys), search and paging of the users
 * list, "Active links" without expired links, a stale success cleared by a new error with field
 * names in words, and the adapter secret described as sealed, not hashed.
 */
import assert from "node:assert/strict";
import { browserTest, openSection, signIn } from "./helpers.ts";
import { newApiUser, shareFlags } from "../helpers/api.ts";
import { until } from "../helpers/wait.ts";
import { PAGE_SIZE } from "../../ui/admin/components/table.tsx";

async function keyWorks(url: string, apiKey: string): Promise<boolean> {
  const res = await fetch(`${url}/api/external/v1/resources?ps=1`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
  await res.body?.cancel();
  return res.status === 200;
}

browserTest("console: disable, enable and delete a user and a tenant", async ({ page, server }) => {
  const acme = await server.admin.createTenant("Acme");
  const ana = await newApiUser(server, "ana", { tenantId: acme.id });
  await ana.newFile("a.txt", "abc");
  const gone = await server.admin.createTenant("Gone Inc");
  await server.admin.createUser(gone.id, "gus");
  await signIn(page, server);

  await openSection(page, "Users");
  await page.getByRole("button", { name: "Disable user ana" }).click();
  await page.getByRole("button", { name: "Enable user ana" }).waitFor();
  assert.equal(await keyWorks(server.url, ana.apiKey), false, "a disabled user's key stops");
  await page.getByRole("button", { name: "Enable user ana" }).click();
  await page.getByRole("button", { name: "Disable user ana" }).waitFor();
  assert.equal(await keyWorks(server.url, ana.apiKey), true);

  await page.getByRole("button", { name: "Delete user ana" }).click();
  await page.getByRole("button", { name: "Delete user ana" }).filter({ hasText: "Delete user" })
    .click();
  await page.getByRole("cell", { name: /^ana ana/ }).waitFor({ state: "detached" });
  assert.equal((await server.admin.call("GET", `/users/${ana.userSeq}`)).status, 404);

  await openSection(page, "Tenants");
  await page.getByRole("button", { name: "Disable tenant Gone Inc" }).click();
  await page.getByRole("button", { name: "Enable tenant Gone Inc" }).waitFor();
  await page.getByRole("button", { name: "Delete tenant Gone Inc" }).click();
  await page.getByText("Delete tenant Gone Inc for good?").waitFor();
  await page.getByRole("button", { name: "Delete tenant Gone Inc" })
    .filter({ hasText: "Delete tenant" }).click();
  await page.getByRole("cell", { name: "Gone Inc disabled" }).waitFor({ state: "detached" });
  assert.equal((await server.admin.call("GET", `/tenants/${gone.id}`)).status, 404);
});

browserTest(
  "console: users are searched and paged; expired links are not active",
  async ({ page, server }) => {
    const tenant = await server.admin.createTenant("Acme");
    for (let i = 0; i < PAGE_SIZE + 3; i++) {
      await server.admin.createUser(tenant.id, `user${String(i).padStart(2, "0")}`);
    }
    const owner = await newApiUser(server, "owner", { tenantId: tenant.id });
    const live = await owner.newFolder("Live");
    const old = await owner.newFolder("Old");
    await owner.newShare({ rs: live, st: "PUBLIC_LINK", ...shareFlags() });
    const expiring = await owner.newShare({
      rs: old,
      st: "PUBLIC_LINK",
      ...shareFlags(),
      expireDate: new Date(Date.now() + 1500).toISOString(),
    });
    assert.ok(expiring.linkUrl);
    await signIn(page, server);

    await openSection(page, "Users");
    const pager = page.getByRole("navigation", { name: "Pages of users" });
    // The server pages the list (tests/browser/console_paging_test.ts tries it in depth).
    await pager.getByText("Page 1").waitFor();
    await pager.getByRole("button", { name: "Next" }).click();
    await pager.getByText("Page 2").waitFor();
    await page.getByLabel("Search users").fill("user07");
    await page.getByRole("cell", { name: /^user07 user07/ }).waitFor();
    assert.equal(await page.locator("tbody tr").count(), 1);
    assert.equal(await pager.count(), 0, "one page of results has no pager");

    // Wait until the second link has expired, then open the page: only the live one is listed.
    await new Promise((r) => setTimeout(r, 1600));
    await openSection(page, "Share links");
    await page.getByRole("cell", { name: /^Live/ }).waitFor();
    assert.equal(await page.getByRole("cell", { name: /^Old/ }).count(), 0);
  },
);

browserTest(
  "console: a new error clears the old success; messages name fields in words",
  async ({ page, server }) => {
    await server.admin.createTenant("Acme");
    await signIn(page, server);
    await openSection(page, "Users");
    const form = page.getByRole("form", { name: "Create a user" });
    const fill = async (accountId: string, email: string) => {
      await form.getByLabel("Tenant").selectOption({ label: "Acme (id 1)" });
      await form.getByLabel("Account id").fill(accountId);
      await form.getByLabel("E-mail").fill(email);
      await form.getByLabel("Display name").fill(accountId);
      await form.getByRole("button", { name: "Create user" }).click();
    };
    await fill("ana", "ana@example.com");
    const status = form.locator("p.status");
    await status.filter({ hasText: "User “ana” created" }).waitFor();
    // The form empties itself after a success; refilling before that lands would be undone.
    await until(
      "the form to reset",
      async () => (await form.getByLabel("Account id").inputValue()) === "",
    );
    // The same account id again: the server refuses; the green message must be gone.
    await fill("ana", "other@example.com");
    const error = form.getByText(/already taken/);
    await error.waitFor();
    assert.equal((await status.textContent())?.trim(), "");
    const message = await error.textContent();
    assert.ok(!/accountId/.test(message ?? ""), `raw field name in "${message}"`);
    assert.match(message ?? "", /Account id/);

    // The adapter secret is sealed, not hashed; an API key is hashed.
    const ana = (await server.admin.call("GET", "/users")).body.items[0];
    await openSection(page, "Adapters");
    const register = page.getByRole("form", { name: "Register an adapter" });
    await register.getByLabel("Adapter name").fill("office-host");
    await register.getByLabel("User (whose drive it serves)").selectOption({
      label: `ana (seq ${ana.userSeq})`,
    });
    await register.getByRole("button", { name: "Register adapter" }).click();
    const warning = page.locator(".secret .warning");
    await warning.waitFor();
    const text = await warning.textContent() ?? "";
    assert.match(text, /sealed/);
    assert.ok(!/hash/.test(text), `the adapter secret panel says "${text}"`);
  },
);
