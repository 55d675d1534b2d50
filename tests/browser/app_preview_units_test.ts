/**
 * The preview's and the live updates' pure parts without a browser: the kind of preview by name
 * (ui/app/preview/kinds.ts), next and previous across the files of a listing, and how the change
 * feed's changes patch an open folder, the Trash and Shared with me (ui/app/preview/live_rows.ts).
 */
import assert from "node:assert/strict";
import { previewKind } from "../../ui/app/preview/kinds.ts";
import { applyToFolder, applyToList, reindex } from "../../ui/app/preview/live_rows.ts";
import type { Change } from "../../ui/app/preview/feed.ts";
import type { Row } from "../../ui/app/drive/api.ts";

const file = (rs: number, name: string): Row => ({
  rs,
  name,
  type: "FILE",
  size: 1,
  updatedAt: null,
});
const change = (
  kind: string,
  rs: number,
  name: string,
  parentRs: number | null,
  before?: Change["before"],
): Change => ({
  kind,
  at: 0,
  resource: { rs, type: "FILE", name, parentRs, ownerSeq: 7 },
  before,
});
const names = (rows: Row[]) => rows.map((r) => r.name);
const HERE = { folder: 10, owner: 7 };

Deno.test("preview kinds: by extension, any case; SVG as text; unknown types have none", () => {
  assert.equal(previewKind("Photo.JPG"), "image");
  assert.equal(previewKind("a.pdf"), "pdf");
  assert.equal(previewKind("logo.svg"), "text");
  assert.equal(previewKind("song.mp3"), "audio");
  assert.equal(previewKind("clip.webm"), "video");
  assert.equal(previewKind("letter.docx"), "office");
  assert.equal(previewKind("data.bin"), null);
  assert.equal(previewKind("README"), null);
  assert.equal(previewKind("x.constructor"), null);
});

Deno.test("live: a folder gains, renames and loses rows in sort order, and ignores others", () => {
  const rows = [file(1, "alpha"), file(2, "delta")];
  const sort = ["name", "asc"] as ["name", "asc"];
  const out = applyToFolder(
    rows,
    [
      change("created", 3, "Charlie", 10),
      change("created", 4, "elsewhere", 11),
      change("renamed", 1, "bravo", 10, { name: "alpha", parentRs: 10, ownerSeq: 7 }),
      change("moved", 2, "delta", 11, { name: "delta", parentRs: 10, ownerSeq: 7 }),
      change("moved", 5, "echo", 10, { name: "echo", parentRs: 11, ownerSeq: 7 }),
    ],
    HERE,
    sort,
    true,
  );
  assert.deepEqual(names(out), ["bravo", "Charlie", "echo"]);
  assert.deepEqual(
    names(applyToFolder(out, [change("trashed", 3, "Charlie", 10)], HERE, sort, true)),
    [
      "bravo",
      "echo",
    ],
  );
  // The same change twice (this tab's own rename, then the feed's) changes nothing more.
  assert.equal(applyToFolder(out, [change("created", 3, "Charlie", 10)], HERE, sort, true), out);
  // Past the loaded end of an unfinished listing: left for the next page.
  assert.deepEqual(
    names(applyToFolder(rows, [change("created", 6, "zulu", 10)], HERE, sort, false)),
    ["alpha", "delta"],
  );
});

Deno.test("live: the Trash and Shared with me; the active row follows its row", () => {
  const trash = [file(1, "old")];
  assert.deepEqual(names(applyToList(trash, [change("trashed", 2, "new", 10)], "trash")), [
    "new",
    "old",
  ]);
  assert.deepEqual(names(applyToList(trash, [change("restored", 1, "old", 10)], "trash")), []);
  assert.deepEqual(names(applyToList(trash, [change("access_lost", 1, "old", 10)], "shared")), []);
  const before = [file(1, "a"), file(2, "b")];
  const after = [file(3, "0"), ...before];
  assert.equal(reindex(1, before, after), 2);
  assert.equal(reindex(1, before, [before[0]]), 0);
  assert.equal(reindex(-1, before, after), -1);
});
