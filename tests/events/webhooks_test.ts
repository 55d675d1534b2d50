/**
 * Webhooks end to end (docs/changes.md "Webhooks"), over HTTP with receivers on 127.0.0.1:
 * deliveries verify with the `standardwebhooks` package, a failing answer is retried, an
 * endpoint that fails a whole retry window is disabled, a redirect is not followed, and a
 * delivery whose process is killed mid-attempt arrives after a restart. Changes are made on a
 * second process (main.ts) sharing the KV file, so deliveries go through KV alone.
 */
import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { startMain } from "../helpers/process.ts";
import { withServer } from "../helpers/server.ts";
import { webhookKey } from "../../kv/keys.ts";
import { type Received, Receiver, verified } from "./webhook_receiver.ts";
import { withTwoProcesses } from "./two_processes.ts";

/** Fast retries for tests: 100 ms, 200 ms, 400 ms, ... within a 1 s window. */
const WEBHOOK_ENV = {
  DRIVE_WEBHOOK_ALLOW_PRIVATE: "true",
  DRIVE_WEBHOOK_RETRY_BASE_MS: "100",
  DRIVE_WEBHOOK_RETRY_WINDOW_S: "1",
};

async function createWebhook(
  admin: AdminClient,
  body: Record<string, unknown>,
): Promise<{ id: string; secret: string }> {
  const res = await admin.call("POST", "/webhooks", body);
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const ids = (got: Received[]) => got.map((r) => r.headers["webhook-id"]);

Deno.test("webhooks: signed deliveries from another process, filters, retries, disabling", async (t) => {
  await withTwoProcesses("drive-webhooks-", WEBHOOK_ENV, async ({ a, receiver, alice, onB }) => {
    await t.step("deliveries verify with standardwebhooks; only the wanted kinds", async () => {
      const hook = await createWebhook(a.admin, {
        url: `${receiver.url}/ok`,
        events: ["created", "renamed"],
        tenantId: alice.tenantId,
      });
      assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
      // Stored sealed: the record in KV does not hold the secret.
      const stored = await a.kv.get(webhookKey(hook.id));
      assert.ok(!JSON.stringify(stored.value).includes(hook.secret.slice(6)));
      const listed = await a.admin.call("GET", "/webhooks");
      assert.ok(!JSON.stringify(listed.body).includes(hook.secret.slice(6)));

      const rs = await onB.newFolder("alpha");
      assert.equal((await onB.call("PATCH", `/folders/${rs}/delete`)).status, 200);
      // Not wanted: trashed. The rename after it is, so once it arrives the trash would have.
      const rs2 = await onB.newFolder("beta");
      const renamed = await onB.call("PATCH", `/folders/${rs2}/rename`, { rn: "gamma" });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      // Deliveries are not ordered: wait for all three wanted ones.
      const got = await receiver.waitFor("/ok", (g) => g.length >= 3);
      assert.deepEqual(got.map((r) => r.json.type).sort(), ["created", "created", "renamed"]);
      for (const r of got) {
        const payload = verified(r, hook.secret) as { type: string; data: { resource: unknown } };
        assert.equal(payload.type, r.json.type);
        assert.match(r.headers["webhook-id"], /^msg_[0-9a-f]{36}$/);
        assert.equal(r.headers["content-type"], "application/json");
        // Another secret does not verify it: the signature is over this body and id.
        const other = `whsec_${btoa("x".repeat(32))}`;
        assert.throws(() => new Webhook(other).verify(r.body, r.headers));
      }
      const names = got.map((r) => r.json.data.resource.name).sort();
      assert.deepEqual(names, ["alpha", "beta", "gamma"]);
      const renamedEvent = got.find((r) => r.json.type === "renamed")!.json.data;
      assert.equal(renamedEvent.before.name, "beta");
      assert.equal(renamedEvent.resource.rs, rs2);

      // The receiver answered before each outcome was committed: wait for the records too.
      const items = await waitForDeliveries(
        a.admin,
        hook.id,
        (all) => all.length === 3 && all.every((d) => d.status !== "pending"),
      );
      for (const d of items) {
        assert.equal(d.status, "delivered");
        assert.equal(d.lastStatus, 200);
        assert.equal(d.attempts, 1);
      }
      assert.equal((await a.admin.call("DELETE", `/webhooks/${hook.id}`)).status, 204);
      assert.equal((await a.admin.call("GET", `/webhooks/${hook.id}`)).status, 404);
    });

    await t.step("a 500 is retried, with the same webhook-id, until a 200", async () => {
      receiver.script("/flaky", [500, 503]);
      const hook = await createWebhook(a.admin, {
        url: `${receiver.url}/flaky`,
        events: ["created"],
      });
      await onB.newFolder("retried");
      const got = await receiver.waitFor("/flaky", (g) => g.length >= 3);
      assert.equal(new Set(ids(got)).size, 1, "one delivery, three attempts");
      for (const r of got) verified(r, hook.secret);
      const page = await waitForDelivery(a.admin, hook.id, (d) => d.status === "delivered");
      assert.equal(page.attempts, 3);
      assert.equal(page.lastStatus, 200);
      // Each attempt is kept, newest first (bug 11), not only the last one's status.
      assert.deepEqual(page.attemptLog.map((x: Delivery) => x.status), [200, 503, 500]);
      assert.deepEqual(page.attemptLog.map((x: Delivery) => x.nextAttemptAt !== null), [
        false,
        true,
        true,
      ]);
      const webhook = (await a.admin.call("GET", `/webhooks/${hook.id}`)).body;
      assert.equal(webhook.failingSince, null, "a success clears the failure record");
      assert.equal(webhook.disabledAt, null);
      await a.admin.call("DELETE", `/webhooks/${hook.id}`);
    });

    await t.step(
      "an endpoint failing a whole retry window is disabled; no redirect is followed",
      async () => {
        receiver.script("/moved", [], 302);
        const hook = await createWebhook(a.admin, {
          url: `${receiver.url}/moved`,
          events: ["created"],
        });
        await onB.newFolder("never-arrives");
        const failed = await waitForDelivery(a.admin, hook.id, (d) => d.status === "failed");
        assert.ok(failed.attempts >= 2, `retried: ${failed.attempts} attempts`);
        assert.equal(failed.lastStatus, 302);
        assert.match(failed.lastError, /redirects are not followed/);
        assert.equal(receiver.at("/redirected").length, 0, "the Location was never fetched");
        const webhook = (await a.admin.call("GET", `/webhooks/${hook.id}`)).body;
        assert.equal(webhook.disabledReason, "failing");
        assert.ok(webhook.disabledAt);
        // Disabled: new events are not queued for it (this one is in the log before the enable
        // below), and neither a test nor a retry is taken.
        const quiet = await onB.newFolder("while-disabled");
        await waitForActivity(a.admin, quiet);
        const test = await a.admin.call("POST", `/webhooks/${hook.id}/test`);
        assert.equal(test.status, 409);
        assert.equal(test.body.error, "WEBHOOK_004");
        const retry = await a.admin.call(
          "POST",
          `/webhooks/${hook.id}/deliveries/${failed.id}/retry`,
        );
        assert.equal(retry.status, 409);

        // Enabled again with the receiver fixed: the failed delivery is retried by hand, and a test
        // delivery arrives, both signed.
        receiver.script("/moved", [], 200);
        const enabled = await a.admin.call("POST", `/webhooks/${hook.id}/enable`);
        assert.equal(enabled.body.disabledAt, null);
        assert.equal(enabled.body.failingSince, null);
        const before = receiver.at("/moved").length;
        const retried = await a.admin.call(
          "POST",
          `/webhooks/${hook.id}/deliveries/${failed.id}/retry`,
        );
        assert.equal(retried.status, 202);
        assert.equal(retried.body.status, "pending");
        const sent = await a.admin.call("POST", `/webhooks/${hook.id}/test`);
        assert.equal(sent.status, 202);
        const got = await receiver.waitFor("/moved", (g) => {
          const now = g.slice(before);
          return now.some((r) => r.json?.type === "webhook.test") &&
            now.some((r) => r.headers["webhook-id"] === `msg_${failed.id}`);
        });
        for (const r of got.slice(before)) verified(r, hook.secret);
        await onB.newFolder("after-enable");
        const later = await receiver.waitFor(
          "/moved",
          (g) => g.some((r) => r.json?.data?.resource?.name === "after-enable"),
        );
        assert.ok(!later.some((r) => r.json?.data?.resource?.name === "while-disabled"));
        await waitForDelivery(
          a.admin,
          hook.id,
          (d) => d.id === failed.id && d.status === "delivered",
        );
      },
    );
  });
});

Deno.test("webhooks: a delivery whose process is killed mid-attempt arrives after a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-webhooks-kill-" });
  const env = {
    ...WEBHOOK_ENV,
    DRIVE_WEBHOOK_TIMEOUT_MS: "60000",
    DRIVE_DATA_DIR: dir,
    DRIVE_KV: `${dir}/drive.kv`,
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
  };
  const receiver = new Receiver();
  // The first attempt stalls until the process that makes it is gone.
  receiver.script("/hook", ["hang"]);
  const first = await startMain(env);
  let second: Awaited<ReturnType<typeof startMain>> | null = null;
  try {
    const admin = new AdminClient(first.url);
    const tenant = await admin.createTenant("kill-org");
    const user = await admin.createUser(tenant.id, "kim");
    const key = await admin.createKey(user.userSeq);
    const hook = await createWebhook(admin, { url: `${receiver.url}/hook`, events: ["created"] });
    await new ApiUser(first.url, user.userSeq, tenant.id, key, "kim").newFolder("survives");
    const [stalled] = await receiver.waitFor("/hook", (g) => g.length === 1);
    await first.kill();
    // KV hands an unfinished message out again once its deadline (5 s after the last
    // keep-alive of the dead process) has passed; a process starting after that requeues it.
    await new Promise((r) => setTimeout(r, 6_000));
    second = await startMain(env);
    const got = await receiver.waitFor("/hook", (g) => g.length >= 2);
    assert.equal(got[1].headers["webhook-id"], stalled.headers["webhook-id"], "the same delivery");
    assert.equal(got[1].json.data.resource.name, "survives");
    verified(got[1], hook.secret);
    const delivered = await waitForDelivery(
      new AdminClient(second.url),
      hook.id,
      (d) => d.status === "delivered",
    );
    assert.equal(delivered.lastStatus, 200);
  } finally {
    await first.kill().catch(() => {});
    await second?.stop();
    await receiver.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});

