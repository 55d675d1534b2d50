/**
 * The change feed over HTTP against two processes on one KV file (tests/events/helpers.ts):
 * exactly-once delivery in commit order under 16 concurrent writers on both processes, access
 * gained and lost through shares, the long-poll waking on the other process's change, and the
 * 410 of a cursor older than retention.
 */
import assert from "node:assert/strict";
import { purgeExpiredEvents } from "../../kv/events/sequencer.ts";
import { type ChangeItem, cursorOf, drain, readUntil, withTwoProcesses } from "./helpers.ts";

const WRITERS = 16;
const PER_WRITER = 4;

Deno.test("a cursor from A sees every change of 16 writers on A and B once, in commit order", async () => {
  await withTwoProcesses(async ({ a, onB, newUser }) => {
    const alice = await newUser("alice");
    const cursor = await cursorOf(alice);
    // Made before the cursor: never reported.
    await alice.newFolder("before");
    const cursor2 = await cursorOf(alice);
    const expected: string[] = [];
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      const api = w % 2 === 0 ? alice : onB(alice);
      for (let i = 0; i < PER_WRITER; i++) {
        const rs = await api.newFolder(`w${w}-${i}`);
        const renamed = await api.call("PATCH", `/folders/${rs}/rename`, { rn: `w${w}-${i}-r` });
        assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
        expected.push(`created:${rs}`, `renamed:${rs}`);
      }
    });
    // A reader on B follows the feed in small pages while the writes commit.
    const total = WRITERS * PER_WRITER * 2;
    const live = readUntil(onB(alice), cursor2, (items) => items.length >= total, { ps: 7 });
    await Promise.all(writers);
    const followed = await live;
    const after = await drain(alice, cursor2);

    const key = (c: ChangeItem) => `${c.kind}:${c.resource.rs}`;
    // Exactly once: every change, no other, no repeat; the same on both processes.
    assert.deepEqual(after.items.map(key).sort(), [...expected].sort());
    assert.deepEqual(followed.map(key), after.items.map(key));
    // Commit order: cursors strictly increase, and each folder's create precedes its rename.
    const cursors = after.items.map((c: ChangeItem) => c.cursor);
    assert.deepEqual([...cursors].sort(), cursors);
    assert.equal(new Set(cursors).size, cursors.length);
    for (const c of after.items.filter((c: ChangeItem) => c.kind === "renamed")) {
      const created = after.items.findIndex((x: ChangeItem) =>
        key(x) === `created:${c.resource.rs}`
      );
      assert.ok(created >= 0 && created < after.items.indexOf(c), key(c));
      assert.equal(c.before.name, c.resource.name.replace(/-r$/, ""));
    }
    // The actor names the key used.
    assert.ok(after.items.every((c: ChangeItem) => c.actor.userSeq === alice.userSeq));
    assert.ok(after.items.every((c: ChangeItem) => typeof c.actor.keyId === "string"));
    // The earlier cursor sees the folder made before the later one, then the same changes.
    const all = await drain(alice, cursor);
    assert.equal(all.items[0].resource.name, "before");
    assert.deepEqual(all.items.slice(1).map(key), after.items.map(key));
    // The resume point: nothing after it.
    assert.deepEqual((await drain(alice, after.cursor)).items, []);
    void a;
  });
});

