/**
 * The rules of webhooks without HTTP: the outbound rules (webhook_target.ts), the retry schedule
 * (webhook_delivery.ts) and which events a webhook wants (webhooks.ts).
 */
import assert from "node:assert/strict";
import type { DriveEvent } from "./log.ts";
import { checkWebhookUrl, isPublicAddress, reachProblem } from "./webhook_target.ts";
import { MAX_RETRY_DELAY_MS, retryDelay } from "./webhook_delivery.ts";
import { wantsEvent, type Webhook } from "./webhooks.ts";

Deno.test("only public unicast addresses are public", () => {
  for (const ip of ["8.8.8.8", "1.1.1.1", "2001:4860:4860::8888"]) {
    assert.equal(isPublicAddress(ip), true, ip);
  }
  const inner = [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "fe80::1",
    "fd00::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "64:ff9b::7f00:1",
    "2002:7f00:1::",
    "not an ip",
  ];
  for (const ip of inner) assert.equal(isPublicAddress(ip), false, ip);
});

Deno.test("webhook URLs: http(s), no credentials or fragment, public unless allowed", () => {
  assert.deepEqual(checkWebhookUrl("https://hooks.example.com/a?b=1", false), {
    url: "https://hooks.example.com/a?b=1",
  });
  const refused: [string, RegExp][] = [
    ["ftp://example.com/", /http or https/],
    ["file:///etc/passwd", /http or https/],
    ["https://user:pw@example.com/", /password/],
    ["https://example.com/#x", /fragment/],
    ["/relative", /absolute/],
    ["http://127.0.0.1:8080/", /not a public address/],
    // The URL parser normalizes other spellings of loopback first.
    ["http://2130706433/", /not a public address/],
    ["http://0x7f.1/", /not a public address/],
    ["http://[::1]/", /not a public address/],
    ["http://localhost:3000/", /not a public address/],
    ["http://api.localhost/", /not a public address/],
    [`https://example.com/${"a".repeat(2048)}`, /at most 2048/],
  ];
  for (const [url, problem] of refused) {
    const got = checkWebhookUrl(url, false);
    assert.ok("problem" in got, url);
    assert.match(got.problem, problem, url);
  }
  assert.deepEqual(checkWebhookUrl("http://127.0.0.1:8080/x", true), {
    url: "http://127.0.0.1:8080/x",
  });
  // Allowed private targets still need http(s) and no credentials.
  assert.ok("problem" in checkWebhookUrl("http://u:p@127.0.0.1/", true));
});

Deno.test("before an attempt, a literal or local host is checked without DNS", async () => {
  assert.match((await reachProblem(new URL("http://10.0.0.1/"), false))!, /not a public/);
  assert.match((await reachProblem(new URL("http://localhost/"), false))!, /not a public/);
  assert.equal(await reachProblem(new URL("http://8.8.8.8/"), false), null);
  assert.equal(await reachProblem(new URL("http://10.0.0.1/"), true), null);
});

Deno.test("retries back off exponentially from the base, capped", () => {
  assert.deepEqual([1, 2, 3, 4, 5].map((n) => retryDelay(5_000, n)), [
    5_000,
    10_000,
    20_000,
    40_000,
    80_000,
  ]);
  assert.equal(retryDelay(5_000, 30), MAX_RETRY_DELAY_MS);
  assert.equal(retryDelay(5_000, 10_000), MAX_RETRY_DELAY_MS);
});

Deno.test("a webhook wants the kinds it names (or all) of its tenant (or every tenant)", () => {
  const hook = (events: Webhook["events"], tenantId: number | null): Webhook => ({
    id: "wh_0000000000000000",
    url: "https://example.com/",
    events,
    tenantId,
    createdAt: "",
    disabledAt: null,
    disabledReason: null,
    failingSince: null,
  });
  const event = (kind: DriveEvent["kind"], tenantId: number | null): DriveEvent => ({
    kind,
    at: 0,
    tenantId,
    actor: { userSeq: null },
  });
  assert.equal(wantsEvent(hook(["created"], null), event("created", 1)), true);
  assert.equal(wantsEvent(hook(["created"], null), event("trashed", 1)), false);
  assert.equal(wantsEvent(hook(["*"], null), event("admin_action", null)), true);
  assert.equal(wantsEvent(hook(["*"], 1), event("created", 1)), true);
  assert.equal(wantsEvent(hook(["*"], 1), event("created", 2)), false);
  assert.equal(wantsEvent(hook(["*"], 1), event("admin_action", null)), false);
});
