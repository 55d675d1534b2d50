/**
 * The preview overlay: the opened file of the listing in a modal dialog (focus stays in it, the
 * rest of the page is inert), with previous and next across the listing's files (buttons and
 * ←/→), download, the details panel, and Escape to close; focus goes back to the list after.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import type { Row } from "../drive/api.ts";
import { t } from "../store.ts";
import { downloadUrl } from "./api.ts";
import { PreviewBody } from "./body.tsx";
import { DetailsPanel } from "./details.tsx";

/** The index of the file after (step 1) or before (step -1) `from`, skipping folders; -1: none. */
export function nextFile(rows: readonly Row[], from: number, step: 1 | -1): number {
  for (let i = from + step; i >= 0 && i < rows.length; i += step) {
    if (rows[i].type === "FILE") return i;
  }
  return -1;
}

export interface PreviewProps {
  rows: readonly Row[];
  /** The shown file (kept by seq, so rows coming and going around it do not change it). */
  rs: number;
  onIndex: (index: number) => void;
  onClose: () => void;
}

export function PreviewOverlay(props: PreviewProps) {
  const { rows } = props;
  const index = rows.findIndex((r) => r.rs === props.rs);
  const row = rows[index];
  const dialog = useRef<HTMLDialogElement>(null);
  const [details, setDetails] = useState(false);
  const prev = nextFile(rows, index, -1);
  const next = nextFile(rows, index, 1);
  const files = rows.filter((r) => r.type === "FILE");

  useEffect(() => {
    dialog.current!.showModal();
  }, []);

  const onKeyDown = (e: KeyboardEvent) => {
    // Arrows keep their meaning in the players, the text and the buttons' own keys.
    const el = e.target as HTMLElement;
    if (el.closest("audio, video, input, textarea, select")) return;
    if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    const to = e.key === "ArrowRight" ? next : e.key === "ArrowLeft" ? prev : -1;
    if (to < 0) return;
    e.preventDefault();
    props.onIndex(to);
  };

  if (!row) return null;
  return (
    <dialog
      ref={dialog}
      class={`preview${details ? " with-details" : ""}`}
      aria-labelledby="preview-title"
      onClose={props.onClose}
      onKeyDown={onKeyDown}
    >
      <div class="preview-bar">
        <h2 id="preview-title" class="preview-name">{row.name}</h2>
        <span class="preview-pos">
          {t("pvPosition", files.indexOf(row) + 1, files.length)}
        </span>
        <div class="preview-actions" role="group" aria-label={t("pvActions")}>
          <button
            type="button"
            class="button"
            disabled={prev < 0}
            aria-keyshortcuts="ArrowLeft"
            onClick={() => props.onIndex(prev)}
          >
            {t("pvPrevious")}
          </button>
          <button
            type="button"
            class="button"
            disabled={next < 0}
            aria-keyshortcuts="ArrowRight"
            onClick={() => props.onIndex(next)}
          >
            {t("pvNext")}
          </button>
          <a class="button" href={downloadUrl(row)} download="">{t("download")}</a>
          <button
            type="button"
            class="button"
            aria-pressed={details}
            onClick={() => setDetails(!details)}
          >
            {t("pvDetails")}
          </button>
          <button
            type="button"
            class="button primary"
            aria-keyshortcuts="Escape"
            onClick={() => dialog.current?.close()}
          >
            {t("close")}
          </button>
        </div>
      </div>
      <div class="preview-main">
        <div class="preview-stage" key={row.rs}>
          <PreviewBody row={row} />
        </div>
        {details && <DetailsPanel row={row} />}
      </div>
    </dialog>
  );
}
