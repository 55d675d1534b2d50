/**
 * The change feed and share changes beyond creating and removing a share, over HTTP against two
 * processes on one KV file: recipients who keep access see permission changes (and are named
 * when theirs changed), and a link opened by a signed-in user reports access_gained, its
 * removal access_lost (docs/changes.md "What a caller sees").
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { type ChangeItem, cursorOf, drain, readUntil, withTwoProcesses } from "./helpers.ts";

const flags = (on: string[]) =>
  Object.fromEntries(["cv", "ce", "cd", "cu", "cs"].map((k) => [k, k === "cv" || on.includes(k)]));

const shareKinds = (items: ChangeItem[]) =>
  items.filter((c: ChangeItem) => c.share).map((c: ChangeItem) => c.kind);

Deno.test("recipients who keep access see share changes, named when their permissions change", async () => {
  await withTwoProcesses(async ({ onB, newUser }) => {
    const alice = await newUser("alice");
    const bob = await newUser("bob");
    const carol = await newUser("carol");
    const dave = await newUser("dave");
    const folder = await alice.newFolder("Team");
    const share = await alice.newShare({
      rs: folder,
      st: "SPECIFIC_USERS",
      ts: [{ us: bob.userSeq, ...flags([]) }, { us: carol.userSeq, ...flags(["cd"]) }],
    });
    const at = await Promise.all([bob, carol, dave, alice].map(cursorOf));

    // Bob's permissions grow; carol's stay (recipients_changed), made on B.
    const grow = await onB(alice).call("PUT", `/shares/${share.shareSeq}/targets`, {
      ts: [{ us: bob.userSeq, ...flags(["ce"]) }, { us: carol.userSeq, ...flags(["cd"]) }],
    });
    assert.equal(grow.status, 200, JSON.stringify(grow.body));
    // The share itself loses download: carol's permissions shrink, bob's (no cd) do not.
    const shrink = await onB(alice).call("PATCH", `/shares/${share.shareSeq}`, {
      st: "SPECIFIC_USERS",
      cd: false,
    });
    assert.equal(shrink.status, 200, JSON.stringify(shrink.body));

    const done = (items: ChangeItem[]) => items.length >= 2;
    const [bobs, carols] = await Promise.all([
      readUntil(bob, at[0], done),
      readUntil(carol, at[1], done),
    ]);
    for (const [who, items] of [[bob, bobs], [carol, carols]] as const) {
      assert.deepEqual(shareKinds(items), ["recipients_changed", "share_changed"], who.accountId);
      for (const c of items) {
        assert.equal(c.resource.rs, folder);
        assert.equal(c.share.shareSeq, share.shareSeq);
        assert.deepEqual([...c.share.kept].sort(), [bob.userSeq, carol.userSeq].sort());
        assert.deepEqual(c.share.gained, []);
        assert.deepEqual(c.share.lost, []);
      }
    }
    // share.changed names whose permissions changed: bob's grew, then carol's shrank.
    assert.deepEqual(bobs.map((c: ChangeItem) => c.share.changed), [[bob.userSeq], [
      carol.userSeq,
    ]]);
    assert.deepEqual(
      carols.map((c: ChangeItem) => c.share.changed),
      bobs.map((c: ChangeItem) => c.share.changed),
    );
    // Nothing for a user who is no recipient; the owner sees both as her own changes.
    assert.deepEqual((await drain(dave, at[2])).items, []);
    assert.deepEqual(shareKinds((await drain(alice, at[3])).items), [
      "recipients_changed",
      "share_changed",
    ]);

    // Removing carol: she loses access, bob keeps it and sees the change.
    const drop = await alice.call("PUT", `/shares/${share.shareSeq}/targets`, {
      ts: [{ us: bob.userSeq, ...flags(["ce"]) }],
    });
    assert.equal(drop.status, 200, JSON.stringify(drop.body));
    const lastBob = bobs[bobs.length - 1].cursor;
    const lastCarol = carols[carols.length - 1].cursor;
    const [bobNext, carolNext] = await Promise.all([
      readUntil(bob, lastBob, (it) => it.length >= 1),
      readUntil(carol, lastCarol, (it) => it.length >= 1),
    ]);
    assert.deepEqual(bobNext.map((c: ChangeItem) => c.kind), ["recipients_changed"]);
    assert.deepEqual(bobNext[0].share.changed, []);
    assert.deepEqual(carolNext.map((c: ChangeItem) => c.kind), ["access_lost"]);
  });
});

Deno.test("opening an ORG or PUBLIC link reports access_gained once; removing it access_lost", async () => {
  await withTwoProcesses(async ({ a, onB, newUser }) => {
    const alice = await newUser("alice");
    const bob = await newApiUser(a, "bob", { tenantId: alice.tenantId });
    const carol = await newUser("carol");
    const orgFolder = await alice.newFolder("Org wide");
    const publicFolder = await alice.newFolder("Public");
    const tokenOf = (share: { linkUrl: string }) =>
      new URL(share.linkUrl).pathname.split("/").pop();
    const org = await alice.newShare({ rs: orgFolder, st: "ORG_LINK", ...flags(["cd"]) });
    const pub = await alice.newShare({ rs: publicFolder, st: "PUBLIC_LINK", ...flags([]) });
    const [bobAt, carolAt, aliceAt] = await Promise.all([bob, carol, alice].map(cursorOf));

    // Bob (same tenant) opens the org link on B, twice; carol opens the public link on A.
    for (let i = 0; i < 2; i++) {
      const opened = await onB(bob).call("GET", `/shares/link/${tokenOf(org)}`);
      assert.equal(opened.status, 200, JSON.stringify(opened.body));
    }
    const opened = await carol.call("GET", `/shares/link/${tokenOf(pub)}`);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));

    const bobGained = await readUntil(bob, bobAt, (it) => it.length >= 1);
    const carolGained = await readUntil(carol, carolAt, (it) => it.length >= 1);
    assert.deepEqual(bobGained.map((c: ChangeItem) => `${c.kind}:${c.resource.rs}`), [
      `access_gained:${orgFolder}`,
    ]);
    assert.equal(bobGained[0].share.shareSeq, org.shareSeq);
    assert.equal(bobGained[0].share.type, "ORG_LINK");
    assert.deepEqual(carolGained.map((c: ChangeItem) => `${c.kind}:${c.resource.rs}`), [
      `access_gained:${publicFolder}`,
    ]);
    // The resource is in their shared-with-me list, as the event says.
    const listed = await bob.call("GET", "/shared?ps=10");
    assert.deepEqual(listed.body.data.items.map((i: { resourceSeq: number }) => i.resourceSeq), [
      orgFolder,
    ]);
    // The owner sees who joined through her links.
    const own = (await drain(alice, aliceAt)).items;
    assert.deepEqual(
      own.map((c: ChangeItem) => `${c.kind}:${c.share.gained.join()}`).sort(),
      [`link_joined:${bob.userSeq}`, `link_joined:${carol.userSeq}`].sort(),
    );

    // The links go: a type change for one, removal for the other (made on B).
    const changed = await onB(alice).call("PATCH", `/shares/${org.shareSeq}`, {
      st: "SPECIFIC_USERS",
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    const removed = await onB(alice).call("DELETE", `/shares/${pub.shareSeq}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    const bobLost = await readUntil(bob, bobGained[0].cursor, (it) => it.length >= 1);
    const carolLost = await readUntil(carol, carolGained[0].cursor, (it) => it.length >= 1);
    assert.deepEqual(bobLost.map((c: ChangeItem) => `${c.kind}:${c.resource.rs}`), [
      `access_lost:${orgFolder}`,
    ]);
    assert.deepEqual(carolLost.map((c: ChangeItem) => `${c.kind}:${c.resource.rs}`), [
      `access_lost:${publicFolder}`,
    ]);
  });
});
