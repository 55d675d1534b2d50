/**
 * Document lock rules: one holder at a time (same owner renews, another gets RESOURCE_010),
 * leases that end by our own clock (KV's expireIn deletes lazily), writes and path changes of a
 * locked document refused, folders above a locked document kept in place, and the
 * administrator's release.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import type { User } from "../identity/users.ts";
import { assertFails, domainTest, newFile, newFolder, newUser, raceWinners } from "../testing.ts";
import { putContent } from "./content.ts";
import { moveResource, renameResource, trashResource } from "./moves.ts";
import {
  acquireLock,
  assertNotLockedByOther,
  forceReleaseLock,
  getLock,
  isLive,
  listLockReleases,
  listLocks,
  type Lock,
  lockEntryFor,
  releaseExpiredLocks,
  releaseLock,
  renewLock,
} from "./locks.ts";
import { getResource } from "./resources.ts";
import { eventPendingKey } from "../keys.ts";
import type { DriveEvent } from "../events/log.ts";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function officeLock(d: Deps, rs: number, owner: string, ttlMs: number | null = 60_000) {
  return acquireLock(d.kv, { rs, owner, source: "office", holder: owner, ttlMs });
}

function save(d: Deps, user: User, rs: number, lockOwner: string | null, text: string) {
  return putContent(d, {
    rs,
    mode: "version",
    reason: "save",
    actorSeq: user.userSeq,
    lockOwner,
    body: ReadableStream.from([new TextEncoder().encode(text)]),
    quotaCode: "RESOURCE_015",
  });
}

Deno.test("isLive: no lease never ends; a lease ends at expiresAt exactly", () => {
  const lock: Lock = {
    rs: 1,
    owner: "o",
    source: "office",
    holder: "o",
    lockedAt: 0,
    expiresAt: 1000,
  };
  assert.equal(isLive(lock, 999), true);
  assert.equal(isLive(lock, 1000), false);
  assert.equal(isLive({ ...lock, expiresAt: null }, Number.MAX_SAFE_INTEGER), true);
  assert.equal(isLive(null), false);
  // An ended lease is no lock at all: nobody is kept out by it.
  const ended = { ...lock, expiresAt: Date.now() - 1 };
  assert.doesNotThrow(() => assertNotLockedByOther(ended, "someone else"));
  assert.throws(() => assertNotLockedByOther({ ...lock, expiresAt: null }, "other"), {
    code: "RESOURCE_010",
  });
  assert.doesNotThrow(() => assertNotLockedByOther({ ...lock, expiresAt: null }, "o"));
});

domainTest("the holder renews its lock; another owner is refused and the lock stays", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const first = await officeLock(d, doc.rs, "editor-1", 1000);
  assert.equal(first.ownerSeq, alice.userSeq);
  await pause(5);
  const renewed = await officeLock(d, doc.rs, "editor-1", 60_000);
  assert.equal(renewed.lockedAt, first.lockedAt, "renewing keeps when it was locked");
  assert.ok(renewed.expiresAt! > first.expiresAt!, "and extends the lease");
  await assertFails(officeLock(d, doc.rs, "editor-2"), "RESOURCE_010");
  assert.deepEqual(await getLock(d.kv, doc.rs), renewed);
});

domainTest(
  "renewLock extends only a live lock of the same owner and never creates one",
  async (d) => {
    const alice = await newUser(d, "alice");
    const doc = await newFile(d, alice, "plan.docx", "v1");
    assert.equal(await renewLock(d.kv, doc.rs, "editor-1", 60_000), null);
    assert.equal(await getLock(d.kv, doc.rs), null, "a save without a lock takes none");
    const lock = await officeLock(d, doc.rs, "editor-1", 1000);
    assert.equal(await renewLock(d.kv, doc.rs, "editor-2", 60_000), null);
    assert.deepEqual(await getLock(d.kv, doc.rs), lock);
    const renewed = await renewLock(d.kv, doc.rs, "editor-1", 60_000);
    assert.ok(renewed && renewed.expiresAt! > lock.expiresAt!);
  },
);

domainTest("only the holder releases; releasing no lock succeeds", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  await releaseLock(d.kv, doc.rs, "editor-1");
  const lock = await officeLock(d, doc.rs, "editor-1");
  await assertFails(releaseLock(d.kv, doc.rs, "editor-2"), "RESOURCE_010");
  assert.deepEqual(await getLock(d.kv, doc.rs), lock);
  await releaseLock(d.kv, doc.rs, "editor-1");
  assert.equal(await getLock(d.kv, doc.rs), null);
  await officeLock(d, doc.rs, "editor-2");
});

domainTest("a lease that ran out is no lock although KV still holds the record", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const ended = await officeLock(d, doc.rs, "editor-1", 20);
  await pause(40);
  assert.notEqual((await lockEntryFor(d.kv, doc.rs)).value, null, "expireIn has not run yet");
  assert.equal(await getLock(d.kv, doc.rs), null);
  assert.deepEqual(await listLocks(d.kv), []);
  assert.equal(await forceReleaseLock(d.kv, doc.rs, "admin"), null);
  // Anyone may now write, and another editor may lock it afresh.
  await save(d, alice, doc.rs, null, "v2");
  const next = await officeLock(d, doc.rs, "editor-2");
  assert.equal(next.owner, "editor-2");
  assert.ok(next.lockedAt > ended.lockedAt, "a new lock, not the old one renewed");
});

domainTest(
  "a locked document refuses others' writes, rename, move and trash (RESOURCE_010)",
  async (d) => {
    const alice = await newUser(d, "alice");
    const doc = await newFile(d, alice, "plan.docx", "v1");
    const folder = await newFolder(d, alice, "Elsewhere");
    await officeLock(d, doc.rs, "editor-1");
    await assertFails(save(d, alice, doc.rs, null, "v2"), "RESOURCE_010");
    await assertFails(save(d, alice, doc.rs, "editor-2", "v2"), "RESOURCE_010");
    const rename = (lockOwner: string | null) =>
      renameResource(d, {
        rs: doc.rs,
        name: "other.docx",
        onConflict: "fail",
        actorSeq: alice.userSeq,
        lockOwner,
      });
    await assertFails(rename(null), "RESOURCE_010");
    await assertFails(
      moveResource(d, { rs: doc.rs, destParentRs: folder.rs, actorSeq: alice.userSeq }),
      "RESOURCE_010",
    );
    await assertFails(trashResource(d, { rs: doc.rs, actorSeq: alice.userSeq }), "RESOURCE_010");
    const unchanged = await getResource(d.kv, doc.rs);
    assert.equal(unchanged?.version, 1);
    assert.equal(unchanged?.parentRs, null);
    assert.equal(unchanged?.trashedAt, null);
    // The holder writes through its own lock.
    assert.equal((await save(d, alice, doc.rs, "editor-1", "v2")).version, 2);
    assert.equal((await rename("editor-1")).name, "other.docx");
  },
);

domainTest(
  "folders above a locked document stay put; other folders and owners do not",
  async (d) => {
    const alice = await newUser(d, "alice");
    const outer = await newFolder(d, alice, "Outer");
    const inner = await newFolder(d, alice, "Inner", outer.rs);
    const sibling = await newFolder(d, alice, "Sibling");
    const doc = await newFile(d, alice, "plan.docx", "v1", inner.rs);
    // Bob's locked document says nothing about alice's folders.
    const bob = await newUser(d, "bob");
    await officeLock(d, (await newFile(d, bob, "b.docx", "b")).rs, "bob-editor");
    await officeLock(d, doc.rs, "editor-1");

    for (const folder of [outer, inner]) {
      const actorSeq = alice.userSeq;
      await assertFails(
        renameResource(d, { rs: folder.rs, name: "R", onConflict: "fail", actorSeq }),
        "RESOURCE_010",
      );
      await assertFails(
        moveResource(d, { rs: folder.rs, destParentRs: sibling.rs, actorSeq }),
        "RESOURCE_010",
      );
      await assertFails(trashResource(d, { rs: folder.rs, actorSeq }), "RESOURCE_010");
    }
    const stayed = await getResource(d.kv, outer.rs);
    assert.deepEqual([stayed?.name, stayed?.parentRs, stayed?.trashedAt], ["Outer", null, null]);

    // A folder without the document may change, even move into the locked tree.
    await renameResource(d, {
      rs: sibling.rs,
      name: "Free",
      onConflict: "fail",
      actorSeq: alice.userSeq,
    });
    await moveResource(d, { rs: sibling.rs, destParentRs: inner.rs, actorSeq: alice.userSeq });
    // The lock holder itself may rename the folder it edits in.
    await renameResource(d, {
      rs: inner.rs,
      name: "Inner 2",
      onConflict: "fail",
      actorSeq: alice.userSeq,
      lockOwner: "editor-1",
    });

    await releaseLock(d.kv, doc.rs, "editor-1");
    await moveResource(d, { rs: outer.rs, destParentRs: null, actorSeq: alice.userSeq });
    await trashResource(d, { rs: outer.rs, actorSeq: alice.userSeq });
  },
);

domainTest("a folder is free again once the lease inside it runs out", async (d) => {
  const alice = await newUser(d, "alice");
  const folder = await newFolder(d, alice, "Docs");
  const doc = await newFile(d, alice, "plan.docx", "v1", folder.rs);
  // Long enough to still hold at the first rename on a busy machine.
  const lease = 300;
  await officeLock(d, doc.rs, "editor-1", lease);
  const rename = (name: string) =>
    renameResource(d, { rs: folder.rs, name, onConflict: "fail", actorSeq: alice.userSeq });
  await assertFails(rename("Locked"), "RESOURCE_010");
  await pause(lease + 20);
  assert.equal((await rename("Free")).name, "Free");
});

domainTest("a document in a trashed folder, or trashed itself, cannot be locked", async (d) => {
  const alice = await newUser(d, "alice");
  const folder = await newFolder(d, alice, "Old");
  const inside = await newFile(d, alice, "in.docx", "x", folder.rs);
  const loose = await newFile(d, alice, "loose.docx", "x");
  await trashResource(d, { rs: folder.rs, actorSeq: alice.userSeq });
  await trashResource(d, { rs: loose.rs, actorSeq: alice.userSeq });
  await assertFails(officeLock(d, inside.rs, "editor-1"), "RESOURCE_002");
  await assertFails(officeLock(d, loose.rs, "editor-1"), "RESOURCE_002");
  assert.deepEqual(await listLocks(d.kv), []);
});

domainTest("the administrator releases any live lock, and the release is recorded", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const folder = await newFolder(d, alice, "Docs");
  const inFolder = await newFile(d, alice, "in.docx", "v1", folder.rs);
  const lock = await acquireLock(d.kv, {
    rs: doc.rs,
    owner: "provider:host:o1",
    source: "provider",
    holder: "host",
    ttlMs: null,
  });
  await officeLock(d, inFolder.rs, "editor-1");
  const release = await forceReleaseLock(d.kv, doc.rs, "admin-console");
  assert.deepEqual(release?.lock, lock);
  assert.equal(release?.releasedBy, "admin-console");
  assert.equal(await getLock(d.kv, doc.rs), null);
  assert.deepEqual(await listLockReleases(d.kv), [release]);
  assert.equal(await forceReleaseLock(d.kv, doc.rs, "admin-console"), null, "nothing to release");
  // Released, the document and its folder are writable by anyone again.
  await save(d, alice, doc.rs, null, "v2");
  await assertFails(trashResource(d, { rs: folder.rs, actorSeq: alice.userSeq }), "RESOURCE_010");
  await forceReleaseLock(d.kv, inFolder.rs, "admin-console");
  await trashResource(d, { rs: folder.rs, actorSeq: alice.userSeq });
  assert.equal((await listLockReleases(d.kv)).length, 2);
});

domainTest("of editors racing for one document exactly one gets the lock", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const won = await raceWinners(
    Array.from({ length: 6 }, (_, i) => officeLock(d, doc.rs, `editor-${i}`)),
    "RESOURCE_010",
  );
  assert.equal(won.length, 1);
  assert.equal((await getLock(d.kv, doc.rs))?.owner, won[0].owner);
});

/** The lock events not yet sequenced, in commit order (each commit's events in their order). */
async function lockEvents(d: Deps): Promise<DriveEvent[]> {
  const entries = await Array.fromAsync(d.kv.list<DriveEvent>({ prefix: eventPendingKey() }));
  entries.sort((a, b) =>
    a.versionstamp.localeCompare(b.versionstamp) || (a.key[2] as number) - (b.key[2] as number)
  );
  return entries.map((e) => e.value).filter((e) => e.kind === "locked" || e.kind === "unlocked");
}

