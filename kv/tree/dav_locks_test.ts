/**
 * WebDAV locks in the one lock record: exclusive and shared, depth infinity covering a folder's
 * subtree (found through the folders above), refresh, release by token, and the other surfaces
 * (editor, storage provider) refusing and refused.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import type { User } from "../identity/users.ts";
import { assertFails, domainTest, newFile, newFolder, newUser, raceWinners } from "../testing.ts";
import { putContent } from "./content.ts";
import {
  chainOf,
  type DavLockInput,
  everLocked,
  findDavLock,
  type LockChain,
  locksApplying,
  refreshDavLock,
  releaseDavLock,
  releaseDavLocksOn,
  takeDavLock,
} from "./dav_locks.ts";
import { acquireLock, getLock, listLocks, type LockOwner, releaseExpiredLocks } from "./locks.ts";
import { renameResource } from "./moves.ts";

function davLock(d: Deps, user: User, rs: number, more: Partial<DavLockInput> = {}) {
  return takeDavLock(d.kv, {
    rs,
    scope: "exclusive",
    depth: 0,
    ownerXml: "<href>mailto:a@example.com</href>",
    userSeq: user.userSeq,
    holder: user.accountId,
    timeoutS: 3600,
    ...more,
  });
}

const chain = async (d: Deps, rs: number) => (await chainOf(d.kv, rs)) as LockChain;

function save(d: Deps, user: User, rs: number, lockOwner: LockOwner) {
  return putContent(d, {
    rs,
    mode: "version",
    reason: "save",
    actorSeq: user.userSeq,
    lockOwner,
    body: ReadableStream.from([new TextEncoder().encode("v2")]),
    quotaCode: "RESOURCE_015",
  });
}

domainTest("an exclusive lock keeps out every other lock, of any surface", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const lock = await davLock(d, alice, doc.rs);
  assert.match(lock.token, /^urn:uuid:[0-9a-f-]{36}$/);
  const record = await getLock(d.kv, doc.rs);
  assert.equal(record?.source, "webdav");
  assert.equal(record?.holder, "alice");
  assert.deepEqual(record?.dav, [lock]);
  await assertFails(davLock(d, alice, doc.rs), "RESOURCE_010");
  await assertFails(davLock(d, alice, doc.rs, { scope: "shared" }), "RESOURCE_010");
  await assertFails(
    acquireLock(d.kv, { rs: doc.rs, owner: "editor", source: "office", holder: "1", ttlMs: 1e4 }),
    "RESOURCE_010",
  );
  // A write without the token is refused; with a LockOwner accepting it, it goes through.
  await assertFails(save(d, alice, doc.rs, null), "RESOURCE_010");
  await save(d, alice, doc.rs, (l) => l.dav?.some((x) => x.token === lock.token) ?? false);
});

domainTest("an editor's or provider's lock keeps WebDAV out", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  await acquireLock(d.kv, { rs: doc.rs, owner: "p", source: "provider", holder: "a", ttlMs: null });
  await assertFails(davLock(d, alice, doc.rs, { scope: "shared" }), "RESOURCE_010");
  const held = await locksApplying(d.kv, await chain(d, doc.rs));
  assert.deepEqual(held.map((h) => [h.record.source, h.dav]), [["provider", null]]);
});

domainTest("shared locks sit together; each is released by its own token", async (d) => {
  const alice = await newUser(d, "alice");
  const bob = await newUser(d, "bob");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const a = await davLock(d, alice, doc.rs, { scope: "shared" });
  const b = await davLock(d, bob, doc.rs, { scope: "shared", ownerXml: "" });
  assert.deepEqual((await getLock(d.kv, doc.rs))?.dav?.map((l) => l.token), [a.token, b.token]);
  await assertFails(davLock(d, bob, doc.rs), "RESOURCE_010");
  const c = await chain(d, doc.rs);
  assert.equal(await releaseDavLock(d.kv, c, "urn:uuid:not-a-lock"), false);
  assert.equal(await releaseDavLock(d.kv, c, a.token), true);
  assert.deepEqual((await getLock(d.kv, doc.rs))?.dav, [b]);
  assert.equal(await releaseDavLock(d.kv, c, b.token), true);
  assert.equal(await getLock(d.kv, doc.rs), null);
  assert.deepEqual(await listLocks(d.kv), []);
});

domainTest("a depth-infinity lock on a folder covers everything below it", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const mid = await newFolder(d, alice, "Mid", top.rs);
  const doc = await newFile(d, alice, "deep.txt", "v1", mid.rs);
  const lock = await davLock(d, alice, top.rs, { depth: "infinity" });
  const held = await locksApplying(d.kv, await chain(d, doc.rs));
  assert.deepEqual(held.map((h) => [h.rs, h.dav?.token]), [[top.rs, lock.token]]);
  // An unmapped URL inside is covered too (a new member of a covered folder).
  const unmapped = await locksApplying(d.kv, { self: null, ancestors: [mid.rs, top.rs] }, true);
  assert.equal(unmapped.length, 1);
  // Other surfaces cannot lock a document below it.
  await assertFails(
    acquireLock(d.kv, { rs: doc.rs, owner: "e", source: "office", holder: "1", ttlMs: 1e4 }),
    "RESOURCE_010",
  );
  await assertFails(davLock(d, alice, doc.rs), "RESOURCE_010");
  // Refresh and release work through a member's chain (the lock is found above it).
  const found = await findDavLock(d.kv, await chain(d, doc.rs), lock.token);
  assert.equal(found?.rs, top.rs);
  assert.equal(await releaseDavLock(d.kv, await chain(d, doc.rs), lock.token), true);
  await davLock(d, alice, doc.rs);
});

domainTest("a depth-0 lock on a folder covers its membership, not the members", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const doc = await newFile(d, alice, "a.txt", "v1", top.rs);
  await davLock(d, alice, top.rs, { depth: 0 });
  assert.deepEqual(await locksApplying(d.kv, await chain(d, doc.rs)), []);
  assert.equal((await locksApplying(d.kv, await chain(d, doc.rs), true)).length, 1);
});

domainTest("a depth-infinity lock is refused over a lock already held inside", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const mid = await newFolder(d, alice, "Mid", top.rs);
  const doc = await newFile(d, alice, "deep.txt", "v1", mid.rs);
  await acquireLock(d.kv, { rs: doc.rs, owner: "e", source: "office", holder: "1", ttlMs: 1e4 });
  await assertFails(davLock(d, alice, top.rs, { depth: "infinity" }), "RESOURCE_010");
  await davLock(d, alice, top.rs, { depth: 0 });
});

domainTest("concurrent depth-infinity and member locks: one wins", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const doc = await newFile(d, alice, "a.txt", "v1", top.rs);
  const winners = await raceWinners<unknown>([
    davLock(d, alice, top.rs, { depth: "infinity" }),
    davLock(d, alice, doc.rs),
    acquireLock(d.kv, { rs: doc.rs, owner: "e", source: "office", holder: "1", ttlMs: 1e4 }),
  ], "RESOURCE_010");
  assert.equal(winners.length, 1);
});

domainTest("refresh sets a new timeout; an ended lock is no lock and is swept", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "plan.docx", "v1");
  const lock = await davLock(d, alice, doc.rs, { timeoutS: 60 });
  const c = await chain(d, doc.rs);
  const renewed = await refreshDavLock(d.kv, c, lock.token, 600);
  assert.ok(renewed && renewed.lock.expiresAt > lock.expiresAt && renewed.lock.timeoutS === 600);
  assert.equal(await refreshDavLock(d.kv, c, "urn:uuid:other", 600), null);
  assert.equal(await releaseExpiredLocks(d.kv, renewed.lock.expiresAt + 1), 1);
  assert.equal(await getLock(d.kv, doc.rs), null);
  await davLock(d, alice, doc.rs);
});

domainTest("a folder holding a WebDAV-locked document stays put for others", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const doc = await newFile(d, alice, "a.txt", "v1", top.rs);
  const lock = await davLock(d, alice, doc.rs);
  const rename = (lockOwner: LockOwner) =>
    renameResource(d, {
      rs: top.rs,
      name: "Renamed",
      onConflict: "fail",
      actorSeq: alice.userSeq,
      lockOwner,
    });
  await assertFails(rename(null), "RESOURCE_010");
  await rename((l) => l.dav?.some((x) => x.token === lock.token) ?? false);
});

domainTest("releaseDavLocksOn ends WebDAV locks only", async (d) => {
  const alice = await newUser(d, "alice");
  const a = await newFile(d, alice, "a.txt", "v1");
  const b = await newFile(d, alice, "b.txt", "v1");
  await davLock(d, alice, a.rs, { scope: "shared" });
  await davLock(d, alice, a.rs, { scope: "shared" });
  await acquireLock(d.kv, { rs: b.rs, owner: "e", source: "office", holder: "1", ttlMs: 1e4 });
  await releaseDavLocksOn(d.kv, a.rs);
  await releaseDavLocksOn(d.kv, b.rs);
  assert.equal(await getLock(d.kv, a.rs), null);
  assert.equal((await getLock(d.kv, b.rs))?.source, "office");
});

domainTest("a folder's depth-infinity lock refuses other surfaces' writes below it", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const mid = await newFolder(d, alice, "Mid", top.rs);
  const doc = await newFile(d, alice, "deep.txt", "v1", mid.rs);
  const lock = await davLock(d, alice, top.rs, { depth: "infinity" });
  await assertFails(save(d, alice, doc.rs, null), "RESOURCE_010");
  await assertFails(save(d, alice, doc.rs, "provider:host:session"), "RESOURCE_010");
  await save(d, alice, doc.rs, (l) => l.dav?.some((x) => x.token === lock.token) ?? false);
  // A drive without any lock is written as before.
  const bob = await newUser(d, "bob");
  const free = await newFile(d, bob, "free.txt", "v1", (await newFolder(d, bob, "F")).rs);
  await save(d, bob, free.rs, null);
});

domainTest("everLocked: false until the owner's first lock, then for good", async (d) => {
  const alice = await newUser(d, "alice");
  const doc = await newFile(d, alice, "a.txt", "v1");
  assert.equal(await everLocked(d.kv, alice.userSeq), false);
  const lock = await davLock(d, alice, doc.rs);
  await releaseDavLock(d.kv, await chain(d, doc.rs), lock.token);
  // Released, but a lock taken meanwhile elsewhere could not be told apart: it stays true.
  assert.equal(await everLocked(d.kv, alice.userSeq), true);
});

domainTest("releaseDavLocksOn a folder ends the WebDAV locks inside it too", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const inner = await newFile(d, alice, "in.txt", "v1", top.rs);
  const edited = await newFile(d, alice, "edited.txt", "v1", top.rs);
  await davLock(d, alice, inner.rs);
  await acquireLock(d.kv, { rs: edited.rs, owner: "e", source: "office", holder: "1", ttlMs: 1e4 });
  await releaseDavLocksOn(d.kv, top.rs);
  assert.equal(await getLock(d.kv, inner.rs), null);
  assert.equal((await getLock(d.kv, edited.rs))?.source, "office");
});
