/**
 * Quota rules: every stored content version is charged to its owner's usage in the commit that
 * stores it, trash included until purged; a write that would pass the quota fails with the
 * caller's error code and changes nothing (no usage, no blob), also when writes race.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { updateUser, type User } from "../identity/users.ts";
import {
  assertFails,
  blobCount,
  domainTest,
  newFile,
  newFolder,
  newUser,
  raceWinners,
} from "../testing.ts";
import { copyFile, putContent, storeGeneratedFile, storeNewFile } from "./content.ts";
import { moveFileToDrive, trashResource } from "./moves.ts";
import { getResource } from "./resources.ts";
import { purgeTrashed } from "./trash.ts";
import { chargeUsage, getUsage, readUsageEntry } from "./usage.ts";

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

/** New content for file `rs` by its owner: kept beside the old one (version) or replacing it. */
function putBytes(
  d: Deps,
  owner: User,
  rs: number,
  mode: "version" | "overwrite",
  content: Uint8Array,
) {
  return putContent(d, {
    rs,
    mode,
    reason: mode,
    actorSeq: owner.userSeq,
    lockOwner: null,
    body: ReadableStream.from([content]),
    quotaCode: "RESOURCE_015",
  });
}

domainTest(
  "chargeUsage refuses past the quota with the given code; exactly full is fine",
  async (d) => {
    const charge = async (delta: number, quota: number) => {
      const entry = await readUsageEntry(d.kv, 7);
      const op = d.kv.atomic();
      chargeUsage(op, entry, 7, delta, quota, "QUOTA_003");
      assert.ok((await op.commit()).ok);
    };
    await charge(60, 100);
    await assertFails(charge(41, 100), "QUOTA_003");
    assert.equal(await getUsage(d.kv, 7), 60, "a refused charge writes nothing");
    await charge(40, 100);
    assert.equal(await getUsage(d.kv, 7), 100);
    // Freeing is never refused, even over a lowered quota, and never goes below zero.
    await charge(-30, 10);
    assert.equal(await getUsage(d.kv, 7), 70);
    await charge(-500, 10);
    assert.equal(await getUsage(d.kv, 7), 0);
  },
);

domainTest("chargeUsage checks the usage it read, so a stale read cannot commit", async (d) => {
  const stale = await readUsageEntry(d.kv, 7);
  const first = d.kv.atomic();
  chargeUsage(first, stale, 7, 50, 100, "RESOURCE_015");
  assert.ok((await first.commit()).ok);
  const second = d.kv.atomic();
  chargeUsage(second, stale, 7, 50, 100, "RESOURCE_015");
  assert.equal((await second.commit()).ok, false);
  assert.equal(await getUsage(d.kv, 7), 50);
});

domainTest(
  "a stored file is charged; one over the quota is refused and leaves nothing",
  async (d) => {
    const alice = await newUser(d, "alice", { quotaBytes: 100 });
    await newFile(d, alice, "a.bin", bytes(60));
    assert.equal(await getUsage(d.kv, alice.userSeq), 60);
    await assertFails(newFile(d, alice, "b.bin", bytes(41)), "RESOURCE_015");
    assert.equal(await getUsage(d.kv, alice.userSeq), 60);
    assert.equal(await blobCount(d), 1, "the refused upload's bytes are gone");
    // The caller names the code: creating a document answers QUOTA_003.
    await assertFails(
      storeGeneratedFile(d, {
        ownerSeq: alice.userSeq,
        parentRs: null,
        name: "new.docx",
        actorSeq: alice.userSeq,
        onConflict: "fail",
        quotaCode: "QUOTA_003",
        reason: "template",
        bytes: bytes(41),
      }),
      "QUOTA_003",
    );
    await newFile(d, alice, "c.bin", bytes(40));
    assert.equal(await getUsage(d.kv, alice.userSeq), 100, "exactly full");
    await newFile(d, alice, "empty.bin", "");
    await assertFails(newFile(d, alice, "d.bin", "x"), "RESOURCE_015");
  },
);

domainTest("a declared size over the free quota is refused before the body is read", async (d) => {
  const alice = await newUser(d, "alice", { quotaBytes: 1000 });
  let read = false;
  // A generator runs only once iterated (a ReadableStream pulls as soon as it is made).
  const body = (async function* () {
    read = true;
    yield bytes(1001);
  })();
  await assertFails(
    storeNewFile(d, {
      ownerSeq: alice.userSeq,
      parentRs: null,
      name: "huge.bin",
      actorSeq: alice.userSeq,
      onConflict: "fail",
      quotaCode: "RESOURCE_015",
      reason: "upload",
      body,
      expectedSize: 1001,
    }),
    "RESOURCE_015",
  );
  assert.equal(read, false);
  assert.equal(await blobCount(d), 0);
});

domainTest(
  "a new version is charged in full; an overwrite only by the size difference",
  async (d) => {
    const alice = await newUser(d, "alice", { quotaBytes: 1000 });
    const file = await newFile(d, alice, "a.bin", bytes(600));
    const put = (mode: "version" | "overwrite", size: number) =>
      putBytes(d, alice, file.rs, mode, bytes(size, 2));
    await assertFails(put("version", 401), "RESOURCE_015");
    assert.equal(await getUsage(d.kv, alice.userSeq), 600);
    await put("overwrite", 1000);
    assert.equal(await getUsage(d.kv, alice.userSeq), 1000);
    assert.equal(await blobCount(d), 1, "the replaced bytes are deleted");
    await put("overwrite", 100);
    assert.equal(await getUsage(d.kv, alice.userSeq), 100);
    await put("version", 900);
    assert.equal(await getUsage(d.kv, alice.userSeq), 1000, "both versions count");
    assert.equal((await getResource(d.kv, file.rs))?.size, 900);
  },
);

