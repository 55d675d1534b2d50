/**
 * The identity fact cache (cache.ts): facts answered from memory only at the epoch they were
 * loaded at, every user and tenant change moving the epoch, a load that raced a change never
 * kept, and API keys verified through it refused at once after a change.
 */
import assert from "node:assert/strict";
import { withMemoryKv } from "../testing.ts";
import { bumpIdentityEpoch, openIdentityCache, readIdentityEpoch } from "./cache.ts";
import { createApiKey, verifyApiKey } from "./api_keys.ts";
import { createTenant, setTenantDisabled, updateTenant } from "./tenants.ts";
import { createUser, setUserDisabled, updateUser, userStanding } from "./users.ts";
import { isDriveError } from "../errors.ts";

/** A load function that counts its calls. */
function counted<T>(value: () => T) {
  const calls = { n: 0 };
  return { calls, load: () => Promise.resolve((calls.n++, value())) };
}

Deno.test("a fact is loaded once per epoch and again after a bump", () =>
  withMemoryKv(async (kv) => {
    const cache = openIdentityCache(kv);
    const { calls, load } = counted(() => ({ v: 1 }));
    let { epoch } = await cache.read([]);
    await cache.fact(epoch, "user", 1, load);
    await cache.fact((await cache.read([])).epoch, "user", 1, load);
    assert.equal(calls.n, 1, "the second request is answered from memory");

    await bumpIdentityEpoch(kv.atomic()).commit();
    epoch = (await cache.read([])).epoch;
    await cache.fact(epoch, "user", 1, load);
    assert.equal(calls.n, 2, "a new epoch loads again");
  }));

Deno.test("a load that raced a change is not kept; an older snapshot never rolls it back", () =>
  withMemoryKv(async (kv) => {
    const cache = openIdentityCache(kv);
    const old = (await cache.read([])).epoch;
    // The change commits and another request reads the new epoch while this load runs.
    const slow = cache.fact(old, "user", 1, async () => {
      await bumpIdentityEpoch(kv.atomic()).commit();
      await cache.read([]);
      return { v: "read before the change" };
    });
    await slow;
    const fresh = counted(() => ({ v: "after" }));
    const now = (await cache.read([])).epoch;
    assert.ok(now > old);
    assert.deepEqual(await cache.fact(now, "user", 1, fresh.load), { v: "after" });
    assert.equal(fresh.calls.n, 1, "the raced load was not kept");
    // A request whose snapshot was older gets the newer fact, never a reload of older state.
    assert.deepEqual(await cache.fact(old, "user", 1, fresh.load), { v: "after" });
    assert.equal(fresh.calls.n, 1);
  }));

Deno.test("facts older than maxAgeMs are loaded again whatever the epoch", () =>
  withMemoryKv(async (kv) => {
    const cache = openIdentityCache(kv, { maxAgeMs: 0 });
    const { calls, load } = counted(() => ({ v: 1 }));
    const { epoch } = await cache.read([]);
    await cache.fact(epoch, "user", 1, load);
    await cache.fact(epoch, "user", 1, load);
    assert.equal(calls.n, 2);
  }));

/** A user `accountId` with a quota of 1000 bytes, in a new tenant "Acme". */
async function userInNewTenant(kv: Deno.Kv, accountId: string) {
  const tenant = await createTenant(kv, "Acme");
  const user = await createUser(kv, {
    tenantId: tenant.id,
    accountId,
    email: `${accountId}@example.com`,
    name: accountId,
    quotaBytes: 1000,
  });
  return { tenant, user };
}

Deno.test("every user and tenant change moves the epoch", () =>
  withMemoryKv(async (kv) => {
    const { tenant, user } = await userInNewTenant(kv, "ann");
    const changes: [string, () => Promise<unknown>][] = [
      ["updateUser", () => updateUser(kv, user.userSeq, { quotaBytes: 5 })],
      ["setUserDisabled", () => setUserDisabled(kv, user.userSeq, true)],
      ["updateTenant", () => updateTenant(kv, tenant.id, { name: "Acme 2" })],
      ["setTenantDisabled", () => setTenantDisabled(kv, tenant.id, true)],
    ];
    for (const [name, change] of changes) {
      const before = await readIdentityEpoch(kv);
      await change();
      assert.equal(await readIdentityEpoch(kv), before + 1n, `${name} moves the epoch`);
    }
  }));

Deno.test("an API key verified through the cache is refused at once when its user or tenant is disabled", () =>
  withMemoryKv(async (kv) => {
    const cache = openIdentityCache(kv);
    const { tenant, user } = await userInNewTenant(kv, "bob");
    const { apiKey } = await createApiKey(kv, { userSeq: user.userSeq, scopes: ["api:read"] });
    const refusedWith = async (code: "AUTH_006") => {
      await assert.rejects(() => verifyApiKey(kv, apiKey, cache), (err) => isDriveError(err, code));
    };
    assert.equal((await verifyApiKey(kv, apiKey, cache))?.user.userSeq, user.userSeq);
    assert.equal((await verifyApiKey(kv, apiKey, cache))?.user.quotaBytes, 1000);
    await updateUser(kv, user.userSeq, { quotaBytes: 7 });
    assert.equal((await verifyApiKey(kv, apiKey, cache))?.user.quotaBytes, 7, "new quota at once");
    await setUserDisabled(kv, user.userSeq, true);
    await refusedWith("AUTH_006");
    await setUserDisabled(kv, user.userSeq, false);
    assert.ok(await verifyApiKey(kv, apiKey, cache));
    await setTenantDisabled(kv, tenant.id, true);
    await refusedWith("AUTH_006");
    const { epoch } = await cache.read([]);
    const standing = await userStanding(kv, user.userSeq, { cache, epoch });
    assert.equal(standing?.disabled, `tenant ${tenant.id} is disabled`);
  }));
