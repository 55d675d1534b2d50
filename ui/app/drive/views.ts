/**
 * What each view of the file browser lists (its page source) and is titled, and the download
 * the page starts; kept out of page.tsx so the page holds only its state and layout.
 */
import type { Row, SortBy, SortOrder } from "./api.ts";
import type { PageSource } from "./listing.ts";
import type { DriveRoute } from "../router.ts";
import { drive } from "../store.ts";
import { viewSource } from "./starred.ts";
import type { MessageKey } from "../messages.ts";

export const TITLES: Record<DriveRoute["view"], MessageKey> = {
  mine: "myDrive",
  shared: "shared",
  starred: "vaStarredView",
  recent: "vaRecentView",
  pinned: "pinned",
  trash: "trash",
  search: "searchResults",
};

export function sourceOf(r: DriveRoute, sort: [SortBy, SortOrder]): PageSource {
  const added = viewSource(r, drive);
  if (added) return added;
  switch (r.view) {
    case "shared":
      return (c, ps) => drive.shared(sort, c, Math.min(ps, 100));
    case "pinned":
      return () => drive.pinned();
    case "trash":
      return (c, ps) => drive.trash(c, Math.min(ps, 100));
    case "search":
      return (c, ps) => drive.search(r.q, r.type, c, Math.min(ps, 100));
    default:
      return (c, ps) => drive.list(r.folder, r.ss, sort, c, ps);
  }
}

export function download(url: string): void {
  const a = document.createElement("a");
  a.href = url;
  a.download = "";
  a.click();
}

/** The row of a folder just made here, shown before the listing is read again. */
export const folderRow = (rs: number, name: string): Row => ({
  rs,
  name,
  type: "FOLDER",
  size: 0,
  updatedAt: new Date().toISOString(),
});
