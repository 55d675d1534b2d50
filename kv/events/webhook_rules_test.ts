/**
 * The rules of webhooks without HTTP: the outbound rules (webhook_target.ts), the retry schedule
 * (webhook_delivery.ts) and which events a webhook wants (webhooks.ts).
 */
import assert from "node:assert/strict";
import type { DriveEvent } from "./log.ts";
import { checkWebhookUrl, isPublicAddress, vetTarget } from "./webhook_target.ts";
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
    // IPv4-compatible forms reach the IPv4 address they carry.
    "::7f00:1",
    "::a00:1",
    "::ffff:0:7f00:1",
    // Metadata services, whatever their range.
    "168.63.129.16",
    "fd00:ec2::254",
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
    // Normalized first: trailing dots, IPv6 forms carrying IPv4, octal.
    ["http://localhost./", /localhost is not a public address/],
    ["http://LocalHost../", /localhost is not a public address/],
    ["http://[::127.0.0.1]/", /::7f00:1 \(that is 127\.0\.0\.1\) is not a public address/],
    ["http://[::ffff:127.0.0.1]/", /not a public address/],
    ["http://[0:0:0:0:0:ffff:7f00:1]/", /not a public address/],
    ["http://0177.0.0.1/", /not a public address/],
    // Names that only exist inside a network, and metadata services.
    ["http://intranet/", /local name/],
    ["http://printer.local/", /local name/],
    ["http://db.corp.internal/", /local name/],
    ["http://router.home.arpa/", /local name/],
    ["http://metadata.google.internal/", /metadata service/],
    ["http://metadata.google.internal./", /metadata service/],
    ["http://instance-data/", /metadata service/],
    ["http://169.254.169.254/", /metadata service/],
    ["http://[fd00:ec2::254]/", /metadata service/],
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
  assert.deepEqual(checkWebhookUrl("http://intranet/x", true), { url: "http://intranet/x" });
  // Metadata services stay refused where private targets are allowed.
  for (const url of ["http://169.254.169.254/", "http://metadata.google.internal/"]) {
    const got = checkWebhookUrl(url, true);
    assert.ok("problem" in got && /metadata service/.test(got.problem), url);
  }
  // Allowed private targets still need http(s) and no credentials.
  assert.ok("problem" in checkWebhookUrl("http://u:p@127.0.0.1/", true));
});

Deno.test("before an attempt, the host is resolved once and every answer vetted", async () => {
  const asked: string[] = [];
  const dns = (answers: Record<string, string[]>) => (host: string) => {
    asked.push(host);
    return host in answers
      ? Promise.resolve(answers[host])
      : Promise.reject(Object.assign(new Error("nope"), { code: "ENOTFOUND" }));
  };
  const resolve = dns({
    "hooks.example.com": ["8.8.8.8", "2001:4860:4860::8888"],
    "mixed.example.com": ["8.8.8.8", "10.0.0.1"],
    "empty.example.com": [],
  });
  const vet = (url: string, allowPrivate = false) =>
    vetTarget(new URL(url), { allowPrivate, resolve });
  const good = await vet("https://Hooks.Example.COM./x?y=1");
  assert.ok(!("problem" in good));
  assert.deepEqual(good.addresses, ["8.8.8.8", "2001:4860:4860::8888"]);
  // The URL requested has the normalized host: no trailing dot in Host nor in the TLS name.
  assert.equal(good.url.href, "https://hooks.example.com/x?y=1");
  const problems: [string, RegExp][] = [
    ["http://mixed.example.com/", /resolves to a refused address: 10\.0\.0\.1 is not a public/],
    ["http://empty.example.com/", /does not resolve/],
    ["http://gone.example.com/", /does not resolve/],
    ["http://10.0.0.1/", /not a public/],
    ["http://localhost/", /not a public/],
  ];
  for (const [url, problem] of problems) {
    const got = await vet(url);
    assert.ok("problem" in got, url);
    assert.match(got.problem, problem, url);
  }
  const literal = await vet("http://8.8.8.8/");
  assert.ok(!("problem" in literal) && literal.addresses[0] === "8.8.8.8");
  assert.ok(!("problem" in await vet("http://10.0.0.1/", true)));
  // Literal addresses and local names are never looked up.
  assert.deepEqual(asked, [
    "hooks.example.com",
    "mixed.example.com",
    "empty.example.com",
    "gone.example.com",
  ]);
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
