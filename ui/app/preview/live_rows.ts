/**
 * How the change feed's changes patch the rows of an open view (live.ts follows the feed): a
 * folder gains what is created, copied, restored or moved into it, renames in place, and loses
 * what is moved out, trashed or purged; the Trash gains what is trashed and loses what is
 * restored or purged; Shared with me loses what the user lost access to. A new row that sorts
 * past the loaded pages is left for the page that will bring it. Pure, so tested without a page.
 */
import type { Row, SortBy, SortOrder } from "../drive/api.ts";
import type { Change } from "./feed.ts";

export type Where = { folder: number | null; owner: number };

function compare(sort: [SortBy, SortOrder], a: Row, b: Row): number {
  const by = sort[0] === "size"
    ? a.size - b.size
    : sort[0] === "update"
    ? (a.updatedAt ?? "").localeCompare(b.updatedAt ?? "")
    : a.name.toLowerCase().localeCompare(b.name.toLowerCase());
  return (sort[1] === "desc" ? -by : by) || a.rs - b.rs;
}

/** `rows` with `row` at its sorted place; unchanged when it sorts after the loaded end. */
function insert(rows: Row[], row: Row, sort: [SortBy, SortOrder], done: boolean): Row[] {
  const at = rows.findIndex((r) => compare(sort, row, r) < 0);
  if (at < 0) return done ? [...rows, row] : rows;
  return [...rows.slice(0, at), row, ...rows.slice(at)];
}

const rowOf = (ch: Change, extra: Partial<Row> = {}): Row => ({
  rs: ch.resource!.rs,
  name: ch.resource!.name,
  type: ch.resource!.type,
  size: ch.resource!.size ?? 0,
  updatedAt: new Date(ch.at).toISOString(),
  ...extra,
});

/** The rows of a folder view after `changes`. */
export function applyToFolder(
  rows: Row[],
  changes: Change[],
  here: Where,
  sort: [SortBy, SortOrder],
  done: boolean,
  ss?: number,
): Row[] {
  let out = rows;
  for (const ch of changes) {
    const res = ch.resource;
    if (!res) continue;
    const has = out.some((r) => r.rs === res.rs);
    const inside = res.parentRs === here.folder && res.ownerSeq === here.owner;
    switch (ch.kind) {
      case "created":
      case "copied":
      case "restored":
      case "moved":
      case "renamed":
        if (has && !inside) out = out.filter((r) => r.rs !== res.rs);
        else if (!has && inside) out = insert(out, rowOf(ch, { ss }), sort, done);
        else if (has && out.some((r) => r.rs === res.rs && r.name !== res.name)) {
          out = out.map((r) => r.rs === res.rs ? { ...r, name: res.name } : r);
        }
        break;
      case "content_changed":
        if (has) {
          out = out.map((r) =>
            r.rs === res.rs
              ? { ...r, size: res.size ?? r.size, updatedAt: new Date(ch.at).toISOString() }
              : r
          );
        }
        break;
      case "trashed":
      case "purged":
      case "access_lost":
        if (has) out = out.filter((r) => r.rs !== res.rs);
    }
  }
  return out;
}

/** The rows of the Trash (newest first) or of Shared with me after `changes`. */
export function applyToList(rows: Row[], changes: Change[], view: "trash" | "shared"): Row[] {
  let out = rows;
  for (const ch of changes) {
    const res = ch.resource;
    if (!res) continue;
    const has = out.some((r) => r.rs === res.rs);
    const gone = view === "trash"
      ? ch.kind === "restored" || ch.kind === "purged"
      : ch.kind === "access_lost" || ch.kind === "trashed" || ch.kind === "purged";
    if (gone && has) out = out.filter((r) => r.rs !== res.rs);
    else if (view === "trash" && ch.kind === "trashed" && !has) out = [rowOf(ch), ...out];
    else if (ch.kind === "renamed" && has) {
      out = out.map((r) => r.rs === res.rs ? { ...r, name: res.name } : r);
    }
  }
  return out;
}

/** Where `active` (an index into `before`) is in `after`: the same row, else the nearest. */
export function reindex(active: number, before: Row[], after: Row[]): number {
  if (active < 0 || !before[active]) return Math.min(active, after.length - 1);
  const at = after.findIndex((r) => r.rs === before[active].rs);
  return at >= 0 ? at : Math.min(active, after.length - 1);
}
