import assert from "node:assert/strict";
import { openKv } from "../db.ts";
import { webhookOutboxKey, webhookUndeliveredKey } from "../keys.ts";
import {
  addToOutbox,
  adoptUndelivered,
  countFailingMessages,
  type OutboxEntry,
  startOutboxWorker,
} from "./webhook_outbox.ts";

/** Two handles on one KV file, as two processes have. */
async function twoHandles(fn: (a: Deno.Kv, b: Deno.Kv) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const a = await openKv(`${dir}/kv.sqlite`);
  const b = await openKv(`${dir}/kv.sqlite`);
  try {
    await fn(a, b);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function outbox(kv: Deno.Kv): Promise<Deno.KvEntry<OutboxEntry>[]> {
  const out: Deno.KvEntry<OutboxEntry>[] = [];
  for await (const e of kv.list<OutboxEntry>({ prefix: webhookOutboxKey() })) out.push(e);
  return out;
}

Deno.test("two workers on one KV run each outbox message once, then it is gone", async () => {
  await twoHandles(async (a, b) => {
    for (let i = 0; i < 60; i += 10) {
      const op = a.atomic();
      for (let j = i; j < i + 10; j++) addToOutbox(op, `m${j}`, { n: j });
      await op.commit();
    }
    const seen: number[] = [];
    const handle = async (m: unknown) => {
      await new Promise((r) => setTimeout(r, 1));
      seen.push((m as { n: number }).n);
    };
    // pollMs far out: the test drives both workers itself, at once.
    const opts = { pollMs: 3_600_000, leaseMs: 60_000, maxInFlight: 8 };
    const wa = startOutboxWorker(a, handle, opts);
    const wb = startOutboxWorker(b, handle, opts);
    try {
      while ((await outbox(a)).length > 0) await Promise.all([wa.runDue(), wb.runDue()]);
    } finally {
      wa.stop();
      wb.stop();
    }
    assert.deepEqual(seen.sort((x, y) => x - y), Array.from({ length: 60 }, (_, i) => i));
  });
});

Deno.test("a message whose worker died runs again once its lease lapses", async () => {
  await twoHandles(async (a, b) => {
    const op = a.atomic();
    addToOutbox(op, "m1", { n: 1 });
    await op.commit();
    // The first worker claims it and never finishes (its process "dies" mid-message).
    const dying = startOutboxWorker(a, () => new Promise(() => {}), {
      pollMs: 3_600_000,
      leaseMs: 300,
    });
    void dying.runDue();
    while ((await outbox(b))[0]?.value.claimedBy === undefined) {
      await new Promise((r) => setTimeout(r, 10));
    }
    dying.stop(); // what a process that died leaves: a claim nobody renews
    const ran: unknown[] = [];
    const other = startOutboxWorker(b, (m) => {
      ran.push(m);
      return Promise.resolve();
    }, { pollMs: 3_600_000, leaseMs: 60_000 });
    try {
      assert.equal(await other.runDue(), 0, "claimed by a live lease: not run twice");
      while (ran.length === 0) {
        await other.runDue();
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(ran, [{ n: 1 }]);
      assert.equal((await outbox(b)).length, 0);
    } finally {
      other.stop();
    }
  });
});

Deno.test("a message whose handler throws is kept, counted, and due again later", async () => {
  await twoHandles(async (a) => {
    const op = a.atomic();
    addToOutbox(op, "m1", { n: 1 });
    await op.commit();
    const worker = startOutboxWorker(a, () => Promise.reject(new Error("KV hiccup")), {
      pollMs: 3_600_000,
      leaseMs: 60_000,
    });
    try {
      assert.equal(await worker.runDue(), 1);
      const [kept] = await outbox(a);
      assert.equal(kept.value.failures, 1);
      assert.ok((kept.key[1] as number) > Date.now(), "moved to its backoff, not due now");
      assert.equal(await countFailingMessages(a), 1);
      assert.equal(await worker.runDue(), 0);
    } finally {
      worker.stop();
    }
  });
});

Deno.test("messages the KV queue gave up on before the outbox are moved into it once", async () => {
  await twoHandles(async (a, b) => {
    await a.set(webhookUndeliveredKey("webhook_fanout", "c1"), { kind: "webhook_fanout" });
    const [x, y] = await Promise.all([adoptUndelivered(a), adoptUndelivered(b)]);
    assert.equal(x + y, 1);
    const [entry] = await outbox(a);
    assert.deepEqual(entry.value.message, { kind: "webhook_fanout" });
    assert.equal((await a.get(webhookUndeliveredKey("webhook_fanout", "c1"))).value, null);
  });
});

Deno.test("a message that runs longer than its lease is renewed, not run by a second worker", async () => {
  await twoHandles(async (a, b) => {
    const op = a.atomic();
    addToOutbox(op, "slow", { n: 1 });
    await op.commit();
    let release = () => {};
    const slow = new Promise<void>((r) => release = r);
    let runs = 0;
    const handle = () => {
      runs++;
      return slow;
    };
    const opts = { pollMs: 3_600_000, leaseMs: 150 };
    const wa = startOutboxWorker(a, handle, opts);
    const wb = startOutboxWorker(b, handle, opts);
    try {
      const first = wa.runDue();
      // Well past several leases: only renewals keep it from falling due.
      for (let i = 0; i < 8; i++) {
        await new Promise((r) => setTimeout(r, 100));
        void wb.runDue();
      }
      assert.equal(runs, 1);
      release();
      await first;
      assert.equal((await outbox(a)).length, 0);
    } finally {
      wa.stop();
      wb.stop();
    }
  });
});