domainTest("an ended lease is released once by the sweep, with an unlocked event", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const live = await newFile(d, alice, "live.docx", "v1");
  const ended = await officeLock(d, doc.rs, "editor-1", 20);
  await officeLock(d, live.rs, "editor-2", 60_000);
  await pause(40);
  assert.equal(await releaseExpiredLocks(d.kv), 1);
  assert.equal((await lockEntryFor(d.kv, doc.rs)).value, null, "the record is gone");
  assert.notEqual(await getLock(d.kv, live.rs), null, "a live lease is kept");
  const unlocked = (await lockEvents(d)).filter((e) => e.kind === "unlocked");
  assert.equal(unlocked.length, 1);
  assert.equal(unlocked[0].resource?.rs, doc.rs);
  assert.deepEqual(unlocked[0].detail, {
    source: "office",
    holder: "editor-1",
    reason: "expired",
    expiredAt: ended.expiresAt!,
  });
  assert.deepEqual(unlocked[0].actor, { userSeq: null });
  // Reported once: another pass finds nothing to release.
  assert.equal(await releaseExpiredLocks(d.kv), 0);
  assert.equal((await lockEvents(d)).filter((e) => e.kind === "unlocked").length, 1);
});

domainTest("a new lock over an ended lease reports the old one's end first", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  await officeLock(d, doc.rs, "editor-1", 20);
  await pause(40);
  await officeLock(d, doc.rs, "editor-2");
  const events = await lockEvents(d);
  assert.deepEqual(
    events.map((e) => `${e.kind}:${e.detail?.holder}:${e.detail?.reason ?? ""}`),
    ["locked:editor-1:", "unlocked:editor-1:expired", "locked:editor-2:"],
  );
  // The holder releasing its ended lease reports the expiry too, once.
  const other = await newFile(d, alice, "other.docx", "v1");
  await officeLock(d, other.rs, "editor-3", 20);
  await pause(40);
  await releaseLock(d.kv, other.rs, "editor-3");
  await releaseLock(d.kv, other.rs, "editor-3");
  assert.equal(await releaseExpiredLocks(d.kv), 0);
  const reasons = (await lockEvents(d)).filter((e) => e.resource?.rs === other.rs)
    .map((e) => `${e.kind}:${e.detail?.reason ?? ""}`);
  assert.deepEqual(reasons, ["locked:", "unlocked:expired"]);
  // A release by the holder says so.
  await releaseLock(d.kv, doc.rs, "editor-2");
  assert.equal((await lockEvents(d)).at(-1)?.detail?.reason, "released");
});
