import assert from "node:assert/strict";
import { withMemoryKv } from "../testing.ts";
import { initAdminToken, markAdminTokenShown, resetAdminToken } from "./admin_token.ts";

Deno.test("a generated admin token nobody printed is named at every later start until shown", async () => {
  await withMemoryKv(async (kv) => {
    const first = await initAdminToken(kv, null);
    assert.ok(first.generated, "the first start generates one");
    assert.equal(first.unshown, false, "the start that generated it prints it itself");
    // That start failed before printing (or before marking): the next one says so.
    const second = await initAdminToken(kv, null);
    assert.equal(second.generated, null);
    assert.equal(second.unshown, true);
    assert.ok(await second.check.verify(first.generated), "the stored token still works");
    await markAdminTokenShown(kv);
    assert.equal((await initAdminToken(kv, null)).unshown, false);
  });
});

Deno.test("a reset token counts as shown; a configured token is never unshown", async () => {
  await withMemoryKv(async (kv) => {
    await initAdminToken(kv, null);
    const token = await resetAdminToken(kv, null);
    const next = await initAdminToken(kv, null);
    assert.equal(next.unshown, false);
    assert.ok(await next.check.verify(token));
    assert.equal((await initAdminToken(kv, "configured-token-value")).unshown, false);
  });
});
