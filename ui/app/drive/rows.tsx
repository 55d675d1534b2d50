/** One row of the file list: icon, name (or the inline rename field), then size and date. */
import { useLayoutEffect, useRef } from "preact/hooks";
import type { Row } from "./api.ts";
import { formatDate, formatSize } from "./format.ts";
import { locale, t } from "../store.ts";

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
          : formatSize(row.size, loc)}
      </span>
      <span class="cell date">
        <span class="long">{formatDate(row.updatedAt, loc)}</span>
        <span class="short" aria-hidden="true">{formatDate(row.updatedAt, loc, true)}</span>
      </span>
    </div>
  );
}
