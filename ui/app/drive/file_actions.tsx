/**
 * The selection's move, copy and versions buttons with the dialogs they open (folder_picker.tsx,
 * versions_panel.tsx), so the page only places them. Files and folders alike are moved and
 * copied (a folder with everything in it: POST /folders/{rs}/copy).
 */
import { useRef, useState } from "preact/hooks";
import type { Row } from "./api.ts";
import type { Listing } from "./listing.ts";
import { FolderPicker, type PickMode } from "./folder_picker.tsx";
import { VersionsPanel } from "./versions_panel.tsx";
import { t } from "../store.ts";

export function FileActions(
  p: { picked: Row[]; listing: Listing; onDone: (status: string) => void },
) {
  const [picking, setPicking] = useState<{ mode: PickMode; rows: Row[] } | null>(null);
  const [versionsOf, setVersionsOf] = useState<Row | null>(null);
  const said = useRef("");
  const one = p.picked.length === 1 ? p.picked[0] : null;
  const done = (mode: PickMode, rows: Row[]) => (rss: Set<number>, to: string) => {
    const first = rows.find((row) => rss.has(row.rs))!;
    const what = rss.size === 1 ? `“${first.name}”` : t("nItems", rss.size);
    if (mode === "move") p.listing.remove(rss);
    said.current = t(mode === "move" ? "movedTo" : "copiedTo", what, to);
  };
  // The page hears of it once the dialog has closed and given focus back, so its status and
  // focus (the list) win over the dialog's return of focus to the button.
  const closed = () => {
    setPicking(null);
    if (said.current) p.onDone(said.current);
    said.current = "";
  };
  return (
    <>
      <button
        type="button"
        class="button"
        disabled={!p.picked.length}
        onClick={() => setPicking({ mode: "move", rows: p.picked })}
      >
        {t("moveTo")}
      </button>
      <button
        type="button"
        class="button"
        disabled={!p.picked.length}
        onClick={() => setPicking({ mode: "copy", rows: p.picked })}
      >
        {t("copyTo")}
      </button>
      <button
        type="button"
        class="button"
        disabled={one?.type !== "FILE"}
        onClick={() => one && setVersionsOf(one)}
      >
        {t("versions")}
      </button>
      {picking && (
        <FolderPicker
          mode={picking.mode}
          rows={picking.rows}
          onClose={closed}
          onDone={done(picking.mode, picking.rows)}
        />
      )}
      {versionsOf && (
        <VersionsPanel
          row={versionsOf}
          onClose={() => setVersionsOf(null)}
          onChanged={() => {}}
        />
      )}
    </>
  );
}
