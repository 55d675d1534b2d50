/**
 * Stored versions under races (versions.ts): deletes racing each other or a purge free the bytes
 * once, restores racing for the last quota never pass it, and usage stays the sum of the stored
 * versions.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import type { User } from "../identity/users.ts";
import {
  addVersion,
  assertFails,
  blobCount,
  domainTest,
  newFile,
  newFolder,
  newUser,
  raceWinners,
  storedBytes,
  trash,
} from "../testing.ts";
import { moveFileToDrive } from "./moves.ts";
import { getResourceEntry, type Resource } from "./resources.ts";
import { listVersions } from "./content_versions.ts";
import { purgeTrashed } from "./trash.ts";
import { getUsage } from "./usage.ts";
import { removeVersion, restoreVersion } from "./versions.ts";

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

/** Usage equals the bytes of every stored version of the user's resources. */
async function assertUsageExact(d: Deps, owner: User) {
  assert.equal(await getUsage(d.kv, owner.userSeq), await storedBytes(d, owner));
}

async function threeVersions(
  d: Deps,
  owner: User,
  name = "doc.bin",
  parentRs: number | null = null,
): Promise<Resource> {
  const file = await newFile(d, owner, name, bytes(100, 1), parentRs);
  await addVersion(d, owner, file.rs, bytes(200, 2));
  await addVersion(d, owner, file.rs, bytes(300, 3));
  return file;
}

domainTest("two deletes of one version free its bytes once", async (d) => {
  const alice = await newUser(d, "alice");
  const file = await threeVersions(d, alice);
  const blobs = await blobCount(d);
  const winners = await raceWinners(
    Array.from(
      { length: 4 },
      () => removeVersion(d, { rs: file.rs, version: 2, actorSeq: alice.userSeq }),
    ),
    "VERSION_001",
  );
  assert.equal(winners.length, 1);
  assert.equal(await getUsage(d.kv, alice.userSeq), 400);
  assert.equal(await blobCount(d), blobs - 1);
  await assertUsageExact(d, alice);
});

domainTest("a version delete racing a move or a purge never counts its bytes twice", async (d) => {
  const alice = await newUser(d, "alice");
  const bob = await newUser(d, "bob");
  await newFile(d, alice, "other.bin", bytes(1_000));
  for (let round = 0; round < 5; round++) {
    const file = await threeVersions(d, alice, `moved-${round}.bin`);
    await Promise.allSettled([
      removeVersion(d, { rs: file.rs, version: 2, actorSeq: alice.userSeq }),
      moveFileToDrive(d, {
        rs: file.rs,
        destOwnerSeq: bob.userSeq,
        destParentRs: null,
        actorSeq: alice.userSeq,
      }),
    ]);
    await assertUsageExact(d, alice);
    await assertUsageExact(d, bob);
  }
  for (let round = 0; round < 5; round++) {
    const folder = await newFolder(d, alice, `box-${round}`);
    const file = await threeVersions(d, alice, `purged-${round}.bin`, folder.rs);
    await trash(d, alice, folder);
    // The delete was authorized before the trash; the domain call races the purge.
    await Promise.allSettled([
      removeVersion(d, { rs: file.rs, version: 2, actorSeq: alice.userSeq }),
      purgeTrashed(d, { ownerSeq: alice.userSeq, rs: folder.rs }),
    ]);
    await assertUsageExact(d, alice);
  }
  assert.equal(await getUsage(d.kv, alice.userSeq), 1_000);
});

domainTest("restores racing for the last quota never pass it", async (d) => {
  const alice = await newUser(d, "alice", { quotaBytes: 1_000 });
  const file = await threeVersions(d, alice); // 600 used
  const winners = await raceWinners(
    Array.from({ length: 4 }, () => restoreVersion(d, { rs: file.rs, version: 2, actorSeq: 1 })),
    "RESOURCE_015",
  );
  assert.equal(winners.length, 2, "two restores of 200 fit in the 400 left");
  assert.equal(await getUsage(d.kv, alice.userSeq), 1_000);
  await assertUsageExact(d, alice);
  // Every stored version has its blob, and no blob is left without a version.
  const versions = await listVersions(d.kv, file.rs);
  assert.equal(await blobCount(d), versions.length);
  assert.equal(new Set(versions.map((v) => v.blobId)).size, versions.length);
});

domainTest("the current version cannot be deleted; an old one after a restore can", async (d) => {
  const alice = await newUser(d, "alice");
  const file = await threeVersions(d, alice);
  await assertFails(
    removeVersion(d, { rs: file.rs, version: 3, actorSeq: alice.userSeq }),
    "VERSION_002",
  );
  const { file: restored } = await restoreVersion(d, {
    rs: file.rs,
    version: 1,
    actorSeq: alice.userSeq,
  });
  assert.equal(restored.version, 4);
  await removeVersion(d, { rs: file.rs, version: 3, actorSeq: alice.userSeq });
  await removeVersion(d, { rs: file.rs, version: 1, actorSeq: alice.userSeq });
  assert.deepEqual((await listVersions(d.kv, file.rs)).map((v) => v.version), [2, 4]);
  await assertFails(
    removeVersion(d, { rs: file.rs, version: 4, actorSeq: alice.userSeq }),
    "VERSION_002",
  );
  await assertUsageExact(d, alice);
});

domainTest("a version delete changes the file record's versionstamp", async (d) => {
  // Moves to another drive and purges sum a file's versions and check only its record: this is
  // what sends them round again when a version went meanwhile.
  const alice = await newUser(d, "alice");
  const file = await threeVersions(d, alice);
  const before = await getResourceEntry(d.kv, file.rs);
  await removeVersion(d, { rs: file.rs, version: 1, actorSeq: alice.userSeq });
  const after = await getResourceEntry(d.kv, file.rs);
  assert.notEqual(after.versionstamp, before.versionstamp);
  assert.deepEqual(after.value, before.value, "the record itself is unchanged");
});