Deno.test("access gained through a share and lost again appear in the recipient's feed", async () => {
  await withTwoProcesses(async ({ onB, newUser }) => {
    const alice = await newUser("alice");
    const bob = await newUser("bob");
    const folder = await alice.newFolder("Shared");
    const secret = await alice.newFolder("Secret");
    const cursor = await cursorOf(bob);
    // The share is made on B, the feed read on A.
    const share = await onB(alice).shareWith(folder, bob);
    await onB(alice).newFolder("inside", folder);
    await alice.newFolder("not for bob", secret);
    const shared = await readUntil(bob, cursor, (it) => it.some((c) => c.kind === "created"));
    const seen = shared.map((c: ChangeItem) => `${c.kind}:${c.resource.name}`);
    assert.deepEqual(seen, ["access_gained:Shared", "created:inside"]);
    assert.equal(shared[0].share.shareSeq, share.shareSeq);

    const removed = await onB(alice).call("DELETE", `/shares/${share.shareSeq}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    const aliceAt = await cursorOf(alice);
    await onB(alice).newFolder("after", folder);
    // Sequenced (alice sees it) before bob's feed is read.
    await readUntil(alice, aliceAt, (it) => it.some((c) => c.resource.name === "after"));
    const lost = await readUntil(bob, shared[1].cursor, (it) => it.length > 0);
    // Losing access is the last thing bob hears of it: not what came after the share went.
    assert.deepEqual(lost.map((c: ChangeItem) => `${c.kind}:${c.resource.name}`), [
      "access_lost:Shared",
    ]);
    assert.deepEqual((await drain(bob, lost[0].cursor)).items, []);
    // Alice's own feed has the share events as such.
    const own = await drain(alice, cursor);
    const kinds = own.items.map((c: ChangeItem) => c.kind);
    assert.ok(kinds.includes("share_created") && kinds.includes("share_removed"), kinds.join());
  });
});

Deno.test("long-poll on A answers within 1 s of a change committed on B; false at timeout", async () => {
  await withTwoProcesses(async ({ onB, newUser }) => {
    const alice = await newUser("alice");
    const bob = await newUser("bob");
    const cursor = await cursorOf(alice);
    // Nothing for alice: bob's change does not wake her wait.
    const idle = alice.call("GET", `/changes/wait?cursor=${cursor}&timeout=1`);
    await onB(bob).newFolder("bob's");
    assert.equal((await idle).body.data.changes, false);

    const waiting = alice.call("GET", `/changes/wait?cursor=${cursor}&timeout=20`)
      .then((r) => ({ r, at: performance.now() }));
    await new Promise((r) => setTimeout(r, 300));
    await onB(alice).newFolder("wake up");
    const committed = performance.now();
    const { r, at } = await waiting;
    assert.equal(r.status, 200);
    assert.equal(r.body.data.changes, true);
    // The requirement itself (issue 14): within one second of the commit on the other process.
    assert.ok(at - committed < 1000, `answered ${Math.round(at - committed)} ms after the commit`);
    // A change already there answers at once.
    const again = await alice.call("GET", `/changes/wait?cursor=${cursor}&timeout=20`);
    assert.equal(again.body.data.changes, true);
  });
});

Deno.test("a cursor older than retention is 410 CHANGES_001; a bad cursor is 400", async () => {
  await withTwoProcesses(async ({ a, onB, newUser }) => {
    const alice = await newUser("alice");
    const old = await cursorOf(alice);
    await onB(alice).newFolder("x");
    await readUntil(alice, old, (items) => items.length >= 1);
    // What the retention job does after DRIVE_EVENT_RETENTION_DAYS, with the cutoff now.
    assert.ok(await purgeExpiredEvents(a.kv, Date.now() + 1) >= 1);
    for (const path of [`/changes?cursor=${old}`, `/changes/wait?cursor=${old}&timeout=1`]) {
      const res = await onB(alice).call("GET", path);
      assert.equal(res.status, 410, path);
      assert.equal(res.body.errorCode, "CHANGES_001");
    }
    const fresh = await cursorOf(alice);
    assert.equal((await alice.call("GET", `/changes?cursor=${fresh}`)).status, 200);
    for (const bad of ["", "xyz", "0".repeat(23), `${fresh}0`]) {
      const res = await alice.call("GET", `/changes?cursor=${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.errorCode, "REQUEST_001");
    }
    const ps = await alice.call("GET", `/changes?cursor=${fresh}&ps=0`);
    assert.equal(ps.status, 400);
    const timeout = await alice.call("GET", `/changes/wait?cursor=${fresh}&timeout=61`);
    assert.equal(timeout.status, 400);
  });
});
