/**
 * The open folder's rows after a change of the feed: added in the listing's order, updated in
 * place, removed when the item left the folder, untouched when the change is elsewhere.
 */
import assert from "node:assert/strict";
import type { Row } from "./api.ts";
import { applyChange, type FeedChange, rowOrder } from "./live_changes.ts";

const place = { ownerSeq: 7, folder: 3 };
const byName = rowOrder(["name", "asc"]);
const row = (rs: number, name: string): Row => ({
  rs,
  name,
  type: "FILE",
  size: 1,
  updatedAt: "2026-01-01T00:00:00.000Z",
});
const rows = [row(1, "apple.txt"), row(2, "Melon.txt"), row(3, "zebra.txt")];
const change = (
  kind: string,
  rs: number,
  name: string,
  parentRs: number | null = 3,
): FeedChange => ({
  kind,
  at: Date.UTC(2026, 5, 1),
  resource: { rs, type: "FILE", name, parentRs, ownerSeq: 7, size: 9 },
});
const names = (r: readonly Row[]) => r.map((x) => x.name);

Deno.test("a new item takes its place in the name order (case-insensitive, as the index)", () => {
  const out = applyChange(rows, change("created", 4, "banana.txt"), place, byName, true);
  assert.deepEqual(names(out), ["apple.txt", "banana.txt", "Melon.txt", "zebra.txt"]);
  assert.equal(out[1].size, 9);
});

Deno.test("a new item past the loaded rows waits for its page unless the listing is complete", () => {
  const late = change("created", 4, "zz.txt");
  assert.deepEqual(names(applyChange(rows, late, place, byName, false)), names(rows));
  assert.deepEqual(names(applyChange(rows, late, place, byName, true)).at(-1), "zz.txt");
});

Deno.test("a rename in the folder moves the row; a move or trash out of it removes it", () => {
  const renamed = applyChange(rows, change("renamed", 1, "yak.txt"), place, byName, true);
  assert.deepEqual(names(renamed), ["Melon.txt", "yak.txt", "zebra.txt"]);
  const moved = applyChange(rows, change("moved", 2, "Melon.txt", 99), place, byName, true);
  assert.deepEqual(names(moved), ["apple.txt", "zebra.txt"]);
  const trashed = applyChange(rows, change("trashed", 3, "zebra.txt"), place, byName, true);
  assert.deepEqual(names(trashed), ["apple.txt", "Melon.txt"]);
});

Deno.test("changes elsewhere, and kinds that place nothing, leave the rows as they are", () => {
  assert.equal(applyChange(rows, change("created", 9, "b.txt", 42), place, byName, true), rows);
  assert.equal(applyChange(rows, change("locked", 1, "apple.txt"), place, byName, true), rows);
  const other = {
    ...change("created", 9, "b.txt"),
    resource: { ...change("created", 9, "b.txt").resource!, ownerSeq: 8 },
  };
  assert.equal(applyChange(rows, other, place, byName, true), rows);
});
