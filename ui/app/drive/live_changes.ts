/**
 * What a change of the feed (/changes, docs/changes.md) does to the open folder's loaded rows:
 * pure, so the rules are tested without a browser (live_changes_test.ts). A change to an item
 * now in the folder adds or updates its row; one that took it out (moved, trashed, purged, or
 * renamed into another folder) removes it. Rows of other folders are left alone.
 */
import type { Row, SortBy, SortOrder } from "./api.ts";

/** The fields of a change the folder view reads (api/external/changes.ts ChangeSchema). */
export interface FeedChange {
  kind: string;
  at: number;
  resource?: {
    rs: number;
    type: "FILE" | "FOLDER";
    name: string;
    parentRs: number | null;
    ownerSeq: number;
    size?: number;
  };
  before?: { name: string; parentRs: number | null; ownerSeq: number };
}

/** The open folder: whose drive (owner seq) and which folder (null: the drive root). */
export interface FolderPlace {
  ownerSeq: number;
  folder: number | null;
}

/** Kinds that put an item where `resource` says (or change it there). */
const PLACING = new Set(["created", "copied", "restored", "renamed", "moved", "content_changed"]);
/** Kinds after which the item is gone from every folder. */
const GONE = new Set(["trashed", "purged"]);

/** A name's place in the name index (kv/tree/names.ts nameKeyOf): NFC, lower case. */
const nameKey = (name: string) => name.normalize("NFC").toLowerCase();
const cmp = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;

/** The order the listing API pages in: the sort's index (name, size or modified), then rs. */
export function rowOrder(sort: [SortBy, SortOrder]): (a: Row, b: Row) => number {
  const dir = sort[1] === "desc" ? -1 : 1;
  return (a, b) => {
    const by = sort[0] === "size"
      ? a.size - b.size
      : sort[0] === "update"
      ? cmp(a.updatedAt ?? "", b.updatedAt ?? "")
      : cmp(nameKey(a.name), nameKey(b.name));
    return dir * (by || a.rs - b.rs);
  };
}

/**
 * The rows after `change`. `complete`: every row of the folder is loaded, so a new row always
 * has its place; otherwise a row sorting after the last loaded one is left for a later page.
 */
export function applyChange(
  rows: readonly Row[],
  change: FeedChange,
  place: FolderPlace,
  order: (a: Row, b: Row) => number,
  complete: boolean,
): readonly Row[] {
  const r = change.resource;
  if (!r) return rows;
  const at = rows.findIndex((row) => row.rs === r.rs);
  const here = r.ownerSeq === place.ownerSeq && r.parentRs === place.folder;
  if (GONE.has(change.kind) || (PLACING.has(change.kind) && !here)) {
    return at < 0 ? rows : rows.filter((row) => row.rs !== r.rs);
  }
  if (!PLACING.has(change.kind)) return rows;
  const prev = at >= 0 ? rows[at] : null;
  const row: Row = {
    ...prev,
    rs: r.rs,
    name: r.name,
    type: r.type,
    size: r.size ?? prev?.size ?? 0,
    updatedAt: new Date(change.at).toISOString(),
  };
  const rest = at < 0 ? [...rows] : rows.filter((x) => x.rs !== r.rs);
  const i = rest.findIndex((x) => order(row, x) < 0);
  if (i < 0 && !complete) return rest; // after the loaded rows: a later page brings it
  rest.splice(i < 0 ? rest.length : i, 0, row);
  return rest;
}
