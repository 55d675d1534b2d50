import assert from "node:assert/strict";
import { domainTest } from "../testing.ts";
import { webhookUndeliveredKey } from "../keys.ts";
import { countUndelivered, enqueueOptions, redriveUndelivered } from "./webhook_undelivered.ts";

Deno.test("KV writes a message it gave up on under keysIfUndelivered (what the redrive relies on)", async () => {
  // Its own handle: the listener ends only when KV closes, which the test does itself.
  const kv = await Deno.openKv(":memory:");
  const listening = kv.listenQueue(() => {
    throw new Error("the handler fails every time");
  });
  const { keysIfUndelivered } = enqueueOptions({ kind: "webhook_fanout", id: "c1" });
  await kv.enqueue({ kind: "webhook_fanout", n: 1 }, {
    backoffSchedule: [10],
    keysIfUndelivered,
  });
  const deadline = Date.now() + 10_000;
  while ((await kv.get(keysIfUndelivered[0])).value === null) {
    assert.ok(Date.now() < deadline, "KV never wrote the undelivered message");
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.deepEqual((await kv.get(keysIfUndelivered[0])).value, { kind: "webhook_fanout", n: 1 });
  kv.close();
  await listening.catch(() => {});
});

domainTest(
  "undelivered messages are run again; done ones removed, failing ones kept",
  async (d) => {
    await d.kv.set(webhookUndeliveredKey("webhook_fanout", "a"), { ok: true, n: 1 });
    await d.kv.set(webhookUndeliveredKey("webhook_attempt", "b"), { ok: false, n: 2 });
    assert.equal(await countUndelivered(d.kv), 2);
    const ran: number[] = [];
    const handle = (m: unknown) => {
      const { ok, n } = m as { ok: boolean; n: number };
      ran.push(n);
      return ok ? Promise.resolve() : Promise.reject(new Error("still failing"));
    };
    assert.equal(await redriveUndelivered(d, handle), 1);
    assert.deepEqual(ran.sort(), [1, 2]);
    assert.equal(await countUndelivered(d.kv), 1, "the failing one waits for the next round");
    assert.ok((await d.kv.get(webhookUndeliveredKey("webhook_attempt", "b"))).value);
  },
);
