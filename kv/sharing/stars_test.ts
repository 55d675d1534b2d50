/**
 * Stars (stars.ts) on the domain: a page in resourceSeq order with its cursor, stars on trashed
 * resources kept but not listed, stars on missing or unreachable ones dropped, the scan budget.
 */
import assert from "node:assert/strict";
import { starKey } from "../keys.ts";
import { domainTest, newFile, newFolder, newUser, trash } from "../testing.ts";
import { listStarred, starResource } from "./stars.ts";

const callerOf = (u: { userSeq: number; tenantId: number }) => ({
  userSeq: u.userSeq,
  tenantId: u.tenantId,
});

domainTest(
  "pages in resourceSeq order; trashed kept, missing and unreachable dropped",
  async (d) => {
    const alice = await newUser(d, "alice");
    const bob = await newUser(d, "bob");
    const folder = await newFolder(d, alice, "box");
    const a = await newFile(d, alice, "a.txt", "a", folder.rs);
    const b = await newFile(d, alice, "b.txt", "b");
    const bobs = await newFile(d, bob, "bob.txt", "not shared");
    for (const rs of [folder.rs, a.rs, b.rs, bobs.rs, 999_999]) {
      await starResource(d.kv, alice.userSeq, rs);
    }
    const caller = callerOf(alice);
    const first = await listStarred(d.kv, caller, { limit: 2 });
    assert.deepEqual(first.items.map((i) => i.access.resource.name), ["box", "a.txt"]);
    assert.equal(first.next, a.rs);
    const second = await listStarred(d.kv, caller, { limit: 2, after: first.next! });
    assert.deepEqual(second.items.map((i) => i.access.resource.name), ["b.txt"]);
    assert.equal(second.next, null);
    // Bob's unshared file and the missing seq are gone; the others stay.
    const left = await Array.fromAsync(d.kv.list({ prefix: starKey(alice.userSeq) }));
    assert.deepEqual(left.map((e) => e.key[2]), [folder.rs, a.rs, b.rs]);

    // The folder in the trash hides itself and what is in it; the stars stay for a restore.
    await trash(d, alice, folder);
    const after = await listStarred(d.kv, caller, { limit: 10 });
    assert.deepEqual(after.items.map((i) => i.access.resource.name), ["b.txt"]);
    assert.equal((await Array.fromAsync(d.kv.list({ prefix: starKey(alice.userSeq) }))).length, 3);
  },
);

domainTest("a page stops after its scan budget with a cursor to go on", async (d) => {
  const alice = await newUser(d, "alice");
  const live = await newFile(d, alice, "live.txt", "x");
  await starResource(d.kv, alice.userSeq, live.rs);
  // Dead stars after the live one in key order, more than one page may read.
  for (let i = 0; i < 520; i++) await starResource(d.kv, alice.userSeq, 100_000 + i);
  await starResource(d.kv, alice.userSeq, 200_000);
  const caller = callerOf(alice);
  const first = await listStarred(d.kv, caller, { limit: 10 });
  assert.deepEqual(first.items.map((i) => i.access.resource.rs), [live.rs]);
  assert.ok(first.next !== null, "stopped by the budget, not the end");
  const second = await listStarred(d.kv, caller, { limit: 10, after: first.next! });
  assert.deepEqual(second.items, []);
  assert.equal(second.next, null);
  const left = await Array.fromAsync(d.kv.list({ prefix: starKey(alice.userSeq) }));
  assert.deepEqual(left.map((e) => e.key[2]), [live.rs]);
});
