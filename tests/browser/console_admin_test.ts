/**
 * The admin console's pages in headless Chromium, beyond sign-in and identities
 * (console_test.ts): share links, locks, the storage check and sweep, policy and quota, the
 * connection test, a duplicate tenant name refused beside its field, and a webhook delivery's
 * attempts.
 */
import assert from "node:assert/strict";
import { browserTest, openSection, signIn } from "./helpers.ts";
import { acquireLock } from "../../kv/tree/locks.ts";
import { getResource } from "../../kv/tree/resources.ts";
import type { TestServer } from "../helpers/server.ts";
import { newApiUser, shareFlags, uploadAs } from "../helpers/api.ts";
import { newProviderAdapter } from "../helpers/provider.ts";

async function exists(server: TestServer, blobId: string): Promise<boolean> {
  for await (const blob of server.blobs.list()) if (blob.blobId === blobId) return true;
  return false;
}

/** Waits (bounded) until the newest admin action of the activity log is `action`. */
async function newestAdminAction(server: TestServer, action: string): Promise<void> {
  let newest: string | undefined;
  for (let i = 0; i < 100; i++) {
    const res = await server.admin.call("GET", "/activity?kind=admin_action");
    newest = res.body.items[0]?.detail.action;
    if (newest === action) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`the newest admin action is ${newest}, not ${action}`);
}

browserTest(
  "console: share links listed and revoked; the link then stops opening",
  async ({ page, server, screenshot }) => {
    const ana = await newApiUser(server, "ana");
    const rs = await uploadAs(server, ana, "plan.txt", "plan");
    const share = await ana.newShare({ rs, st: "PUBLIC_LINK", ...shareFlags("cd") });
    await signIn(page, server);
    await openSection(page, "Share links");
    await page.locator('td[data-label="Resource"]', { hasText: "plan.txt" }).waitFor();
    await page.getByRole("link", { name: share.linkUrl }).waitFor();
    await screenshot("console-share-links");
    await page.getByRole("button", { name: "Revoke the link to plan.txt" }).click();
    await page.getByRole("button", { name: "Revoke link", exact: true }).click();
    await page.getByText("No active share links.").waitFor();

    await page.goto(share.linkUrl);
    await page.getByRole("heading", { name: "Link not available" }).waitFor();
    await screenshot("share-revoked");
  },
);

browserTest(
  "console: document locks listed and force-released",
  async ({ page, server, screenshot }) => {
    const ana = await newApiUser(server, "ana");
    const rs = await uploadAs(server, ana, "contract.docx", "words");
    await acquireLock(server.kv, {
      rs,
      owner: "provider:office-host:editor-7",
      source: "provider",
      holder: "office-host",
      ttlMs: null,
    });
    await signIn(page, server);
    await openSection(page, "Locks");
    await page.locator('td[data-label="Document"]', { hasText: "contract.docx" }).waitFor();
    await page.locator('td[data-label="Held by"]', { hasText: "office-host" }).waitFor();
    await screenshot("console-locks");
    await page.getByRole("button", { name: "Force-release the lock on contract.docx" }).click();
    await page.getByRole("button", { name: "Release lock", exact: true }).click();
    await page.getByText("No document is locked.").waitFor();
    assert.deepEqual((await server.admin.call("GET", "/locks")).body.items, []);
  },
);

