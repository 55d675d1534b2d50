/**
 * The page's side of the preview: which file of the listing is open (by seq, reset when the view
 * changes), opening it, and the overlay to render. A hook, so the file browser needs one line to
 * hold it and one to render it.
 */
import { useEffect, useState } from "preact/hooks";
import type { Row } from "../drive/api.ts";
import type { Listing } from "../drive/listing.ts";
import { PreviewOverlay } from "./overlay.tsx";

/**
 * `onShow` hears the index of each file shown (the list follows it, so closing lands on the last
 * one shown); `onClose` runs after the overlay closed (the list takes focus back).
 */
export function usePreview(
  listing: Listing,
  onShow: (index: number) => void,
  onClose: () => void,
) {
  const [rs, setRs] = useState<number | null>(null);
  useEffect(() => setRs(null), [listing]);
  const rows = listing.rows.value;
  const show = (index: number) => {
    setRs(rows[index].rs);
    onShow(index);
  };
  return {
    open: (row: Row) => setRs(row.rs),
    view: rs === null ? null : (
      <PreviewOverlay
        rows={rows}
        rs={rs}
        onIndex={show}
        onClose={() => {
          setRs(null);
          onClose();
        }}
      />
    ),
  };
}
