/**
 * Move rules of the tree (moveResource): never into the moved folder's own subtree, never below
 * a destination nested too deep, never onto a taken name unless told to rename, only into a
 * live folder of the same drive; and moves racing each other still leave a tree (no cycle, every
 * name index entry pointing at its record).
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import type { User } from "../identity/users.ts";
import { assertFails, domainTest, newFile, newFolder, newUser, raceWinners } from "../testing.ts";
import { moveResource, trashResource } from "./moves.ts";
import type { OnNameConflict } from "./placement.ts";
import {
  findChildByName,
  getResource,
  listResourcesOwnedBy,
  MAX_DEPTH,
  type Resource,
} from "./resources.ts";
import { iterateSubtree } from "./listing.ts";

function move(
  d: Deps,
  user: User,
  r: Resource,
  dest: Resource | null,
  onConflict?: OnNameConflict,
) {
  return moveResource(d, {
    rs: r.rs,
    destParentRs: dest?.rs ?? null,
    actorSeq: user.userSeq,
    onConflict,
  });
}

/**
 * Fails unless `owner`'s live resources form a tree: every parent chain reaches the drive root
 * without a repeat, and the name index holds every live resource under its own name.
 */
async function assertTree(d: Deps, owner: User) {
  const all = await listResourcesOwnedBy(d.kv, owner.userSeq);
  const byRs = new Map(all.map((r) => [r.rs, r]));
  for (const r of all.filter((r) => r.trashedAt === null)) {
    const seen = new Set<number>([r.rs]);
    for (let p = r.parentRs; p !== null; p = byRs.get(p)?.parentRs ?? null) {
      assert.ok(!seen.has(p), `a cycle through ${p} above ${r.name}`);
      assert.ok(byRs.has(p), `${r.name} has a missing parent ${p}`);
      seen.add(p);
    }
    assert.equal((await findChildByName(d.kv, owner.userSeq, r.parentRs, r.name))?.rs, r.rs);
  }
}

domainTest("a folder cannot move into itself or anywhere below it (RESOURCE_007)", async (d) => {
  const alice = await newUser(d, "alice");
  const top = await newFolder(d, alice, "Top");
  const child = await newFolder(d, alice, "Child", top.rs);
  const grandchild = await newFolder(d, alice, "Grandchild", child.rs);
  for (const dest of [top, child, grandchild]) {
    await assertFails(move(d, alice, top, dest), "RESOURCE_007", "pfs");
  }
  await assertFails(move(d, alice, child, grandchild), "RESOURCE_007", "pfs");
  assert.equal((await getResource(d.kv, top.rs))?.parentRs, null);
  assert.equal((await getResource(d.kv, child.rs))?.parentRs, top.rs);
  // Up and sideways are fine.
  await move(d, alice, grandchild, top);
  await move(d, alice, child, null);
  await move(d, alice, top, child);
  assert.equal((await getResource(d.kv, top.rs))?.parentRs, child.rs);
  await assertTree(d, alice);
});

domainTest(
  "folders nest at most MAX_DEPTH deep: create and move refuse with RESOURCE_014",
  async (d) => {
    const alice = await newUser(d, "alice");
    let deepest: Resource | null = null;
    for (let depth = 1; depth <= MAX_DEPTH; depth++) {
      deepest = await newFolder(d, alice, `level ${depth}`, deepest?.rs ?? null);
    }
    await assertFails(newFolder(d, alice, "too deep", deepest!.rs), "RESOURCE_014", "pfs");
    // Moved below the deepest folder, a folder would be MAX_DEPTH + 1 deep, as a created one; a
    // file fits there.
    const leaf = await newFolder(d, alice, "Leaf");
    await assertFails(move(d, alice, leaf, deepest), "RESOURCE_014", "pfs");
    assert.equal((await getResource(d.kv, leaf.rs))?.parentRs, null);
    const file = await newFile(d, alice, "f.txt", "x");
    assert.equal((await move(d, alice, file, deepest)).parentRs, deepest!.rs);
  },
);

