/**
 * Move or copy the selection through a folder picker: a modal dialog browsing the caller's
 * folders (My drive's tree, or the folders shared with them that they may upload into), with
 * its own breadcrumbs and "new folder here". Each picked row goes through the API's move or copy
 * route in turn; the first refusal (a folder into itself, a taken name, a drive a folder may not
 * change to) stops there and is shown by its catalog code, and the dialog stays open.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Row } from "./api.ts";
import {
  copyRow,
  errorText,
  folderPage,
  moveRow,
  newFolderIn,
  type PickFolder,
  sharedFolders,
} from "./files_api.ts";
import { t } from "../store.ts";

/** Pages of a folder the picker reads at most (500 entries each), files and folders mixed. */
const MAX_PAGES = 20;

export type PickMode = "move" | "copy";

interface Place {
  root: "mine" | "shared";
  path: PickFolder[];
}

export interface PickerProps {
  mode: PickMode;
  rows: Row[];
  onClose: () => void;
  /** The rows moved or copied so far, and where to. */
  onDone: (done: Set<number>, to: string) => void;
}

export function FolderPicker(p: PickerProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const listEl = useRef<HTMLUListElement>(null);
  const [place, setPlace] = useState<Place>({ root: "mine", path: [] });
  const [folders, setFolders] = useState<PickFolder[] | null>(null);
  const [canUpload, setCanUpload] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [naming, setNaming] = useState(false);
  const here = place.path.length ? place.path[place.path.length - 1] : null;
  const rootName = t(place.root === "mine" ? "myDrive" : "shared");

  useEffect(() => {
    dialog.current!.showModal();
  }, []);

  useEffect(() => {
    let live = true;
    setFolders(null);
    (async () => {
      if (place.root === "shared" && !here) {
        const shared = await sharedFolders();
        if (live) {
          setFolders(shared);
          setCanUpload(false);
        }
        return;
      }
      let cursor: string | null = null;
      let all: PickFolder[] = [];
      for (let i = 0; i < MAX_PAGES && live; i++) {
        const page = await folderPage(here, cursor);
        all = [...all, ...page.folders];
        if (!live) return;
        setFolders(all);
        setCanUpload(page.canUpload);
        cursor = page.next;
        if (!cursor) break;
      }
    })().catch((err) => {
      if (!live) return;
      setError(errorText(err));
      setFolders([]);
    });
    return () => {
      live = false;
    };
  }, [place]);

  const go = (next: Place) => {
    setError("");
    setNaming(false);
    setPlace(next);
    listEl.current?.focus();
  };

  const act = async () => {
    setBusy(true);
    setError("");
    const done = new Set<number>();
    try {
      for (const row of p.rows) {
        await (p.mode === "move" ? moveRow(row, here) : copyRow(row, here));
        done.add(row.rs);
      }
    } catch (err) {
      setError(errorText(err));
    }
    setBusy(false);
    if (done.size) p.onDone(done, here?.name ?? rootName);
    if (done.size === p.rows.length) dialog.current!.close();
  };

  const createHere = async (name: string) => {
    try {
      const d = await newFolderIn(name, here);
      go({ ...place, path: [...place.path, { rs: d.resourceSeq, name, ss: here?.ss }] });
    } catch (err) {
      setError(errorText(err));
    }
  };

  // Up and down walk the folder buttons; Backspace goes up a level, as in the list.
  const onListKey = (e: KeyboardEvent) => {
    const buttons = [...listEl.current!.querySelectorAll<HTMLButtonElement>("button")];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const to = e.key === "ArrowDown"
      ? Math.min(buttons.length - 1, at + 1)
      : e.key === "ArrowUp"
      ? Math.max(0, at - 1)
      : e.key === "Home"
      ? 0
      : e.key === "End"
      ? buttons.length - 1
      : null;
    if (to !== null && buttons.length) {
      e.preventDefault();
      buttons[to].focus();
    } else if (e.key === "Backspace" && place.path.length) {
      e.preventDefault();
      go({ ...place, path: place.path.slice(0, -1) });
    }
  };

  const what = p.rows.length === 1 ? `“${p.rows[0].name}”` : t("nItems", p.rows.length);
  const mayDrop = canUpload && (place.root === "mine" || !!here);
  return (
    <dialog
      ref={dialog}
      class="sheet picker"
      aria-labelledby="picker-title"
      onClose={p.onClose}
    >
      <h2 id="picker-title">{t(p.mode === "move" ? "moveTitle" : "copyTitle", what)}</h2>
      <div class="picker-roots" role="group" aria-label={t("pickerRoots")}>
        {(["mine", "shared"] as const).map((root) => (
          <button
            key={root}
            type="button"
            class="button"
            aria-pressed={place.root === root}
            onClick={() => go({ root, path: [] })}
          >
            {t(root === "mine" ? "myDrive" : "shared")}
          </button>
        ))}
      </div>
      <nav class="crumbs" aria-label={t("pickerPath")}>
        <ol>
          {[null, ...place.path].map((f, i) => (
            <li key={f?.rs ?? 0}>
              <button
                type="button"
                class="link"
                aria-current={i === place.path.length ? "location" : undefined}
                onClick={() => go({ ...place, path: place.path.slice(0, i) })}
              >
                {f ? f.name : rootName}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      <ul
        class="picker-list"
        ref={listEl}
        tabIndex={-1}
        aria-label={t("pickerFolders", here?.name ?? rootName)}
        aria-busy={folders === null}
        onKeyDown={onListKey}
      >
        {folders === null
          ? <li class="muted">{t("loading")}</li>
          : folders.length === 0
          ? <li class="muted">{t("noFolders")}</li>
          : folders.map((f) => (
            <li key={`${f.ss ?? 0}-${f.rs}`}>
              <button
                type="button"
                onClick={() => go({ ...place, path: [...place.path, f] })}
              >
                <span class="icon icon-folder" aria-hidden="true" />
                {f.name}
              </button>
            </li>
          ))}
      </ul>
      {naming && mayDrop
        ? (
          <form
            class="new-folder"
            aria-label={t("newFolderHere")}
            onSubmit={(e) => {
              e.preventDefault();
              const name = (e.currentTarget.elements.namedItem("fn") as HTMLInputElement).value
                .trim();
              if (name) createHere(name);
            }}
          >
            <label for="picker-folder-name">{t("folderName")}</label>
            <input id="picker-folder-name" name="fn" required maxLength={255} autoFocus />
            <button type="submit" class="button">{t("create")}</button>
          </form>
        )
        : null}
      {error ? <p class="picker-error" role="alert">{t("error", error)}</p> : null}
      <div class="picker-actions">
        <button
          type="button"
          class="button"
          disabled={!mayDrop || naming}
          onClick={() => setNaming(true)}
        >
          {t("newFolderHere")}
        </button>
        <button
          type="button"
          class="button primary"
          disabled={!mayDrop || busy || folders === null}
          onClick={act}
        >
          {t(p.mode === "move" ? "moveHere" : "copyHere")}
        </button>
        <button type="button" class="button" onClick={() => dialog.current!.close()}>
          {t("cancel")}
        </button>
      </div>
    </dialog>
  );
}
