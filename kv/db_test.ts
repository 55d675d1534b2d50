/**
 * Block-reserved ids (openIdAllocator): allocators sharing one KV never hand out one id twice,
 * concurrent calls in one process share one reservation, and `nextSeq` on the same sequence
 * continues after every reserved block.
 */
import assert from "node:assert/strict";
import { nextSeq, openIdAllocator, retryBusyCommits } from "./db.ts";
import { seqKey } from "./keys.ts";

Deno.test("two allocators on one KV: unique ids, one commit per block, nextSeq after them", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const a = openIdAllocator(kv, 5);
    const b = openIdAllocator(kv, 5);
    const got = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).next("resource")),
    );
    assert.equal(new Set(got).size, 40, "no id twice");
    assert.ok(got.every((id) => Number.isSafeInteger(id) && id > 0));
    // 20 ids each in blocks of 5: four reservations per allocator, none wasted by a race.
    assert.equal((await kv.get<number>(seqKey("resource"))).value, 40);
    assert.deepEqual([...got].sort((x, y) => x - y), Array.from({ length: 40 }, (_, i) => i + 1));
    assert.equal(await nextSeq(kv, "resource"), 41, "nextSeq continues after the blocks");
    // The next block starts after what nextSeq handed out.
    assert.equal(await a.next("resource"), 42);
    assert.equal(await a.next("other"), 1, "sequences are separate");
  } finally {
    kv.close();
  }
});

Deno.test('retryBusyCommits commits again past SQLite\'s "database is locked", not past other errors', async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // Two processes on one file make Deno KV throw this; here the first two commits throw it.
    let busyLeft = 2;
    let broken = false;
    const atomic = kv.atomic.bind(kv);
    kv.atomic = () => {
      const op = atomic();
      const commit = op.commit.bind(op);
      op.commit = () => {
        if (broken) return Promise.reject(new Error("disk I/O error"));
        if (busyLeft-- > 0) return Promise.reject(new TypeError("database is locked"));
        return commit();
      };
      return op;
    };
    const wrapped = retryBusyCommits(kv);
    const res = await wrapped.atomic().check({ key: ["k"], versionstamp: null }).set(["k"], 1)
      .commit();
    assert.equal(res.ok, true);
    assert.equal(busyLeft, -1, "two busy attempts, then the commit");
    assert.equal((await kv.get(["k"])).value, 1);
    broken = true;
    await assert.rejects(wrapped.atomic().set(["k"], 2).commit(), /disk I\/O error/);
  } finally {
    kv.close();
  }
});
