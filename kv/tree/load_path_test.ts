/**
 * `loadPath` with the parent memo (kv/parent_memo.ts): the ancestors it remembers are read at
 * once, and what the records say wins over the memo, so moves, trash, purges and even a memo
 * that loops give the path a level-by-level walk gives.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import type { User } from "../identity/users.ts";
import { attachParentMemo, openParentMemo, type ParentMemo } from "../parent_memo.ts";
import { domainTest, newFolder, newUser } from "../testing.ts";
import { moveResource, trashResource } from "./moves.ts";
import { loadPath, type Resource } from "./resources.ts";

/** A handle on the same KV that counts its read calls, with its own memo. */
function countingKv(kv: Deno.Kv, memo: ParentMemo) {
  const counter = { calls: 0 };
  const handle = attachParentMemo({
    get: (key: Deno.KvKey) => (counter.calls++, kv.get(key)),
    getMany: (keys: Deno.KvKey[]) => (counter.calls++, kv.getMany(keys)),
  }, memo) as unknown as Deno.Kv;
  return { handle, counter };
}

/** The path as a memo-less walk reads it: one level at a time. */
async function walked(d: Deps, rs: number) {
  const bare = { get: (key: Deno.KvKey) => d.kv.get(key) } as unknown as Deno.Kv;
  return await loadPath(bare, rs);
}

async function chain(d: Deps, owner: User, depth: number, prefix = "level") {
  const out: Resource[] = [];
  for (let i = 0; i < depth; i++) {
    out.push(await newFolder(d, owner, `${prefix}-${i}`, out.at(-1)?.rs ?? null));
  }
  return out;
}

const rsOf = (p: Awaited<ReturnType<typeof loadPath>>) => p?.path.map((r) => r.rs);

domainTest("a remembered path of 30 levels is read in one round of batches", async (d) => {
  const owner = await newUser(d, "ann");
  const folders = await chain(d, owner, 30);
  const deepest = folders.at(-1)!.rs;
  const { handle, counter } = countingKv(d.kv, openParentMemo());
  const first = await loadPath(handle, deepest);
  assert.deepEqual(rsOf(first), folders.map((f) => f.rs).reverse());
  assert.equal(counter.calls, 30, "the first walk reads level by level");
  counter.calls = 0;
  const again = await loadPath(handle, deepest);
  assert.deepEqual(rsOf(again), rsOf(first));
  assert.deepEqual(again, await walked(d, deepest));
  assert.equal(counter.calls, 3, "30 remembered levels: three getMany of 10, sent at once");
});

domainTest("after a move the records win over the memo", async (d) => {
  const owner = await newUser(d, "ann");
  const left = await chain(d, owner, 6, "left");
  const right = await chain(d, owner, 4, "right");
  const { handle } = countingKv(d.kv, openParentMemo());
  const deepest = left.at(-1)!.rs;
  await loadPath(handle, deepest);
  // Move left-2 of the left chain (with everything below it) under the right chain's end.
  await moveResource(d, {
    rs: left[2].rs,
    destParentRs: right.at(-1)!.rs,
    actorSeq: owner.userSeq,
  });
  const moved = await loadPath(handle, deepest);
  assert.deepEqual(moved, await walked(d, deepest));
  assert.deepEqual(
    rsOf(moved),
    [...left.slice(2).map((f) => f.rs).reverse(), ...right.map((f) => f.rs).reverse()],
  );
});

domainTest(
  "trash on a remembered path is seen; a purged ancestor ends it as trashed",
  async (d) => {
    const owner = await newUser(d, "ann");
    const folders = await chain(d, owner, 8);
    const deepest = folders.at(-1)!.rs;
    const { handle } = countingKv(d.kv, openParentMemo());
    assert.equal((await loadPath(handle, deepest))?.trashed, false);
    await trashResource(d, { rs: folders[3].rs, actorSeq: owner.userSeq });
    const trashed = await loadPath(handle, deepest);
    assert.equal(trashed?.trashed, true);
    assert.deepEqual(trashed, await walked(d, deepest));
    // A record gone from under the memo (as a purge leaves it): the walk stops there, trashed.
    await d.kv.delete(["res", folders[1].rs]);
    const purged = await loadPath(handle, deepest);
    assert.deepEqual(purged, await walked(d, deepest));
    assert.equal(purged?.trashed, true);
    assert.equal(purged?.path.length, 6);
  },
);

domainTest("a memo that loops or names strangers still gives the real path", async (d) => {
  const owner = await newUser(d, "ann");
  const folders = await chain(d, owner, 5);
  const memo = openParentMemo();
  // Wrong guesses: level-4 → level-1 → level-4 (a loop), level-1 → an id that does not exist.
  memo.set(folders[4].rs, folders[1].rs);
  memo.set(folders[1].rs, folders[4].rs);
  memo.set(folders[2].rs, 999_999);
  const { handle } = countingKv(d.kv, memo);
  const got = await loadPath(handle, folders[4].rs);
  assert.deepEqual(got, await walked(d, folders[4].rs));
  assert.deepEqual(rsOf(got), folders.map((f) => f.rs).reverse());
  // And the memo now holds the real pointers: the next read is one batch.
  assert.equal(memo.get(folders[4].rs), folders[3].rs);
});
