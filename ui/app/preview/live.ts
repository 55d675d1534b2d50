/**
 * Live updates of an open view from the change feed: one long-poll per tab (feed.ts) while the
 * view is open, aborted when it changes; each batch patches the rows in place (live_rows.ts), so
 * the selection (kept by resource seq) and the scroll position stay.
 */
import { useEffect } from "preact/hooks";
import type { Row, SortBy, SortOrder } from "../drive/api.ts";
import type { Listing } from "../drive/listing.ts";
import type { DriveRoute } from "../router.ts";
import { me } from "../store.ts";
import { followChanges } from "./feed.ts";
import { applyToFolder, applyToList } from "./live_rows.ts";

export { reindex } from "./live_rows.ts";

/**
 * Follows the feed while `listing` shows `r` (one long-poll per tab, aborted when the view
 * changes); `onPatched` hears of each change of the rows so the page can keep its active row.
 */
export function useLiveUpdates(
  r: DriveRoute,
  listing: Listing,
  sort: [SortBy, SortOrder],
  onPatched: (before: Row[], after: Row[]) => void,
): void {
  useEffect(() => {
    const userSeq = me.value?.userSeq;
    if (userSeq === undefined) return;
    if (r.view !== "mine" && r.view !== "trash" && r.view !== "shared") return;
    const here = { folder: r.folder ?? null, owner: r.ss ?? userSeq };
    const abort = new AbortController();
    followChanges(abort.signal, (changes) => {
      const before = listing.rows.value;
      const after = r.view === "mine"
        ? applyToFolder(before, changes, here, sort, listing.done.value, r.ss)
        : applyToList(before, changes, r.view as "trash" | "shared");
      if (after === before) return;
      listing.rows.value = after;
      onPatched(before, after);
    });
    return () => abort.abort();
  }, [listing]);
}
