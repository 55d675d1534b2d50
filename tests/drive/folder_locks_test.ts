/**
 * A folder holding a locked document stays where it is: the drive API's rename, move and delete
 * of any folder above the document answer RESOURCE_010, the provider's rename and delete of such
 * a directory 409, until the lock is released or its lease runs out; and a lock racing a folder
 * change never leaves the document moved or trashed under its lock.
 */
import assert from "node:assert/strict";
import { isDriveError } from "../../kv/errors.ts";
import { moveResource, trashResource } from "../../kv/tree/moves.ts";
import { getLock, indexLocksByOwner, lockEntryFor, releaseLock } from "../../kv/tree/locks.ts";
import { findChildByName, getResource, getResourceEntry } from "../../kv/tree/resources.ts";
import { withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { newProviderAdapter } from "../helpers/provider.ts";
import { lockAsOffice } from "../helpers/domain.ts";
import type { JsonResponse } from "../helpers/http.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function officeLock(user: ApiUser, rs: number, op: "lock" | "unlock" = "lock") {
  const qs = new URLSearchParams({ docId: `${user.userSeq}-${rs}`, app: "WORD_EDITOR" });
  return user.fetch(`/web-office/${user.userSeq}/${op}?${qs}`, { method: "POST" });
}

function assertLocked(res: JsonResponse, what: string) {
  assert.equal(res.status, 409, `${what}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.errorCode, "RESOURCE_010", what);
}

Deno.test("Folders above a locked document refuse rename, move and delete (RESOURCE_010); others and the unlocked tree do not", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const outer = await alice.newFolder("Outer");
    const inner = await alice.newFolder("Inner", outer);
    const sibling = await alice.newFolder("Sibling");
    const doc = await alice.newFile("plan.docx", "draft", inner);
    // Another user's locked document says nothing about alice's folders.
    const bob = await newApiUser(server, "bob");
    const bobDoc = await bob.newFile("b.docx", "b");
    assert.equal((await officeLock(bob, bobDoc)).status, 200);

    assert.equal((await officeLock(alice, doc)).status, 200);
    for (const folder of [outer, inner]) {
      assertLocked(
        await alice.call("PATCH", `/folders/${folder}/rename`, { rn: `R${folder}` }),
        `rename ${folder}`,
      );
      assertLocked(
        await alice.call("POST", `/folders/${folder}/move`, { pfs: sibling }),
        `move ${folder}`,
      );
      assertLocked(
        await alice.call("PATCH", `/folders/${folder}/delete`),
        `delete ${folder}`,
      );
    }
    const inOuter = (await getResource(server.kv, outer))!;
    assert.equal(inOuter.name, "Outer");
    assert.equal(inOuter.parentRs, null);
    assert.equal(inOuter.trashedAt, null);
    assert.equal((await getResource(server.kv, inner))!.parentRs, outer);

    // The sibling is free, and may even move into the locked tree (the document stays put).
    const renamed = await alice.call("PATCH", `/folders/${sibling}/rename`, { rn: "Free" });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const moved = await alice.call("POST", `/folders/${sibling}/move`, { pfs: inner });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));

    assert.equal((await officeLock(alice, doc, "unlock")).status, 200);
    const after = await alice.call("PATCH", `/folders/${inner}/rename`, { rn: "Renamed" });
    assert.equal(after.status, 200, JSON.stringify(after.body));
    const trashed = await alice.call("PATCH", `/folders/${outer}/delete`);
    assert.equal(trashed.status, 200, JSON.stringify(trashed.body));
  });
});

Deno.test("An expired editor lease no longer holds its folders", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("F");
    const doc = await alice.newFile("d.docx", "d", folder);
    await lockAsOffice(server.kv, doc, alice.userSeq, "alice", 30);
    assertLocked(await alice.call("PATCH", `/folders/${folder}/rename`, { rn: "G" }), "live");
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(await getLock(server.kv, doc), null);
    const res = await alice.call("PATCH", `/folders/${folder}/rename`, { rn: "G" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
});

Deno.test("Provider: renaming a directory that holds a locked document is 409, whichever protocol took the lock", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "dirs");
    const c = ad.client;
    assert.ok((await c.mkdir([], "Team")).ok);
    assert.ok((await c.mkdir(["Team"], "Q1")).ok);
    assert.ok((await c.put(["Team", "Q1", "r.docx"], enc("v1"))).ok);
    assert.ok((await c.lock(["Team", "Q1", "r.docx"], "session-1")).ok);
    assert.equal((await c.rename(["Team"], "Group")).status, 409);
    assert.equal((await c.rename(["Team", "Q1"], "Q2")).status, 409);
    // The host's next save still finds its document where it locked it.
    assert.ok((await c.put(["Team", "Q1", "r.docx"], enc("v2"))).ok);
    assert.ok((await c.unlock(["Team", "Q1", "r.docx"], "session-1")).ok);
    assert.ok((await c.rename(["Team"], "Group")).ok);

    // A lock taken through the drive's editor sessions holds the provider's directory as well.
    const group = (await findChildByName(server.kv, ad.userSeq, null, "Group"))!;
    const q1 = (await findChildByName(server.kv, ad.userSeq, group.rs, "Q1"))!;
    const rs = (await findChildByName(server.kv, ad.userSeq, q1.rs, "r.docx"))!.rs;
    await lockAsOffice(server.kv, rs, ad.userSeq, "someone", 60_000);
    assert.equal((await c.rename(["Group", "Q1"], "Q3")).status, 409);
    await releaseLock(server.kv, rs, `office:${ad.userSeq}`);
    assert.ok((await c.rename(["Group", "Q1"], "Q3")).ok);
  });
});

Deno.test("A lock racing a folder delete or move: never both with the document moved or trashed under its lock", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const target = await alice.newFolder("Target");
    const outcomes = new Map<string, number>();
    for (let round = 0; round < 70; round++) {
      const folder = await alice.newFolder(`F${round}`);
      const doc = await alice.newFile("d.docx", "d", folder);
      // Each side starts up to 3 ms after the other, sweeping the two commits across each other.
      const jitter = (round >> 1) % 7 - 3;
      const change = pause(Math.max(0, jitter)).then(() =>
        round % 2 === 0
          ? alice.call("PATCH", `/folders/${folder}/delete`)
          : alice.call("POST", `/folders/${folder}/move`, { pfs: target })
      );
      const lockRequest = pause(Math.max(0, -jitter)).then(() => officeLock(alice, doc));
      const [changed, locked] = await Promise.all([change, lockRequest]);
      await locked.body?.cancel();
      const key = `${changed.status}/${locked.status}`;
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
      assert.ok(
        !(changed.status === 200 && locked.status === 200 && round % 2 === 0),
        `round ${round}: the folder went to the trash and the lock was granted`,
      );
      const lock = await getLock(server.kv, doc);
      const f = (await getResource(server.kv, folder))!;
      if (changed.status === 200) {
        // The folder changed first; a lock granted after that sees the document where it is now.
        if (round % 2 === 1) assert.equal(f.parentRs, target);
        if (lock) {
          assert.ok(lock.lockedAt >= f.updatedAt, `round ${round}: moved after the lock was taken`);
        }
        if (lock) assert.equal(round % 2, 1, `round ${round}: a lock under a trashed folder`);
      } else {
        assert.equal(changed.status, 409, `round ${round}: ${JSON.stringify(changed.body)}`);
        assert.equal(changed.body.errorCode, "RESOURCE_010");
        assert.ok(lock, `round ${round}: refused for a lock that does not exist`);
        assert.equal(f.parentRs, null);
        assert.equal(f.trashedAt, null);
      }
      if (lock) await releaseLock(server.kv, doc, lock.owner);
    }
    // Both orders must have happened for the race to have been exercised at all.
    assert.ok(outcomes.size >= 2, `only one outcome: ${JSON.stringify([...outcomes])}`);
  });
});

Deno.test("Lock against folder move and delete at every interleaving of their KV round trips: the folder never changes after the lock is in", async () => {
  await withServer(async (server) => {
    const { kv } = server;
    const alice = await newApiUser(server, "alice");
    const target = await alice.newFolder("Target");
    // One KV round trip: the unit by which one side is started later than the other.
    const roundTrips = async (n: number) => {
      for (let i = 0; i < n; i++) await kv.get(["yield"]);
    };
    const seen = new Set<string>();
    for (let round = 0; round < 96; round++) {
      const folder = await alice.newFolder(`F${round}`);
      const doc = await alice.newFile("d.docx", "d", folder);
      const delay = (round >> 2) % 24;
      const lockFirst = round % 2 === 0;
      const trash = (round >> 1) % 2 === 0;
      const change = roundTrips(lockFirst ? delay : 0).then(() =>
        trash
          ? trashResource(server.deps, { rs: folder, actorSeq: alice.userSeq })
          : moveResource(server.deps, { rs: folder, destParentRs: target, actorSeq: alice.userSeq })
      );
      const lock = roundTrips(lockFirst ? 0 : delay).then(() =>
        lockAsOffice(kv, doc, alice.userSeq, "alice", 60_000)
      );
      const [changed, locked] = await Promise.allSettled([change, lock]);
      for (const r of [changed, locked]) {
        if (r.status === "rejected" && !isDriveError(r.reason)) throw r.reason;
      }
      seen.add(`${changed.status}/${locked.status}`);
      const [folderEntry, lockEntry] = await Promise.all([
        getResourceEntry(kv, folder),
        lockEntryFor(kv, doc),
      ]);
      if (changed.status === "fulfilled" && lockEntry.value) {
        // Versionstamps order commits: the lock must have come after the folder's change.
        assert.ok(
          lockEntry.versionstamp! > folderEntry.versionstamp!,
          `round ${round}: the folder changed after the lock was taken`,
        );
        assert.ok(!trash, `round ${round}: a lock under a trashed folder`);
      }
      if (changed.status === "rejected") {
        assert.ok(isDriveError(changed.reason, "RESOURCE_010"), String(changed.reason));
        assert.ok(lockEntry.value, `round ${round}: refused for a lock that is not there`);
      }
      if (lockEntry.value) await releaseLock(kv, doc, lockEntry.value.owner);
    }
    assert.ok(seen.size >= 3, `the interleavings were not exercised: ${[...seen]}`);
  });
});

Deno.test("Locks written before they named their owner hold folders once the store starts; released ones stop holding", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("F");
    const doc = await alice.newFile("d.docx", "d", folder);
    // A provider lock as an earlier version stored it: no ownerSeq, no owner index entry.
    await server.kv.set(["lock", doc], {
      rs: doc,
      owner: "provider:old:host-1",
      source: "provider",
      holder: "old",
      lockedAt: Date.now(),
      expiresAt: null,
    });
    const before = await alice.call("PATCH", `/folders/${folder}/rename`, { rn: "G" });
    assert.equal(before.status, 200, "an unindexed lock is invisible to the guard");
    await indexLocksByOwner(server.kv);
    assertLocked(await alice.call("PATCH", `/folders/${folder}/rename`, { rn: "H" }), "indexed");
    assert.equal((await getLock(server.kv, doc))!.ownerSeq, alice.userSeq);

    await releaseLock(server.kv, doc, "provider:old:host-1");
    const after = await alice.call("PATCH", `/folders/${folder}/rename`, { rn: "H" });
    assert.equal(after.status, 200, JSON.stringify(after.body));
    const left = [];
    for await (const e of server.kv.list({ prefix: ["lock_owner", alice.userSeq] })) left.push(e);
    assert.deepEqual(left, [], "the released lock's index entry is dropped");
  });
});
