/**
 * The upload panel: the total, then each file with its progress, pause or resume, and cancel;
 * above them the uploads a reload interrupted, which resume when the person picks the file again.
 */
import { useState } from "preact/hooks";
import type { Item, ItemState, UploadQueue } from "./queue.ts";
import type { Interrupted } from "./resume.ts";
import type { MessageKey } from "../messages.ts";
import { t } from "../store.ts";

const STATE: Record<ItemState, MessageKey> = {
  queued: "upQueued",
  running: "upRunning",
  paused: "upPaused",
  done: "upDone",
  failed: "upFailed",
  canceled: "upCanceled",
  skipped: "upSkipped",
};

const percent = (sent: number, size: number) => size ? Math.floor((sent / size) * 100) : 100;

function ItemRow(props: { item: Item; queue: UploadQueue }) {
  const { item, queue } = props;
  const state = item.state.value;
  const name = [...item.dirs, item.file.name].join("/");
  const pct = percent(item.sent.value, item.file.size);
  return (
    <li class={`upload-item ${state}`}>
      <span class="upload-name" title={name}>{name}</span>
      <progress max={100} value={pct} aria-label={t("upProgressOf", name)} />
      <span class="upload-state">
        {state === "running" || state === "paused" ? `${pct}% · ` : ""}
        {t(STATE[state])}
        {item.error.value ? `: ${item.error.value}` : ""}
      </span>
      {state === "running" || state === "queued"
        ? (
          <button type="button" class="button small" onClick={() => queue.pause(item)}>
            <span aria-hidden="true">{t("upPause")}</span>
            <span class="visually-hidden">{t("upPauseFile", name)}</span>
          </button>
        )
        : state === "paused" || state === "failed"
        ? (
          <button type="button" class="button small" onClick={() => queue.resume(item)}>
            <span aria-hidden="true">{t("upResume")}</span>
            <span class="visually-hidden">{t("upResumeFile", name)}</span>
          </button>
        )
        : null}
      {state !== "done" && state !== "canceled" && state !== "skipped" && (
        <button
          type="button"
          class="button small"
          onClick={() => queue.cancel(item)}
        >
          <span aria-hidden="true">{t("cancel")}</span>
          <span class="visually-hidden">{t("upCancelFile", name)}</span>
        </button>
      )}
    </li>
  );
}

export function UploadPanel(
  props: { queue: UploadQueue; interrupted: Interrupted[]; onDiscard: (i: Interrupted) => void },
) {
  const { queue, interrupted } = props;
  // Folded, the panel is its head and the total only: on a phone the list stays usable.
  const [folded, setFolded] = useState(false);
  const items = queue.items.value;
  if (!items.length && !interrupted.length) return null;
  const counted = items.filter((i) => !["canceled", "skipped"].includes(i.state.value));
  const size = counted.reduce((n, i) => n + i.file.size, 0);
  const sent = counted.reduce((n, i) => n + i.sent.value, 0);
  const done = counted.filter((i) => i.state.value === "done").length;
  const total = percent(sent, size);
  return (
    <section class="upload-panel" aria-labelledby="upload-title">
      <div class="upload-head">
        <h2 id="upload-title">{t("upTitle")}</h2>
        {items.length > 0 && (
          <span class="upload-total" role="status">
            {t("upTotal", done, counted.length, total)}
          </span>
        )}
        {items.length > 0 && !folded && (
          <button
            type="button"
            class="button small"
            onClick={() => queue.clearFinished()}
          >
            {t("upClear")}
          </button>
        )}
        <button
          type="button"
          class="button small"
          aria-expanded={!folded}
          aria-controls="upload-lists"
          onClick={() => setFolded(!folded)}
        >
          {t(folded ? "upShow" : "upHide")}
        </button>
      </div>
      {items.length > 0 && <progress max={100} value={total} aria-label={t("upTotalLabel")} />}
      <div id="upload-lists" hidden={folded}>
        {interrupted.length > 0 && (
          <ul class="upload-list" aria-label={t("upInterrupted")}>
            {interrupted.map((i) => (
              <li key={i.key} class="upload-item paused">
                <span class="upload-name">{i.name}</span>
                <span class="upload-state">{t("upPickAgain")}</span>
                <button type="button" class="button small" onClick={() => props.onDiscard(i)}>
                  <span aria-hidden="true">{t("upDiscard")}</span>
                  <span class="visually-hidden">{t("upDiscardFile", i.name)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {items.length > 0 && (
          <ul class="upload-list" aria-label={t("upFiles")}>
            {items.map((item) => <ItemRow key={item.id} item={item} queue={queue} />)}
          </ul>
        )}
      </div>
    </section>
  );
}
