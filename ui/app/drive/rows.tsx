/** One row of the file list: icon, name (or the inline rename field), then size and date. */
import { useLayoutEffect, useMemo, useRef } from "preact/hooks";
import type { Row } from "./api.ts";
import { formatSize } from "./format.ts";
import { locale, t } from "../store.ts";
import { type Locale, LOCALES } from "../messages.ts";

/**
 * The dates' formatters, made once per language. `toLocaleString` with options builds a new Intl
 * formatter on every call (0.8 ms in Chromium on the shared 2-core machine), so the two dates of
 * each of ~40 rows made every scroll frame take 50 ms (bench/web_app.ts); `format` of a made
 * formatter takes microseconds. The same text as format.ts's formatDate.
 */
const DATE_FORMATS = Object.fromEntries(
  (Object.keys(LOCALES) as Locale[]).map((l) => [l, {
    long: new Intl.DateTimeFormat(l, { dateStyle: "medium", timeStyle: "short" }),
    short: new Intl.DateTimeFormat(l, { dateStyle: "medium" }),
  }]),
) as Record<Locale, { long: Intl.DateTimeFormat; short: Intl.DateTimeFormat }>;

function rowDate(iso: string | null, loc: Locale, short = false): string {
  if (!iso) return "";
  const d = new Date(iso);
  // `format` throws on an invalid date where toLocaleString says "Invalid Date": keep the latter.
  if (Number.isNaN(d.getTime())) return String(d);
  return DATE_FORMATS[loc][short ? "short" : "long"].format(d);
}

export interface RowProps {
  row: Row;
  index: number;
  setSize: number;
  selected: boolean;
  active: boolean;
  renaming: boolean;
  style: Record<string, string>;
  onPick: (index: number, e: MouseEvent) => void;
  onOpen: (index: number) => void;
  onRename: (row: Row, name: string | null) => void;
}

export function RenameField(props: { row: Row; onDone: (name: string | null) => void }) {
  const input = useRef<HTMLInputElement>(null);
  // Enter moves focus back to the list, which blurs the field: answer only the first of the two.
  const answered = useRef(false);
  const done = (name: string | null) => {
    if (answered.current) return;
    answered.current = true;
    props.onDone(name);
  };
  // Before paint, so the field never shows without focus.
  useLayoutEffect(() => {
    const el = input.current!;
    el.focus();
    // Like Drive: the name is selected without its extension.
    const dot = props.row.type === "FILE" ? props.row.name.lastIndexOf(".") : -1;
    el.setSelectionRange(0, dot > 0 ? dot : props.row.name.length);
  }, []);
  return (
    <input
      ref={input}
      class="rename"
      aria-label={t("newName")}
      defaultValue={props.row.name}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === "Enter") done(e.currentTarget.value.trim() || null);
        if (e.key === "Escape") done(null);
      }}
      onBlur={(e) => done(e.currentTarget.value.trim() || null)}
    />
  );
}

export function RowView(p: RowProps) {
  const { row } = p;
  const folder = row.type === "FOLDER";
  const loc = locale.value;
  // A row stays mounted while it is in view (keyed by rs): its size text is made once.
  const size = useMemo(() => (folder ? "" : formatSize(row.size, loc)), [folder, row.size, loc]);
  return (
    <div
      role="option"
      id={`row-${p.index}`}
      aria-selected={p.selected}
      aria-posinset={p.index + 1}
      aria-setsize={p.setSize}
      class={`row${p.active ? " active" : ""}`}
      style={p.style}
      onClick={(e) => p.onPick(p.index, e)}
      onDblClick={() => p.onOpen(p.index)}
    >
      <span class={`icon ${folder ? "icon-folder" : "icon-file"}`} aria-hidden="true" />
      <span class="cell name">
        {p.renaming
          ? <RenameField row={row} onDone={(name) => p.onRename(row, name)} />
          : <span class="label">{row.name}</span>}
      </span>
      <span class="cell note">{row.note ?? ""}</span>
      <span class="cell size">
        {folder
          ? (
            <>
              <span aria-hidden="true">—</span>
              <span class="visually-hidden">{t("folder")}</span>
            </>
          )
          : size}
      </span>
      <span class="cell date">
        <span class="long">{rowDate(row.updatedAt, loc)}</span>
        <span class="short" aria-hidden="true">{rowDate(row.updatedAt, loc, true)}</span>
      </span>
    </div>
  );
}
