/**
 * The sequencer on a :memory: KV: commit order kept for a backlog larger than one read (the
 * barrier path), nothing moved by a process that does not hold the lease, retention raising the
 * floor.
 */
import assert from "node:assert/strict";
import { eventLogKey, eventPendingKey } from "../keys.ts";
import { appendEvent, type DriveEvent } from "./log.ts";
import { comparePositions, positionOfKey } from "./positions.ts";
import { LEASE_MS, purgeExpiredEvents, readFloor, sequenceOnce } from "./sequencer.ts";

const opts = (holder: string) => ({ holder, retentionDays: 30, afterSequenced: [] });

function event(i: number, at = Date.now()): DriveEvent {
  return {
    kind: "created",
    at,
    tenantId: 1,
    actor: { userSeq: 1 },
    resource: { rs: i, type: "FOLDER", name: `f${i}`, parentRs: null, ownerSeq: 1 },
  };
}

async function logged(kv: Deno.Kv) {
  const out: { rs: number; key: Deno.KvKey }[] = [];
  for await (const e of kv.list<DriveEvent>({ prefix: eventLogKey() })) {
    out.push({ rs: e.value.resource!.rs, key: e.key });
  }
  return out;
}

Deno.test("a backlog of 2,500 events in 1,250 commits enters the log in commit order", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 2500; i += 2) {
      const op = kv.atomic();
      appendEvent(op, event(i));
      appendEvent(op, event(i + 1));
      await op.commit();
    }
    assert.equal(await sequenceOnce(kv, opts("a")), 2500);
    const log = await logged(kv);
    assert.deepEqual(log.map((e) => e.rs), Array.from({ length: 2500 }, (_, i) => i));
    for (let i = 1; i < log.length; i++) {
      assert.ok(comparePositions(positionOfKey(log[i - 1].key), positionOfKey(log[i].key)) < 0);
    }
    let pending = 0;
    for await (const _ of kv.list({ prefix: eventPendingKey() })) pending++;
    assert.equal(pending, 0);
  } finally {
    kv.close();
  }
});

Deno.test("only the lease holder moves events; a lapsed lease is taken over", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const op = kv.atomic();
    appendEvent(op, event(1));
    await op.commit();
    assert.equal(await sequenceOnce(kv, opts("a")), 1);
    const op2 = kv.atomic();
    appendEvent(op2, event(2));
    await op2.commit();
    assert.equal(await sequenceOnce(kv, opts("b")), null);
    assert.equal((await logged(kv)).length, 1);
    // "a" stops renewing; once its lease lapses, "b" takes over.
    const realNow = Date.now;
    Date.now = () => realNow() + LEASE_MS + 1;
    try {
      assert.equal(await sequenceOnce(kv, opts("b")), 1);
    } finally {
      Date.now = realNow;
    }
    assert.deepEqual((await logged(kv)).map((e) => e.rs), [1, 2]);
  } finally {
    kv.close();
  }
});

Deno.test("retention removes old entries oldest first and raises the floor", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const op = kv.atomic();
    appendEvent(op, event(1, 1000));
    appendEvent(op, event(2, 2000));
    appendEvent(op, event(3, Date.now()));
    await op.commit();
    await sequenceOnce(kv, opts("a"));
    const before = await logged(kv);
    assert.equal(await purgeExpiredEvents(kv, 5000), 2);
    assert.deepEqual((await logged(kv)).map((e) => e.rs), [3]);
    assert.deepEqual(await readFloor(kv), positionOfKey(before[1].key));
  } finally {
    kv.close();
  }
});
