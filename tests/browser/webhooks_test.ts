/**
 * The console's Webhooks page in Chromium: create one and see its signing secret once (a
 * delivery verifies with it), deliveries with their status codes, an endpoint that kept failing
 * shown as disabled, enable and retry, disable, and the narrow layout.
 */
import assert from "node:assert/strict";
import { browserTest, openSection, overflowsHorizontally, signIn } from "./helpers.ts";
import { newApiUser } from "../helpers/api.ts";
import { Receiver, verified } from "../events/webhook_receiver.ts";

const ENV = {
  DRIVE_WEBHOOK_ALLOW_PRIVATE: "true",
  DRIVE_WEBHOOK_RETRY_BASE_MS: "100",
  DRIVE_WEBHOOK_RETRY_WINDOW_S: "1",
};

browserTest(
  "console: webhooks are created, delivered, shown failing, enabled and retried",
  async ({ page, server, screenshot }) => {
    const receiver = new Receiver();
    try {
      const ana = await newApiUser(server, "ana");
      await signIn(page, server);
      await openSection(page, "Webhooks");
      await page.getByText("No webhooks yet.").waitFor();

      // Create: the secret is shown once, and it is the one deliveries are signed with.
      await page.getByLabel("Receiver URL").fill(`${receiver.url}/ok`);
      await page.getByRole("button", { name: "Create webhook" }).click();
      const secretBox = page.getByLabel("Webhook signing secret");
      await secretBox.waitFor();
      const secret = await secretBox.inputValue();
      assert.match(secret, /^whsec_/);
      await screenshot("console-webhook-secret");
      await page.getByRole("button", { name: "I have stored it, hide it" }).click();
      assert.equal(await secretBox.count(), 0);
      const card = page.locator("li[data-webhook]", { hasText: `${receiver.url}/ok` });
      await card.getByText("enabled").waitFor();

      await ana.newFolder("Reports");
      const [got] = await receiver.waitFor("/ok", (g) => g.some((r) => r.json?.type === "created"));
      verified(got, secret);
      await card.getByRole("button", { name: `Deliveries of ${receiver.url}/ok` }).click();
      // The open list looks again by itself while a delivery is pending.
      const row = card.locator("tbody tr", { hasText: "created" }).first();
      await row.locator('td[data-label="Status"]', { hasText: "delivered" }).waitFor();
      assert.match(await row.locator('td[data-label="Last answer"]').innerText(), /^200/);

      // A receiver that answers 500 for its whole retry window: the console shows it disabled.
      receiver.script("/down", [], 500);
      const down = await server.admin.call("POST", "/webhooks", {
        url: `${receiver.url}/down`,
        events: ["created"],
      });
      assert.equal(down.status, 201);
      await ana.newFolder("Budget");
      for (let i = 0; i < 300; i++) {
        const w = await server.admin.call("GET", `/webhooks/${down.body.id}`);
        if (w.body.disabledAt) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await page.getByRole("button", { name: "Refresh" }).first().click();
      const downCard = page.locator("li[data-webhook]", { hasText: `${receiver.url}/down` });
      await downCard.getByText("disabled: kept failing").waitFor();
      await downCard.getByText("every attempt failed for a whole retry window").waitFor();
      await downCard.getByRole("button", { name: `Deliveries of ${receiver.url}/down` }).click();
      const failedRow = downCard.locator("tbody tr", { hasText: "failed" }).first();
      await failedRow.waitFor();
      assert.match(await failedRow.innerText(), /500/);
      assert.equal(await failedRow.getByRole("button", { name: /Retry/ }).isDisabled(), true);
      await screenshot("console-webhook-failing");

      // Fixed and enabled again: retrying the failed delivery sends it.
      receiver.script("/down", [], 200);
      await downCard.getByRole("button", { name: `Enable ${receiver.url}/down` }).click();
      await downCard.getByText("enabled").waitFor();
      const before = receiver.at("/down").length;
      // The deliveries stay open; their Retry buttons are enabled with the webhook.
      await downCard.locator("tbody tr", { hasText: "failed" }).first()
        .getByRole("button", { name: /Retry/ }).click();
      await receiver.waitFor("/down", (g) => g.slice(before).some((r) => r.headers["webhook-id"]));
      await page.setViewportSize({ width: 390, height: 800 });
      assert.equal(await overflowsHorizontally(page), false);
      await page.setViewportSize({ width: 1280, height: 860 });

      await card.getByRole("button", { name: `Disable ${receiver.url}/ok` }).click();
      await card.getByText("disabled", { exact: true }).waitFor();
    } finally {
      await receiver.close();
    }
  },
  { env: ENV },
);