domainTest(
  "a moved folder takes its subfolders along: refused (RESOURCE_014) when they would nest too deep",
  async (d) => {
    const alice = await newUser(d, "alice");
    const chain: Resource[] = [];
    for (let depth = 1; depth <= MAX_DEPTH - 3; depth++) {
      chain.push(await newFolder(d, alice, `level ${depth}`, chain.at(-1)?.rs ?? null));
    }
    // "Tall" holds three levels of subfolders (and files beside them): four levels with itself.
    const tall = await newFolder(d, alice, "Tall");
    let inner = tall;
    for (const name of ["a", "b", "c"]) {
      await newFile(d, alice, `${name}.txt`, name, inner.rs);
      inner = await newFolder(d, alice, name, inner.rs);
    }
    await newFile(d, alice, "bottom.txt", "bottom", inner.rs);
    const at = (depth: number) => chain[depth - 1];

    // Below level MAX_DEPTH - 3, "c" would be MAX_DEPTH + 1 deep; below MAX_DEPTH - 4 it is
    // MAX_DEPTH deep, which fits.
    await assertFails(move(d, alice, tall, at(MAX_DEPTH - 3)), "RESOURCE_014", "pfs");
    assert.equal((await getResource(d.kv, tall.rs))?.parentRs, null);
    await move(d, alice, tall, at(MAX_DEPTH - 4));
    // Sideways at the same depth needs no look below; one level deeper is refused again.
    const beside = await newFolder(d, alice, "beside", at(MAX_DEPTH - 5).rs);
    await move(d, alice, tall, beside);
    await assertFails(move(d, alice, tall, at(MAX_DEPTH - 3)), "RESOURCE_014", "pfs");
    assert.equal((await getResource(d.kv, tall.rs))?.parentRs, beside.rs);
    // Everything stayed reachable: a walk from the top finds every file of the moved folder,
    // "bottom.txt" included (in "c", MAX_DEPTH deep).
    const files = [];
    for await (const { resource, path } of iterateSubtree(d.kv, at(1))) {
      if (resource.type === "FILE") files.push(path.at(-1));
    }
    assert.deepEqual(files.sort(), ["a.txt", "b.txt", "bottom.txt", "c.txt"]);
    await assertTree(d, alice);
  },
);

domainTest("a move onto a taken name fails (RESOURCE_003) unless it may rename", async (d) => {
  const alice = await newUser(d, "alice");
  const dest = await newFolder(d, alice, "Dest");
  await newFile(d, alice, "a.txt", "in dest", dest.rs);
  await newFolder(d, alice, "Notes", dest.rs);
  const file = await newFile(d, alice, "A.TXT", "at root");
  const folder = await newFolder(d, alice, "notes");
  await assertFails(move(d, alice, file, dest), "RESOURCE_003");
  await assertFails(move(d, alice, folder, dest, "fail"), "RESOURCE_003");
  assert.equal((await getResource(d.kv, file.rs))?.parentRs, null);
  assert.equal((await findChildByName(d.kv, alice.userSeq, null, "a.txt"))?.rs, file.rs);
  const renamed = await move(d, alice, file, dest, "rename");
  assert.deepEqual([renamed.parentRs, renamed.name], [dest.rs, "A (1).TXT"]);
  assert.equal((await move(d, alice, folder, dest, "rename")).name, "notes (1)");
  // Staying in its folder is no move and no conflict.
  assert.equal((await move(d, alice, renamed, dest)).name, "A (1).TXT");
  await assertTree(d, alice);
});