browserTest(
  "console: unused stored bytes are counted, then removed on confirmation",
  async ({ page, server, screenshot }) => {
    const ana = await newApiUser(server, "ana");
    const rs = await uploadAs(server, ana, "kept.txt", "kept bytes");
    const kept = (await getResource(server.kv, rs))!.blobId!;
    // Bytes stored two days ago that no file points at: what a crash before the commit leaves.
    const stray = (await server.blobs.write(new Blob(["x".repeat(3000)]).stream())).blobId;
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    for (const blobId of [kept, stray]) {
      await Deno.utime(
        `${server.config.dataDir}/blobs/${blobId.slice(0, 2)}/${blobId}`,
        twoDaysAgo,
        twoDaysAgo,
      );
    }
    await signIn(page, server);
    await openSection(page, "Storage");
    await page.getByRole("button", { name: "Check", exact: true }).click();
    const facts = page.getByLabel("Check result");
    await facts.getByText("1 blob, 2.9 KiB").waitFor();
    await screenshot("console-storage");
    assert.ok(await exists(server, stray), "checking removes nothing");
    // The check is logged as a check, not as a sweep (issue 21, bug 6).
    await newestAdminAction(server, "blobs_checked");
    await page.getByRole("button", { name: "Remove unused" }).click();
    await page.getByRole("button", { name: "Remove", exact: true }).click();
    await page.getByRole("status").filter({
      hasText: "Removed 1 unused blob (2.9 KiB) and cleared 0 unfinished writes.",
    }).waitFor();
    assert.equal(await exists(server, stray), false);
    assert.ok(await exists(server, kept));
    await newestAdminAction(server, "blobs_swept");
    await page.getByRole("button", { name: "Check", exact: true }).click();
    await page.getByText("Nothing to remove.").waitFor();
  },
);

browserTest(
  "console: a tenant's share policy and a user's quota are edited",
  async ({ page, server, screenshot }) => {
    const tenant = await server.admin.createTenant("Acme");
    const user = await server.admin.createUser(tenant.id, "ana");
    const rs = await uploadAs(
      server,
      await newApiUser(server, "bob", { tenantId: tenant.id }),
      "a",
      "12345",
    );
    assert.ok(rs > 0);
    await signIn(page, server);

    await page.getByRole("button", { name: "Edit tenant Acme" }).click();
    const editor = page.getByRole("form", { name: "Edit tenant Acme" });
    await editor.getByRole("switch", { name: "Public link allowed" }).uncheck();
    // Organization links may not grant more than View (and Download).
    const orgGroup = editor.getByRole("group", {
      name: "Organization link: the most it may grant",
    });
    await orgGroup.getByLabel("View").uncheck();
    await editor.getByRole("button", { name: "Save tenant" }).click();
    await editor.getByText("every other permission needs View").waitFor();
    await orgGroup.getByLabel("View").check();
    await orgGroup.getByLabel("Edit and upload").uncheck();
    await editor.getByRole("button", { name: "Save tenant" }).click();
    await editor.getByText(/^Saved at/).waitFor();
    await screenshot("console-tenant-policy");
    const saved = (await server.admin.call("GET", `/tenants/${tenant.id}`)).body;
    assert.equal(saved.sharePolicy.PUBLIC_LINK.allowed, false);
    assert.deepEqual(saved.sharePolicy.ORG_LINK.maxPermissions, ["VIEW", "DOWNLOAD"]);

    await openSection(page, "Users");
    await page.getByRole("meter", { name: "Storage used by bob" }).waitFor();
    await page.getByRole("button", { name: "Edit user ana" }).click();
    const userForm = page.getByRole("form", { name: "Edit user ana" });
    await userForm.getByLabel("Quota", { exact: true }).fill("-3");
    await userForm.getByRole("button", { name: "Save user" }).click();
    await userForm.getByText("Enter the quota as a non-negative number").waitFor();
    await userForm.getByLabel("Quota", { exact: true }).fill("2.5");
    await userForm.getByLabel("Unit").selectOption("GiB");
    await userForm.getByRole("button", { name: "Save user" }).click();
    await userForm.getByText(/^Saved at/).waitFor();
    const updated = (await server.admin.call("GET", `/users/${user.userSeq}`)).body;
    assert.equal(updated.quotaBytes, 2.5 * 1024 ** 3);
    await page.getByText("0 bytes of 2.5 GiB").waitFor();
    await screenshot("console-users-quota");
  },
);

