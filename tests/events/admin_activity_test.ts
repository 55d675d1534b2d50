/**
 * Admin actions in the activity log over HTTP (docs/changes.md "Admin actions"): each change is
 * an entry named for what it did (quota_changed, key_issued, key_revoked, adapter_created,
 * webhook_created, ...) with the tenant it concerns, found even when the target is deleted by
 * the action, its targets, and never a secret; the `action` filter selects by name.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import type { AdminClient } from "../helpers/admin.ts";

// deno-lint-ignore no-explicit-any
type Entry = any;

/** Waits (bounded) until the activity log holds `n` entries for `query`; newest first. */
async function waitFor(admin: AdminClient, query: string, n: number): Promise<Entry[]> {
  for (let i = 0; i < 100; i++) {
    const res = await admin.call("GET", `/activity?${query}&ps=200`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.items.length >= n) return res.body.items;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${n} entries for ${query}`);
}

Deno.test("admin actions are named, carry their tenant and targets, and no secret", async () => {
  await withServer(async (s) => {
    const admin = s.admin;
    const tenant = await admin.createTenant("Audited");
    const other = await admin.createTenant("Other");
    const user = await admin.createUser(tenant.id, "alice");
    const ok = async (method: string, path: string, body?: unknown, status = 200) => {
      const res = await admin.call(method, path, body);
      assert.equal(res.status, status, `${method} ${path}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await ok("PATCH", `/users/${user.userSeq}`, { quotaBytes: 5_000_000 });
    await ok("PATCH", `/users/${user.userSeq}`, { name: "Alice A." });
    const key = await ok("POST", "/keys", { userSeq: user.userSeq, scopes: ["api:read"] }, 201);
    await ok("DELETE", `/keys/${key.keyId}`, undefined, 204);
    const adapter = await ok("POST", "/adapters", { name: "office", userSeq: user.userSeq }, 201);
    await ok("DELETE", "/adapters/office", undefined, 204);
    const hook = await ok("POST", "/webhooks", {
      url: "http://127.0.0.1:9/hook",
      events: ["pin_added"],
      tenantId: tenant.id,
    }, 201);
    await ok("POST", `/webhooks/${hook.id}/disable`);
    await ok("DELETE", `/webhooks/${hook.id}`, undefined, 204);
    // Deleting the user: the entry still names the tenant the user was in.
    const doomed = await admin.createUser(tenant.id, "bob");
    await ok("DELETE", `/users/${doomed.userSeq}?confirm=bob`);
    // A failed action is no entry.
    assert.equal((await admin.call("DELETE", "/keys/NoSuchKey0000000")).status, 404);

    const entries = await waitFor(admin, `tenantId=${tenant.id}&kind=admin_action`, 13);
    const byAction = (a: string) => entries.filter((e: Entry) => e.detail.action === a);
    assert.deepEqual(entries.map((e: Entry) => e.detail.action).reverse(), [
      "tenant_created",
      "user_created",
      "quota_changed",
      "user_changed",
      "key_issued",
      "key_revoked",
      "adapter_created",
      "adapter_deleted",
      "webhook_created",
      "webhook_disabled",
      "webhook_deleted",
      "user_created",
      "user_deleted",
    ]);
    assert.ok(entries.every((e: Entry) => e.tenantId === tenant.id && e.actor.admin === true));
    const [quota] = byAction("quota_changed");
    assert.equal(quota.detail.userSeq, user.userSeq);
    assert.equal(quota.detail.quotaBytes, 5_000_000);
    assert.equal(typeof quota.detail.quotaBytesBefore, "number");
    assert.notEqual(quota.detail.quotaBytesBefore, 5_000_000);
    assert.equal(quota.detail.request, `PATCH /users/${user.userSeq}`);
    assert.deepEqual(
      byAction("key_issued").map((e: Entry) => [e.detail.keyId, e.detail.userSeq]),
      [[key.keyId, user.userSeq]],
    );
    assert.equal(byAction("key_revoked")[0].detail.keyId, key.keyId);
    assert.equal(byAction("adapter_created")[0].detail.adapter, "office");
    assert.equal(byAction("webhook_created")[0].detail.webhookId, hook.id);
    assert.equal(byAction("user_deleted")[0].detail.userSeq, doomed.userSeq);
    // No secret, key or signing secret anywhere in the log.
    const everything = JSON.stringify(await waitFor(admin, "kind=admin_action", 14));
    for (const secret of [key.apiKey, adapter.secret, hook.secret]) {
      assert.equal(typeof secret, "string");
      assert.ok(!everything.includes(secret), "a secret reached the activity log");
    }
    // The other tenant has its creation only; the action filter selects by name.
    const others = await waitFor(admin, `tenantId=${other.id}`, 1);
    assert.deepEqual(others.map((e: Entry) => e.detail.action), ["tenant_created"]);
    const keys = await waitFor(admin, "action=key_issued,key_revoked", 2);
    assert.deepEqual(keys.map((e: Entry) => e.detail.action), ["key_revoked", "key_issued"]);
  }, { env: { DRIVE_WEBHOOK_ALLOW_PRIVATE: "true" } });
});
