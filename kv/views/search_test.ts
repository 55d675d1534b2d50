/**
 * The search query (search.ts) on the domain: the scan budget of one page, the token keys after
 * a move to another drive and a purge, and a purge batch of names with many tokens staying
 * within one commit's limits.
 */
import assert from "node:assert/strict";
import { searchTokenKey } from "../keys.ts";
import { domainTest, newFile, newFolder, newUser, trash } from "../testing.ts";
import type { Caller } from "../identity/users.ts";
import { moveFileToDrive } from "../tree/moves.ts";
import { MAX_SCAN, searchResources } from "./search.ts";
import { MAX_TOKENS } from "../tree/search_index.ts";
import { purgeTrashed } from "../tree/trash.ts";

const callerOf = (u: { userSeq: number; tenantId: number }): Caller => ({
  userSeq: u.userSeq,
  tenantId: u.tenantId,
});

async function tokenCount(kv: Deno.Kv, ownerSeq: number): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: searchTokenKey(ownerSeq) })) n++;
  return n;
}

domainTest("a page stops after its scan budget and its cursor goes on from there", async (d) => {
  const alice = await newUser(d, "alice");
  const box = await newFolder(d, alice, "box");
  // Live hits sort after (by resource seq) many entries a trashed folder hides.
  for (let i = 0; i < MAX_SCAN + 20; i++) await newFolder(d, alice, `zeta ${i}`, box.rs);
  await trash(d, alice, box);
  const live = await newFile(d, alice, "zeta live.txt", "x");
  const caller = callerOf(alice);
  const first = await searchResources(d.kv, caller, { q: "zeta", scope: "own", ps: 5 });
  assert.deepEqual(first.items, [], "only hidden entries within the budget");
  assert.ok(first.cursor, "a short page still has a cursor");
  const second = await searchResources(d.kv, caller, {
    q: "zeta",
    scope: "own",
    ps: 5,
    cursor: first.cursor,
  });
  assert.deepEqual(second.items.map((h) => h.resource.rs), [live.rs]);
});

domainTest("a file moved to another drive is found there, not in the old one", async (d) => {
  const alice = await newUser(d, "alice");
  const bob = await newUser(d, "bob");
  const file = await newFile(d, alice, "Moving Box.txt", "x");
  await moveFileToDrive(d, {
    rs: file.rs,
    destOwnerSeq: bob.userSeq,
    destParentRs: null,
    actorSeq: alice.userSeq,
  });
  assert.equal(await tokenCount(d.kv, alice.userSeq), 0);
  const found = await searchResources(d.kv, callerOf(bob), { q: "moving", scope: "own", ps: 10 });
  assert.deepEqual(found.items.map((h) => h.resource.rs), [file.rs]);
  const none = await searchResources(d.kv, callerOf(alice), { q: "moving", scope: "both", ps: 10 });
  assert.deepEqual(none.items, []);
});

domainTest("a purge removes the tokens of the whole tree, many-token names included", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "top");
  // Names with the most tokens one name can index, enough of them for several purge commits.
  const word = (i: number, j: number) => `w${i}x${j}${"abcdefghijklmnop"[j]}`;
  const name = (i: number) =>
    Array.from({ length: MAX_TOKENS + 3 }, (_, j) => word(i, j)).join(" ");
  for (let i = 0; i < 150; i++) await newFile(d, alice, `${name(i)}.txt`, "x", top.rs);
  assert.ok(await tokenCount(d.kv, alice.userSeq) >= 150 * MAX_TOKENS);
  await trash(d, alice, top);
  const result = await purgeTrashed(d, { ownerSeq: alice.userSeq, rs: top.rs });
  assert.equal(result.resources, 151);
  assert.equal(await tokenCount(d.kv, alice.userSeq), 0);
});

domainTest("a purge of many one-token folders stays within a commit's mutations", async (d) => {
  // More folders than one purge commit takes: the purge spans commits and leaves no token.
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "top");
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const oneToken = (i: number) => `f${letters[Math.floor(i / 26)]}${letters[i % 26]}`;
  for (let i = 0; i < 130; i++) await newFolder(d, alice, oneToken(i), top.rs);
  await trash(d, alice, top);
  const result = await purgeTrashed(d, { ownerSeq: alice.userSeq, rs: top.rs });
  assert.equal(result.resources, 131);
  assert.equal(await tokenCount(d.kv, alice.userSeq), 0);
});
