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
import { withClock, withMemoryKv } from "../testing.ts";

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

/** Appends `events` to the pending log in one commit, as one tree change does. */
async function commitEvents(kv: Deno.Kv, ...events: DriveEvent[]) {
  const op = kv.atomic();
  for (const e of events) appendEvent(op, e);
  assert.ok((await op.commit()).ok);
}

async function logged(kv: Deno.Kv) {
  const out: { rs: number; key: Deno.KvKey }[] = [];
  for await (const e of kv.list<DriveEvent>({ prefix: eventLogKey() })) {
    out.push({ rs: e.value.resource!.rs, key: e.key });
  }
  return out;
}

Deno.test("a backlog of 2,500 events in 1,250 commits enters the log in commit order", () =>
  withMemoryKv(async (kv) => {
    for (let i = 0; i < 2500; i += 2) {
      await commitEvents(kv, event(i), event(i + 1));
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
  }));

Deno.test("only the lease holder moves events; a lapsed lease is taken over", () =>
  withMemoryKv(async (kv) => {
    await commitEvents(kv, event(1));
    assert.equal(await sequenceOnce(kv, opts("a")), 1);
    await commitEvents(kv, event(2));
    assert.equal(await sequenceOnce(kv, opts("b")), null);
    assert.equal((await logged(kv)).length, 1);
    // "a" stops renewing; once its lease lapses, "b" takes over.
    await withClock(async (clock) => {
      clock.now += LEASE_MS + 1;
      assert.equal(await sequenceOnce(kv, opts("b")), 1);
    });
    assert.deepEqual((await logged(kv)).map((e) => e.rs), [1, 2]);
  }));

Deno.test("retention removes old entries oldest first and raises the floor", () =>
  withMemoryKv(async (kv) => {
    await commitEvents(kv, event(1, 1000), event(2, 2000), event(3, Date.now()));
    await sequenceOnce(kv, opts("a"));
    const before = await logged(kv);
    assert.equal(await purgeExpiredEvents(kv, 5000), 2);
    assert.deepEqual((await logged(kv)).map((e) => e.rs), [3]);
    assert.deepEqual(await readFloor(kv), positionOfKey(before[1].key));
  }));