domainTest("a move goes only into a live folder of the same drive", async (d) => {
  const alice = await newUser(d, "alice");
  const bob = await newUser(d, "bob");
  const item = await newFolder(d, alice, "Item");
  const file = await newFile(d, alice, "f.txt", "x");
  const bobs = await newFolder(d, bob, "Bob's");
  const trashed = await newFolder(d, alice, "Trashed");
  const underTrashed = await newFolder(d, alice, "Under", trashed.rs);
  await trashResource(d, { rs: trashed.rs, actorSeq: alice.userSeq });
  await assertFails(move(d, alice, item, file), "RESOURCE_005", "pfs");
  await assertFails(move(d, alice, item, bobs), "RESOURCE_008", "pfs");
  await assertFails(move(d, alice, item, trashed), "RESOURCE_008", "pfs");
  await assertFails(move(d, alice, item, underTrashed), "RESOURCE_008", "pfs");
  await assertFails(
    moveResource(d, { rs: item.rs, destParentRs: 9999, actorSeq: alice.userSeq }),
    "RESOURCE_008",
    "pfs",
  );
  // A trashed item itself is not found.
  await assertFails(move(d, alice, trashed, null), "RESOURCE_002");
  assert.equal((await getResource(d.kv, item.rs))?.parentRs, null);
});

domainTest("two folders moved into each other at once: one move wins, no cycle", async (d) => {
  const alice = await newUser(d, "alice");
  for (let round = 0; round < 10; round++) {
    const a = await newFolder(d, alice, `A${round}`);
    const b = await newFolder(d, alice, `B${round}`);
    const won = await raceWinners([move(d, alice, a, b), move(d, alice, b, a)], "RESOURCE_007");
    assert.equal(won.length, 1, `round ${round}`);
  }
  await assertTree(d, alice);
});

domainTest(
  "a folder moved below its own mover at once: the commit sees the changed chain",
  async (d) => {
    const alice = await newUser(d, "alice");
    for (let round = 0; round < 10; round++) {
      // A goes into B/C while B goes into A: each alone is fine, both make A > C > B > A.
      const a = await newFolder(d, alice, `A${round}`);
      const b = await newFolder(d, alice, `B${round}`);
      const c = await newFolder(d, alice, `C${round}`, b.rs);
      const moves = [() => move(d, alice, a, c), () => move(d, alice, b, a)];
      if (round % 2) moves.reverse();
      const won = await raceWinners(moves.map((m) => m()), "RESOURCE_007");
      assert.equal(won.length, 1, `round ${round}`);
    }
    await assertTree(d, alice);
  },
);

domainTest("a ring of concurrent moves leaves a tree", async (d) => {
  const alice = await newUser(d, "alice");
  const ring = await Promise.all(
    Array.from({ length: 8 }, (_, i) => newFolder(d, alice, `R${i}`)),
  );
  const won = await raceWinners(
    ring.map((r, i) => move(d, alice, r, ring[(i + 1) % ring.length])),
    "RESOURCE_007",
  );
  assert.ok(won.length < ring.length, "closing the ring must fail");
  await assertTree(d, alice);
});

domainTest("same-named items moved into one folder at once: one keeps the name", async (d) => {
  const alice = await newUser(d, "alice");
  const dest = await newFolder(d, alice, "Dest");
  const sources = await Promise.all(
    Array.from({ length: 5 }, (_, i) => newFolder(d, alice, `Src${i}`)),
  );
  const files = await Promise.all(
    sources.map((s, i) => newFile(d, alice, i % 2 ? "report.txt" : "REPORT.txt", "x", s.rs)),
  );
  const won = await raceWinners(files.map((f) => move(d, alice, f, dest)), "RESOURCE_003");
  assert.equal(won.length, 1);
  // With "rename" every one of them lands, each under its own name.
  const rest = files.filter((f) => f.rs !== won[0].rs);
  const renamed = await Promise.all(rest.map((f) => move(d, alice, f, dest, "rename")));
  const names = new Set([...won, ...renamed].map((r) => r.name.toLowerCase()));
  assert.equal(names.size, files.length);
  await assertTree(d, alice);
});