Deno.test("webhooks: the outbound rules and bad input are 4xx naming the problem", async () => {
  await withServer(async (server) => {
    const cases: [unknown, number, string, RegExp][] = [
      [{ url: "http://127.0.0.1:9/x", events: ["*"] }, 400, "WEBHOOK_003", /not a public/],
      [{ url: "http://localhost/x", events: ["*"] }, 400, "WEBHOOK_003", /not a public/],
      [{ url: "http://[::1]/x", events: ["*"] }, 400, "WEBHOOK_003", /not a public/],
      [{ url: "http://10.0.0.8/x", events: ["*"] }, 400, "WEBHOOK_003", /not a public/],
      [{ url: "http://169.254.169.254/", events: ["*"] }, 400, "WEBHOOK_003", /not a public/],
      [{ url: "ftp://example.com/x", events: ["*"] }, 400, "WEBHOOK_003", /http or https/],
      [{ url: "https://u:p@example.com/", events: ["*"] }, 400, "WEBHOOK_003", /password/],
      [{ url: "not a url", events: ["*"] }, 400, "WEBHOOK_003", /absolute/],
      [{ url: "https://example.com/", events: [] }, 400, "REQUEST_001", /events/],
      [{ url: "https://example.com/", events: ["exploded"] }, 400, "REQUEST_001", /events/],
      [{ url: "https://example.com/", events: ["*"], extra: 1 }, 400, "REQUEST_001", /extra/],
      [{ url: "https://example.com/", events: ["*"], tenantId: 99 }, 404, "TENANT_001", /./],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await server.admin.call("POST", "/webhooks", body);
      assert.equal(res.status, status, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error, code);
      assert.match(res.body.message, message);
    }
    const malformed = await server.admin.call("GET", "/webhooks/nope/deliveries");
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.field, "id");
    const unknown = await server.admin.call("POST", "/webhooks/wh_0123456789abcdef/test");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, "WEBHOOK_001");
    const ok = await createWebhook(server.admin, { url: "https://example.com/", events: ["*"] });
    const noDelivery = await server.admin.call(
      "POST",
      `/webhooks/${ok.id}/deliveries/${"0".repeat(36)}/retry`,
    );
    assert.equal(noDelivery.status, 404);
    assert.equal(noDelivery.body.error, "WEBHOOK_002");
    const badPage = await server.admin.call("GET", `/webhooks/${ok.id}/deliveries?ps=0`);
    assert.equal(badPage.status, 400);
    assert.equal(badPage.body.field, "ps");
  });
});

// deno-lint-ignore no-explicit-any
type Delivery = any;

/** Waits (bounded) until the activity log has an entry about `rs`: its event is sequenced. */
async function waitForActivity(admin: AdminClient, rs: number, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const res = await admin.call("GET", `/activity?rs=${rs}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.items.length > 0) return;
    if (Date.now() > deadline) throw new Error(`no activity about ${rs}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls (bounded) the webhook's newest deliveries until `done` holds for them. */
async function waitForDeliveries(
  admin: AdminClient,
  webhookId: string,
  done: (all: Delivery[]) => boolean,
  limitMs = 30_000,
): Promise<Delivery[]> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const res = await admin.call("GET", `/webhooks/${webhookId}/deliveries?ps=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (done(res.body.items)) return res.body.items;
    if (Date.now() > deadline) throw new Error(`deliveries: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls (bounded) until one of the webhook's newest deliveries satisfies `done`. */
async function waitForDelivery(
  admin: AdminClient,
  webhookId: string,
  done: (d: Delivery) => boolean,
): Promise<Delivery> {
  const all = await waitForDeliveries(admin, webhookId, (items) => items.some(done));
  return all.find(done);
}
