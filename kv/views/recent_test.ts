/**
 * Recent (recent.ts) on the domain: files by their newest change in the event log, newest first
 * and each once; folders, trashed files and other users' unshared files left out; the limit.
 */
import assert from "node:assert/strict";
import { addVersion, domainTest, newFile, newFolder, newUser, trash } from "../testing.ts";
import { sequenceOnce } from "../events/sequencer.ts";
import { listRecent } from "./recent.ts";

/** Moves every pending event into the log, as the process's sequencer does after each commit. */
async function sequenceAll(kv: Deno.Kv) {
  const opts = { holder: "test", retentionDays: 30, afterSequenced: [] };
  while ((await sequenceOnce(kv, opts)) !== 0) { /* more pending */ }
}

domainTest(
  "newest change first, each file once, nothing trashed, foreign or a folder",
  async (d) => {
    const alice = await newUser(d, "alice");
    const bob = await newUser(d, "bob");
    const box = await newFolder(d, alice, "box");
    const a = await newFile(d, alice, "a.txt", "a");
    const b = await newFile(d, alice, "b.txt", "b", box.rs);
    await newFile(d, bob, "bob.txt", "not shared");
    const gone = await newFile(d, alice, "gone.txt", "x");
    await trash(d, alice, gone);
    await addVersion(d, alice, a.rs, new TextEncoder().encode("a2"));
    await sequenceAll(d.kv);

    const caller = { userSeq: alice.userSeq, tenantId: alice.tenantId };
    const items = await listRecent(d.kv, caller, 10);
    assert.deepEqual(items.map((i) => i.access.resource.name), ["a.txt", "b.txt"]);
    assert.ok(items[0].changedAt >= items[1].changedAt);
    assert.equal(items[1].access.resource.rs, b.rs);
    assert.deepEqual((await listRecent(d.kv, caller, 1)).map((i) => i.access.resource.name), [
      "a.txt",
    ]);
    const bobs = await listRecent(d.kv, { userSeq: bob.userSeq, tenantId: bob.tenantId }, 10);
    assert.deepEqual(bobs.map((i) => i.access.resource.name), ["bob.txt"]);
  },
);
