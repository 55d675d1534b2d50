/**
 * The grid view: cards with a thumbnail for images and a type icon otherwise, virtualized like
 * the list (virtual_list.tsx) by rows of cards, so only the cards in view (plus OVERSCAN rows)
 * exist and only their thumbnails are fetched. Arrows move in two dimensions; every other key is
 * the list's (keys.ts through the page). The choice of list or grid is remembered per browser.
 */
import type { Ref } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Row } from "./api.ts";
import { isImage, thumbnailUrl } from "./files_api.ts";
import { RenameField } from "./rows.tsx";
import { formatSize } from "./format.ts";
import { locale, t } from "../store.ts";

export const CARD_WIDTH = 168;
export const CARD_HEIGHT = 184;
const OVERSCAN = 2;
const LAYOUT_KEY = "drive.layout";

export type Layout = "list" | "grid";

/** The layout chosen before in this browser (list at first). */
export function useLayout(): [Layout, (l: Layout) => void] {
  const [layout, setLayout] = useState<Layout>(() =>
    localStorage.getItem(LAYOUT_KEY) === "grid" ? "grid" : "list"
  );
  return [layout, (l) => {
    localStorage.setItem(LAYOUT_KEY, l);
    setLayout(l);
  }];
}

export function LayoutToggle(props: { layout: Layout; onChange: (l: Layout) => void }) {
  return (
    <div class="layout-toggle" role="group" aria-label={t("layout")}>
      {(["list", "grid"] as const).map((l) => (
        <button
          key={l}
          type="button"
          class="button"
          aria-pressed={props.layout === l}
          onClick={() => props.onChange(l)}
        >
          {t(l === "list" ? "viewList" : "viewGrid")}
        </button>
      ))}
    </div>
  );
}

/** The index an arrow key moves to in a grid of `cols` columns; null for other keys. */
export function gridMove(key: string, active: number, count: number, cols: number) {
  if (count === 0) return null;
  const from = active < 0 ? 0 : active;
  const step: Record<string, number> = {
    ArrowLeft: -1,
    ArrowRight: 1,
    ArrowUp: -cols,
    ArrowDown: cols,
  };
  if (!(key in step)) return null;
  if (active < 0) return 0;
  const to = from + step[key];
  return to < 0 || to >= count ? from : to;
}

export interface GridProps {
  rows: Row[];
  active: number;
  label: string;
  setSize: number;
  selected: ReadonlySet<number>;
  renaming: number | null;
  /** Whether images show thumbnails (not in the trash, where the API serves no content). */
  thumbs: boolean;
  listRef: Ref<HTMLDivElement>;
  onMove: (to: number, extend: boolean) => void;
  onKeyDown: (e: KeyboardEvent) => void;
  onRange: (first: number, last: number) => void;
  onPick: (index: number, e: MouseEvent) => void;
  onOpen: (index: number) => void;
  onRename: (row: Row, name: string | null) => void;
}

function Thumb(props: { row: Row; show: boolean }) {
  const [failed, setFailed] = useState(false);
  const { row } = props;
  if (!props.show || !isImage(row) || failed) {
    return (
      <span
        class={`icon ${row.type === "FOLDER" ? "icon-folder" : "icon-file"} big`}
        aria-hidden="true"
      />
    );
  }
  return (
    <img
      src={thumbnailUrl(row)}
      alt=""
      loading="lazy"
      decoding="async"
      onError={() => setFailed(true)}
    />
  );
}

export function GridView(p: GridProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [box, setBox] = useState({ width: 800, height: 600 });

  useLayoutEffect(() => {
    const el = scroller.current!;
    const observer = new ResizeObserver(() =>
      setBox({ width: el.clientWidth || 800, height: el.clientHeight || 600 })
    );
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const cols = Math.max(1, Math.floor(box.width / CARD_WIDTH));
  const lines = Math.ceil(p.rows.length / cols);
  const firstLine = Math.max(0, Math.floor(top / CARD_HEIGHT) - OVERSCAN);
  const lastLine = Math.min(lines, Math.ceil((top + box.height) / CARD_HEIGHT) + OVERSCAN);
  const first = firstLine * cols;
  const last = Math.min(p.rows.length, lastLine * cols);

  // Reported as soon as the range is rendered (a layout effect), not a frame later after paint,
  // so the listing can ask for its next page in the same task as the scroll.
  useLayoutEffect(() => p.onRange(first, last), [first, last, p.rows.length]);

  // Keyboard moves scroll the active card's line into view.
  useEffect(() => {
    const el = scroller.current;
    if (!el || p.active < 0) return;
    const lineTop = Math.floor(p.active / cols) * CARD_HEIGHT;
    if (lineTop < el.scrollTop) el.scrollTop = lineTop;
    else if (lineTop + CARD_HEIGHT > el.scrollTop + el.clientHeight) {
      el.scrollTop = lineTop + CARD_HEIGHT - el.clientHeight;
    }
  }, [p.active, cols]);

  const width = 100 / cols;
  const loc = locale.value;
  const cards = [];
  for (let i = first; i < last; i++) {
    const row = p.rows[i];
    cards.push(
      <div
        key={row.rs}
        role="option"
        id={`row-${i}`}
        aria-selected={p.selected.has(row.rs)}
        aria-posinset={i + 1}
        aria-setsize={p.setSize}
        class={`card${i === p.active ? " active" : ""}`}
        style={{
          top: `${Math.floor(i / cols) * CARD_HEIGHT}px`,
          left: `${(i % cols) * width}%`,
          width: `${width}%`,
          height: `${CARD_HEIGHT}px`,
        }}
        onClick={(e) => p.onPick(i, e)}
        onDblClick={() => p.onOpen(i)}
      >
        <span class="thumb">
          <Thumb row={row} show={p.thumbs} />
        </span>
        {p.renaming === row.rs
          ? <RenameField row={row} onDone={(name) => p.onRename(row, name)} />
          : <span class="label">{row.name}</span>}
        <span class="meta">
          {row.type === "FOLDER" ? t("folder") : formatSize(row.size, loc)}
          {row.note ? ` · ${row.note}` : ""}
        </span>
      </div>,
    );
  }
  return (
    <div
      class="vlist vgrid"
      ref={scroller}
      onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
    >
      <div
        role="listbox"
        ref={p.listRef}
        tabIndex={0}
        aria-label={p.label}
        aria-multiselectable
        aria-activedescendant={p.active >= 0 && p.active < p.rows.length
          ? `row-${p.active}`
          : undefined}
        class="vlist-box"
        style={{ height: `${Math.max(lines * CARD_HEIGHT, CARD_HEIGHT)}px` }}
        onKeyDown={(e) => {
          const to = e.ctrlKey || e.metaKey || e.altKey
            ? null
            : gridMove(e.key, p.active, p.rows.length, cols);
          if (to === null) return p.onKeyDown(e);
          e.preventDefault();
          p.onMove(to, e.shiftKey);
        }}
      >
        {cards}
      </div>
    </div>
  );
}
