/**
 * The identity cache across processes (kv/identity/cache.ts): two main.ts processes on one KV
 * file. Process A serves an API key and a provider adapter with warm caches; every change made
 * through process B (key, user and tenant disabled, quota changed, adapter secret rotated) is in
 * force on A's very next request: the documented bound is zero, since each request reads the
 * identity epoch in the same snapshot as its key or adapter record.
 */
import assert from "node:assert/strict";
import { AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { withTwoMains } from "../helpers/process.ts";
import { newProviderAdapter } from "../helpers/provider.ts";
import { ProviderHostClient } from "../../provider/host/client.ts";

Deno.test("changes made on process B are in force on process A's next request", async () => {
  await withTwoMains({}, async (a, b) => {
    const adminB = new AdminClient(b.url);
    const tenant = await adminB.createTenant("cache");
    const user = await adminB.createUser(tenant.id, "cache", { quotaBytes: 1000 });
    const key = await adminB.createKey(user.userSeq);
    const onA = new ApiUser(a.url, user.userSeq, tenant.id, key, "cache");
    const { client: adapterOnA, name } = await newProviderAdapter(
      { url: a.url, admin: adminB },
      "cache-adapter",
      { userSeq: user.userSeq },
    );
    const apiStatus = async () => {
      const r = await onA.call("GET", "/resources");
      return r.status === 200 ? "ok" : r.body.errorCode;
    };
    const providerStatus = async (client = adapterOnA) => (await client.info([])).status;
    // Warm A's caches: the key's user and tenant, the adapter's opened secret.
    for (let i = 0; i < 3; i++) {
      assert.equal(await apiStatus(), "ok");
      assert.equal(await providerStatus(), 200);
    }

    const switchOnB = async (path: string, action: "disable" | "enable") => {
      const r = await adminB.call("POST", `${path}/${action}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    await switchOnB(`/keys/${key.split("_")[1]}`, "disable");
    assert.equal(await apiStatus(), "AUTH_005", "a key disabled on B is refused on A at once");
    await switchOnB(`/keys/${key.split("_")[1]}`, "enable");
    assert.equal(await apiStatus(), "ok");

    await switchOnB(`/users/${user.userSeq}`, "disable");
    assert.equal(await apiStatus(), "AUTH_006", "a user disabled on B is refused on A at once");
    assert.equal(await providerStatus(), 403, "and so is the user's adapter");
    await switchOnB(`/users/${user.userSeq}`, "enable");
    assert.equal(await apiStatus(), "ok");
    assert.equal(await providerStatus(), 200);

    await switchOnB(`/tenants/${tenant.id}`, "disable");
    assert.equal(await apiStatus(), "AUTH_006", "a tenant disabled on B is refused on A at once");
    assert.equal(await providerStatus(), 403);
    await switchOnB(`/tenants/${tenant.id}`, "enable");
    assert.equal(await apiStatus(), "ok");

    // A quota lowered on B is what A enforces next (the user record is a cached fact).
    const lowered = await adminB.call("PATCH", `/users/${user.userSeq}`, { quotaBytes: 3 });
    assert.equal(lowered.status, 200, JSON.stringify(lowered.body));
    const upload = await onA.upload("big.txt", "more than three bytes");
    assert.equal(upload.body.errorCode, "RESOURCE_015", JSON.stringify(upload.body));

    // A secret rotated on B: the old one is refused on A, the new one accepted.
    const rotated = await adminB.call("POST", `/adapters/${name}/rotate-secret`);
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.equal(await providerStatus(), 401, "the old secret is refused on A at once");
    const renewed = new ProviderHostClient({
      baseUrl: a.url,
      adapter: name,
      secret: rotated.body.secret,
    });
    assert.equal(await providerStatus(renewed), 200);
  });
});
