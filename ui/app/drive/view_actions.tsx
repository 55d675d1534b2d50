/**
 * The file browser's actions for the Starred, Recent and Trash views and multiple selections:
 * add or remove a star (button, and `s` as in Google Drive), what the Download button fetches
 * (a selection of several items as one ZIP), and emptying the trash after a confirm dialog. Rendered in the page's action bar; talks to the API
 * through ./starred.ts and tells the quota bar when storage was freed (USAGE_CHANGED).
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Row } from "./api.ts";
import type { Listing } from "./listing.ts";
import { emptyTrash, selectionZipUrl, star, starredSeqs, unstar } from "./starred.ts";
import { USAGE_CHANGED } from "./quota_bar.tsx";
// The page takes the views' page sources from here too, with one import.
export { viewSource } from "./starred.ts";

/** The Download button's words: a ZIP for a folder or several items. */
export const downloadLabel = (picked: Row[]) =>
  picked.length > 1 || picked[0]?.type === "FOLDER" ? "downloadZip" as const : "download" as const;

/** What the page's Download button fetches: one file, a folder's ZIP, or the selection's ZIP. */
export function zipOrFile(picked: Row[]): Promise<string> {
  return picked.length === 1 ? drive.downloadUrl(picked[0]) : selectionZipUrl(drive, picked);
}
import type { DriveRoute } from "../router.ts";
import { drive, t } from "../store.ts";

export interface ViewActionsProps {
  r: DriveRoute;
  picked: Row[];
  listing: Listing;
  say: (text: string) => void;
  fail: (err: unknown) => void;
}

export function ViewActions(props: ViewActionsProps) {
  const { r, picked } = props;
  const [starred, setStarred] = useState<ReadonlySet<number>>(new Set());
  const [confirming, setConfirming] = useState(false);
  useEffect(() => {
    if (r.view !== "trash") starredSeqs(drive).then(setStarred, () => {});
  }, [r.view]);

  const allStarred = picked.length > 0 && picked.every((row) => starred.has(row.rs));
  const toggleStar = async () => {
    if (!picked.length || r.view === "trash") return;
    const next = new Set(starred);
    try {
      for (const row of picked) {
        if (allStarred) await unstar(drive, row);
        else await star(drive, row);
        if (allStarred) next.delete(row.rs);
        else next.add(row.rs);
      }
    } catch (err) {
      props.fail(err);
    }
    setStarred(next);
    if (allStarred && r.view === "starred") props.listing.remove(new Set(picked.map((x) => x.rs)));
    const name = picked.length === 1 ? picked[0].name : `${picked.length}`;
    props.say(t(allStarred ? "vaUnstarred" : "vaStarred", name));
  };
  // `s` anywhere on the page but in a field or dialog (the latest render's rows).
  const toggleRef = useRef(toggleStar);
  toggleRef.current = toggleStar;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement;
      if (el.closest("input, select, textarea, dialog") || e.ctrlKey || e.metaKey || e.altKey) {
        return;
      }
      if (e.key === "s" || e.key === "S") {
        e.preventDefault();
        void toggleRef.current();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const empty = async () => {
    setConfirming(false);
    try {
      const done = await emptyTrash(drive);
      props.listing.rows.value = [];
      props.say(t("vaTrashEmptied", done.purgedItems));
      document.dispatchEvent(new CustomEvent(USAGE_CHANGED));
    } catch (err) {
      props.fail(err);
    }
  };

  if (r.view === "trash") {
    return (
      <>
        <button
          type="button"
          class="button danger"
          disabled={!props.listing.rows.value.length}
          onClick={() => setConfirming(true)}
        >
          {t("vaEmptyTrash")}
        </button>
        {confirming && <ConfirmEmpty onConfirm={empty} onCancel={() => setConfirming(false)} />}
      </>
    );
  }
  return (
    <>
      {/* A star, not words: the bar must not wrap (and move the list) when the label changes. */}
      <button
        type="button"
        class="button"
        disabled={!picked.length}
        aria-keyshortcuts="s"
        aria-label={allStarred ? t("vaRemoveStar") : t("vaAddStar")}
        title={`${allStarred ? t("vaRemoveStar") : t("vaAddStar")} (S)`}
        onClick={toggleStar}
      >
        <span aria-hidden="true">{allStarred ? "★" : "☆"}</span>
      </button>
    </>
  );
}

/** "Empty the trash?": a modal dialog; Escape or Cancel keep everything. */
function ConfirmEmpty(props: { onConfirm: () => void; onCancel: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current!.showModal();
  }, []);
  return (
    <dialog
      ref={dialog}
      class="sheet"
      aria-labelledby="empty-trash-title"
      aria-describedby="empty-trash-text"
      onClose={props.onCancel}
    >
      <h2 id="empty-trash-title">{t("vaEmptyTrashTitle")}</h2>
      <p id="empty-trash-text">{t("vaEmptyTrashText")}</p>
      <div class="actions">
        <button type="button" class="button" onClick={() => dialog.current!.close()}>
          {t("cancel")}
        </button>
        <button type="button" class="button danger" onClick={props.onConfirm}>
          {t("vaEmptyTrash")}
        </button>
      </div>
    </dialog>
  );
}
