/**
 * The console's users, keys and links lists paged and searched by the server (GET /admin/api/...
 * with q, limit and cursor) in headless Chromium: Next and Previous walk the pages the server
 * hands out, each user on exactly one page; the search box asks the server (a prefix of the
 * account id, e-mail or a word of the name), and a search pages too.
 */
import assert from "node:assert/strict";
import { browserTest, openSection, signIn } from "./helpers.ts";
import type { Page } from "./playwright.ts";
import { PAGE_SIZE } from "../../ui/admin/components/table.tsx";
import { newApiUser, shareFlags } from "../helpers/api.ts";

/** The account ids in the users table, in order. */
async function listedAccounts(page: Page): Promise<string[]> {
  return (await page.locator("tbody tr td:first-child strong").allTextContents())
    .map((t) => t.trim());
}

/** Waits until the table shows a page starting with `first` and returns its account ids. */
async function pageStartingWith(page: Page, first: string): Promise<string[]> {
  await page.locator("tbody tr").first().locator("strong", { hasText: new RegExp(`^${first}$`) })
    .waitFor();
  return await listedAccounts(page);
}

browserTest(
  "console: the users list is paged and searched by the server",
  async ({ page, server }) => {
    const acme = await server.admin.createTenant("Acme");
    const total = PAGE_SIZE * 2 + 5;
    const names = Array.from({ length: total }, (_, i) => `user${String(i).padStart(2, "0")}`);
    for (const [i, id] of names.entries()) {
      await server.admin.createUser(acme.id, id, { name: i % 10 === 7 ? `Seven ${id}` : id });
    }
    const pagesAsked: string[] = [];
    page.on("request", (req) => {
      const url = new URL(req.url());
      if (url.pathname === "/admin/api/users") pagesAsked.push(url.search);
    });
    await signIn(page, server);
    await openSection(page, "Users");

    const pager = page.getByRole("navigation", { name: "Pages of users" });
    const seen: string[] = [];
    seen.push(...await pageStartingWith(page, "user00"));
    await pager.getByText("Page 1").waitFor();
    assert.equal(seen.length, PAGE_SIZE);
    await pager.getByRole("button", { name: "Next" }).click();
    seen.push(...await pageStartingWith(page, names[PAGE_SIZE]));
    await pager.getByText("Page 2").waitFor();
    await pager.getByRole("button", { name: "Next" }).click();
    seen.push(...await pageStartingWith(page, names[PAGE_SIZE * 2]));
    await pager.getByText("Page 3").waitFor();
    assert.equal(await pager.getByRole("button", { name: "Next" }).isDisabled(), true, "last page");
    assert.deepEqual(seen, names, "every user once, in order, over three pages");
    assert.ok(
      pagesAsked.some((q) => q.includes("cursor=") && q.includes(`limit=${PAGE_SIZE}`)),
      `the console asks the server for pages: ${pagesAsked}`,
    );
    await pager.getByRole("button", { name: "Previous" }).click();
    assert.deepEqual(await pageStartingWith(page, names[PAGE_SIZE]), names.slice(PAGE_SIZE, 40));

    // A search by a word of the display name: "seven" finds user07, user17, user27, user37.
    await page.getByLabel("Search users").fill("SEVEN");
    assert.deepEqual(
      await pageStartingWith(page, "user07"),
      names.filter((_, i) => i % 10 === 7),
    );
    assert.equal(await pager.count(), 0, "one page of results has no pager");
    assert.ok(pagesAsked.some((q) => q.includes("q=SEVEN")), "the server searched");

    // By account id prefix, across pages of the search: 20 of user0x..user1x, then the rest.
    await page.getByLabel("Search users").fill("user");
    await pageStartingWith(page, "user00");
    await pager.getByText("Page 1").waitFor();
    await page.getByLabel("Search users").fill("user4");
    assert.deepEqual(await pageStartingWith(page, "user40"), names.slice(40));
    await page.getByLabel("Search users").fill("nobody");
    await page.getByText("Nothing matches “nobody”.").waitFor();
  },
);

browserTest("console: keys and links are searched by the server", async ({ page, server }) => {
  const acme = await server.admin.createTenant("Acme");
  const ana = await newApiUser(server, "ana", { tenantId: acme.id });
  const ben = await newApiUser(server, "ben", { tenantId: acme.id });
  await server.admin.createKey(ben.userSeq);
  const report = await ana.newFile("Quarterly report.pdf", "x");
  await ana.newShare({ rs: report, st: "PUBLIC_LINK", ...shareFlags() });
  const photo = await ben.newFile("photo.jpg", "y");
  await ben.newShare({ rs: photo, st: "PUBLIC_LINK", ...shareFlags() });
  await signIn(page, server);

  await openSection(page, "API keys");
  await page.locator("tbody tr").nth(2).waitFor();
  await page.getByLabel("Search keys").fill("ben");
  await page.locator("tbody tr").nth(2).waitFor({ state: "detached" });
  const users = await page.locator("tbody tr td[data-label='User']").allTextContents();
  assert.deepEqual(users, ["ben", "ben"]);

  await openSection(page, "Share links");
  await page.getByRole("cell", { name: /^photo\.jpg/ }).waitFor();
  await page.getByLabel("Search links").fill("report");
  await page.getByRole("cell", { name: /^photo\.jpg/ }).waitFor({ state: "detached" });
  await page.getByRole("cell", { name: /^Quarterly report\.pdf/ }).waitFor();
  await page.getByLabel("Search links").fill("ben");
  await page.getByRole("cell", { name: /^photo\.jpg/ }).waitFor();
  assert.equal(await page.locator("tbody tr").count(), 1, "by owner: only ben's link");
});
