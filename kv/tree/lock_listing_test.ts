/**
 * `liveLocksAmong`, the locks of a listing read through the owner's lock index: every live lock
 * among the listed documents is found (and none of another owner's or outside the list), a
 * released or expired lock is not, and an owner with more indexed locks than listed documents
 * is read document by document with the same answer.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { domainTest, newFile, newUser } from "../testing.ts";
import { acquireLock, liveLocksAmong, releaseLock } from "./locks.ts";

const lock = (d: Deps, rs: number, ttlMs: number | null) =>
  acquireLock(d.kv, { rs, owner: `o${rs}`, source: "office", holder: `h${rs}`, ttlMs });

domainTest("the live locks among listed documents, from the owner's lock index", async (d) => {
  const ann = await newUser(d, "ann");
  const bob = await newUser(d, "bob");
  const files = [];
  for (let i = 0; i < 6; i++) files.push(await newFile(d, ann, `f${i}.txt`, "x"));
  const bobs = await newFile(d, bob, "b.txt", "x");
  await lock(d, files[0].rs, null);
  await lock(d, files[2].rs, 60_000);
  await lock(d, files[3].rs, 60_000);
  await releaseLock(d.kv, files[3].rs, `o${files[3].rs}`);
  await lock(d, files[4].rs, 1);
  await lock(d, files[5].rs, null); // locked, but not among the listed documents below
  await lock(d, bobs.rs, null);
  await new Promise((r) => setTimeout(r, 5)); // files[4]'s lease runs out

  const listed = files.slice(0, 5).map((f) => f.rs);
  const found = await liveLocksAmong(d.kv, ann.userSeq, listed);
  assert.deepEqual([...found.keys()].sort((a, b) => a - b), [files[0].rs, files[2].rs]);
  assert.equal(found.get(files[2].rs)?.holder, `h${files[2].rs}`);

  // Fewer listed documents than indexed locks: read per document, same answer.
  const two = await liveLocksAmong(d.kv, ann.userSeq, [files[0].rs, files[1].rs]);
  assert.deepEqual([...two.keys()], [files[0].rs]);
  assert.equal((await liveLocksAmong(d.kv, ann.userSeq, [])).size, 0);
});
