/**
 * The tree shape stamp changes exactly when a folder's place changes (moved, trashed, restored,
 * purged), never for files or renames, so the writes that check it (locks, shares, moves) retry
 * on the changes that matter and only those.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { domainTest, newFile, newFolder, newUser } from "../testing.ts";
import { moveResource, renameResource, trashResource } from "./moves.ts";
import { purgeTrashed, restoreTrashed } from "./trash.ts";
import { changesShape, readTreeShape } from "./tree_shape.ts";

const placed = (type: string, parentRs: number | null, trashedAt: number | null = null) => ({
  type,
  ownerSeq: 1,
  parentRs,
  trashedAt,
});

Deno.test("changesShape: a folder's parent, trash state or drive; never a file or a new folder", () => {
  assert.equal(changesShape(placed("FOLDER", 1), placed("FOLDER", 2)), true);
  assert.equal(changesShape(placed("FOLDER", 1), placed("FOLDER", 1, 5)), true);
  assert.equal(changesShape(placed("FOLDER", 1), { ...placed("FOLDER", 1), ownerSeq: 2 }), true);
  assert.equal(changesShape(placed("FOLDER", 1), null), true);
  assert.equal(changesShape(null, placed("FOLDER", 1)), false);
  assert.equal(changesShape(placed("FOLDER", 1), placed("FOLDER", 1)), false);
  assert.equal(changesShape(placed("FILE", 1), placed("FILE", 2)), false);
  assert.equal(changesShape(placed("FILE", 1), null), false);
});

/** Runs `step` and says whether the owner's stamp changed. */
async function bumps(d: Deps, ownerSeq: number, step: () => Promise<unknown>) {
  const before = (await readTreeShape(d.kv, ownerSeq)).versionstamp;
  await step();
  return (await readTreeShape(d.kv, ownerSeq)).versionstamp !== before;
}

domainTest("the stamp follows folder moves, trash, restore and purge only", async (d) => {
  const ana = await newUser(d, "ana");
  const actorSeq = ana.userSeq;
  const a = await newFolder(d, ana, "a");
  const b = await newFolder(d, ana, "b");
  const file = await newFile(d, ana, "f.txt", "x", a.rs);
  const at = (rs: number, destParentRs: number | null) => () =>
    moveResource(d, { rs, destParentRs, actorSeq });
  assert.equal(await bumps(d, actorSeq, () => newFolder(d, ana, "c", a.rs)), false);
  assert.equal(await bumps(d, actorSeq, at(file.rs, b.rs)), false);
  const rename = () => renameResource(d, { rs: a.rs, name: "a2", onConflict: "fail", actorSeq });
  assert.equal(await bumps(d, actorSeq, rename), false);
  assert.equal(await bumps(d, actorSeq, at(b.rs, a.rs)), true);
  assert.equal(await bumps(d, actorSeq, () => trashResource(d, { rs: a.rs, actorSeq })), true);
  const restore = () => restoreTrashed(d, { ownerSeq: actorSeq, rs: a.rs, actorSeq });
  assert.equal(await bumps(d, actorSeq, restore), true);
  await trashResource(d, { rs: a.rs, actorSeq });
  const purge = () => purgeTrashed(d, { ownerSeq: actorSeq, rs: a.rs, actorSeq });
  assert.equal(await bumps(d, actorSeq, purge), true);
});
