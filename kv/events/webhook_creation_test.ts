/**
 * Creating a webhook looks its name up once: a name that resolves inward now (wildcard DNS such
 * as *.nip.io) is refused where the mistake is made; a name that does not resolve yet is left to
 * the attempts, which vet every connection (webhook_target.ts).
 */
import assert from "node:assert/strict";
import { assertFails, domainTest } from "../testing.ts";
import { createWebhook } from "./webhooks.ts";
import type { Resolver } from "./webhook_target.ts";

const answering = (addresses: Record<string, string[]>): Resolver => (host) =>
  host in addresses
    ? Promise.resolve(addresses[host])
    : Promise.reject(Object.assign(new Error(`${host}: not found`), { code: "ENOTFOUND" }));

const resolver = answering({
  "127.0.0.1.nip.io": ["127.0.0.1"],
  "10-0-0-5.sslip.io": ["10.0.0.5"],
  "mixed.example": ["93.184.215.14", "192.168.1.10"],
  "hooks.example": ["93.184.215.14"],
});

domainTest(
  "a webhook whose name resolves inward is refused at creation (WEBHOOK_003)",
  async (d) => {
    for (const host of ["127.0.0.1.nip.io", "10-0-0-5.sslip.io", "mixed.example"]) {
      await assertFails(
        createWebhook(d, { url: `https://${host}/hook`, events: ["*"] }, resolver),
        "WEBHOOK_003",
        "url",
      );
    }
  },
);

domainTest(
  "a public name, or one that does not resolve yet, is accepted at creation",
  async (d) => {
    for (const host of ["hooks.example", "not-yet.example"]) {
      const { webhook } = await createWebhook(
        d,
        { url: `https://${host}/hook`, events: ["*"] },
        resolver,
      );
      assert.equal(webhook.url, `https://${host}/hook`);
    }
  },
);