/** Two users in tenants of their own: alice with a 1000-byte quota, bob with 500. */
async function aliceAndBob(d: Deps) {
  const alice = await newUser(d, "alice", { quotaBytes: 1000 });
  return { alice, bob: await newUser(d, "bob", { quotaBytes: 500 }) };
}

domainTest(
  "a copy is charged to the destination user and refused when it does not fit",
  async (d) => {
    const { alice, bob } = await aliceAndBob(d);
    const file = await newFile(d, alice, "a.bin", bytes(400));
    const copy = (destOwnerSeq: number) =>
      copyFile(d, { rs: file.rs, destOwnerSeq, destParentRs: null, actorSeq: destOwnerSeq });
    await copy(bob.userSeq);
    assert.equal(await getUsage(d.kv, bob.userSeq), 400);
    assert.equal(await getUsage(d.kv, alice.userSeq), 400);
    await assertFails(copy(bob.userSeq), "RESOURCE_015");
    await copy(alice.userSeq);
    assert.equal(await getUsage(d.kv, alice.userSeq), 800);
    await assertFails(copy(alice.userSeq), "RESOURCE_015");
    assert.equal(await blobCount(d), 3);
  },
);

domainTest(
  "a move to another drive carries every version's bytes, refused when they do not fit",
  async (d) => {
    const { alice, bob } = await aliceAndBob(d);
    const file = await newFile(d, alice, "a.bin", bytes(300));
    await putBytes(d, alice, file.rs, "version", bytes(250, 2));
    const move = () =>
      moveFileToDrive(d, {
        rs: file.rs,
        destOwnerSeq: bob.userSeq,
        destParentRs: null,
        actorSeq: bob.userSeq,
      });
    await assertFails(move(), "RESOURCE_015");
    assert.equal((await getResource(d.kv, file.rs))?.ownerSeq, alice.userSeq);
    assert.equal(await getUsage(d.kv, alice.userSeq), 550);
    await updateUser(d.kv, bob.userSeq, { quotaBytes: 550 });
    await move();
    assert.equal(await getUsage(d.kv, alice.userSeq), 0);
    assert.equal(await getUsage(d.kv, bob.userSeq), 550);
  },
);

domainTest("trash still counts; purging frees every version of every file below", async (d) => {
  const alice = await newUser(d, "alice", { quotaBytes: 1000 });
  const folder = await newFolder(d, alice, "Old");
  const inner = await newFolder(d, alice, "Inner", folder.rs);
  const a = await newFile(d, alice, "a.bin", bytes(100), folder.rs);
  await newFile(d, alice, "b.bin", bytes(200), inner.rs);
  await putBytes(d, alice, a.rs, "version", bytes(50, 2));
  const kept = await newFile(d, alice, "kept.bin", bytes(10));
  assert.equal(await getUsage(d.kv, alice.userSeq), 360);
  await trashResource(d, { rs: folder.rs, actorSeq: alice.userSeq });
  assert.equal(await getUsage(d.kv, alice.userSeq), 360, "the trash still takes quota");
  await assertFails(newFile(d, alice, "big.bin", bytes(641)), "RESOURCE_015");
  const purged = await purgeTrashed(d, { ownerSeq: alice.userSeq, rs: folder.rs });
  assert.equal(purged.resources, 4);
  assert.equal(purged.freedBytes, 350);
  assert.equal(await getUsage(d.kv, alice.userSeq), 10);
  assert.equal(await blobCount(d), 1, "only the kept file's bytes remain");
  assert.ok(await getResource(d.kv, kept.rs));
  await newFile(d, alice, "big.bin", bytes(990));
});

domainTest("concurrent uploads never pass the quota: exactly those that fit succeed", async (d) => {
  const size = 300;
  const alice = await newUser(d, "alice", { quotaBytes: 4 * size + size / 2 });
  const stored = await raceWinners(
    Array.from({ length: 10 }, (_, i) => newFile(d, alice, `f${i}.bin`, bytes(size, i + 1))),
    "RESOURCE_015",
  );
  assert.equal(stored.length, 4);
  assert.equal(await getUsage(d.kv, alice.userSeq), 4 * size);
  assert.equal(await blobCount(d), 4, "the refused uploads' bytes are deleted");
});

domainTest(
  "concurrent overwrites and versions of one file keep usage equal to what is stored",
  async (d) => {
    const alice = await newUser(d, "alice", { quotaBytes: 2000 });
    const file = await newFile(d, alice, "a.bin", bytes(500));
    const modes = ["overwrite", "version"] as const;
    await raceWinners(
      Array.from(
        { length: 8 },
        (_, i) => putBytes(d, alice, file.rs, modes[i % 2], bytes(400 + i * 10, i)),
      ),
      "RESOURCE_015",
    );
    const stored = (await Array.fromAsync(d.blobs.list())).reduce((sum, b) => sum + b.size, 0);
    const usage = await getUsage(d.kv, alice.userSeq);
    assert.equal(usage, stored);
    assert.ok(usage <= 2000, `usage ${usage}`);
  },
);