browserTest(
  "console: a failing connection test shows progress, then each problem",
  async ({ page, server, screenshot }) => {
    await newProviderAdapter(server, "broken-host");
    // A "provider" that answers only when the test lets it, and then with a malformed body.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const fake = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async () => {
      await released;
      return new Response("this is not json", { headers: { "content-type": "application/json" } });
    });
    try {
      await signIn(page, server);
      await openSection(page, "Adapters");
      await page.getByRole("button", { name: "Connection test of broken-host" }).click();
      const baseUrl = page.getByLabel("Base URL (optional)");
      await baseUrl.fill("ftp://example.com");
      await page.getByRole("button", { name: "Run connection test" }).click();
      await page.getByText("Use an http:// or https:// URL.").waitFor();
      await baseUrl.fill(`http://127.0.0.1:${fake.addr.port}`);
      await page.getByRole("button", { name: "Run connection test" }).click();
      await page.getByText("Signing a list request and checking the answer").waitFor();
      assert.equal(await page.getByRole("button", { name: "Testing…" }).isDisabled(), true);
      await screenshot("console-test-running");
      release();
      const result = page.getByRole("region", { name: "Connection test result" });
      await result.getByText("Failed").waitFor();
      const problems = await result.getByRole("listitem").allInnerTexts();
      assert.ok(problems.length >= 1);
      for (const p of problems) assert.match(p, /[a-z]{3,} [a-z]{2,}/i, "a problem in words");
      await screenshot("console-test-failed");
    } finally {
      release();
      await fake.shutdown();
    }
  },
);

browserTest(
  "console: a duplicate tenant name is refused beside the name field",
  async ({ page, server }) => {
    await server.admin.createTenant("Acme");
    await signIn(page, server);
    const form = page.getByRole("form", { name: "Create a tenant" });
    const name = form.getByLabel("Tenant name");
    await name.fill("ACME");
    await form.getByRole("button", { name: "Create tenant" }).click();
    await form.getByText('A tenant named "ACME" exists already').waitFor();
    assert.equal(await name.getAttribute("aria-invalid"), "true");
    const tenants = await server.admin.call("GET", "/tenants");
    assert.deepEqual(tenants.body.items.map((t: { name: string }) => t.name), ["Acme"]);
  },
);

browserTest(
  "console: a webhook's URL error names the field; a delivery's attempts expand",
  async ({ page, server, screenshot }) => {
    const answers = [
      () => new Response("busy, try later", { status: 503 }),
      () => new Response("thanks", { status: 200 }),
    ];
    const receiver = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => (answers.shift() ?? (() => new Response("ok")))(),
    );
    try {
      await signIn(page, server);
      await openSection(page, "Webhooks");
      // The server refuses a URL with a fragment: the message names the field as the form does.
      await page.getByLabel("Receiver URL").fill("https://hooks.example.com/drive#part");
      await page.getByRole("button", { name: "Create webhook" }).click();
      await page.getByText("Receiver URL: must not have a #fragment").waitFor();

      // A delivery answered 503, then 200.
      const url = `http://127.0.0.1:${receiver.addr.port}/hook`;
      const hook = await server.admin.call("POST", "/webhooks", { url, events: ["created"] });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      await page.reload();
      await page.getByRole("button", { name: `Deliveries of ${url}` }).waitFor();
      const sent = await server.admin.call("POST", `/webhooks/${hook.body.id}/test`);
      assert.equal(sent.status, 202);
      await page.getByRole("button", { name: `Deliveries of ${url}` }).click();
      const row = page.locator("tbody tr", { hasText: "webhook.test" }).first();
      await row.locator('td[data-label="Status"]', { hasText: "delivered" }).waitFor();
      await row.locator('td[data-label="Attempts"] summary').click();
      const attempts = row.getByRole("list", { name: /^Attempts of delivery/ });
      const items = attempts.getByRole("listitem");
      await items.nth(1).waitFor();
      assert.equal(await items.count(), 2);
      assert.match(await items.nth(0).innerText(), /200[\s\S]*thanks/);
      assert.match(await items.nth(1).innerText(), /503[\s\S]*next try[\s\S]*busy, try later/);
      await screenshot("console-webhook-attempts");
    } finally {
      await receiver.shutdown();
    }
  },
  {
    env: {
      DRIVE_WEBHOOK_ALLOW_PRIVATE: "true",
      DRIVE_WEBHOOK_RETRY_BASE_MS: "100",
      DRIVE_WEBHOOK_RETRY_WINDOW_S: "5",
    },
  },
);
