/**
 * A listbox that renders only the rows in view plus a few on each side (OVERSCAN), each placed at
 * index × ROW_HEIGHT inside a box as tall as every row together, so the scrollbar is right and the
 * DOM stays at a few dozen rows for a listing of any length. Focus stays on the listbox; the
 * active row is named by aria-activedescendant and scrolled into view when it changes.
 */
import type { ComponentChildren, Ref } from "preact";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";

export const ROW_HEIGHT = 44;
const OVERSCAN = 10;

export interface VirtualListProps {
  count: number;
  /** The index that has the keyboard's attention, -1 for none. */
  active: number;
  label: string;
  multiselectable: boolean;
  listRef: Ref<HTMLDivElement>;
  /** Renders row `index`; `style` places it. */
  row: (index: number, style: Record<string, string>) => ComponentChildren;
  /** Called with the rendered range whenever it changes (to fetch the next page in time). */
  onRange: (first: number, last: number) => void;
  onKeyDown: (e: KeyboardEvent) => void;
}

export function VirtualList(props: VirtualListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);

  useLayoutEffect(() => {
    const el = scroller.current!;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight || 600));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(props.count, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);

  // Reported as soon as the range is rendered (a layout effect), not a frame later after paint,
  // so the listing can ask for its next page in the same task as the scroll.
  useLayoutEffect(() => props.onRange(first, last), [first, last, props.count]);

  // Keyboard moves scroll the active row into view (by the row's box, not the DOM's own
  // scrollIntoView, because the row may not be rendered yet).
  useEffect(() => {
    const el = scroller.current;
    if (!el || props.active < 0) return;
    const rowTop = props.active * ROW_HEIGHT;
    if (rowTop < el.scrollTop) el.scrollTop = rowTop;
    else if (rowTop + ROW_HEIGHT > el.scrollTop + el.clientHeight) {
      el.scrollTop = rowTop + ROW_HEIGHT - el.clientHeight;
    }
  }, [props.active]);

  const rows = [];
  for (let i = first; i < last; i++) {
    rows.push(props.row(i, { top: `${i * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` }));
  }
  return (
    <div
      class="vlist"
      ref={scroller}
      onScroll={(e) => setTop((e.currentTarget as HTMLDivElement).scrollTop)}
    >
      <div
        role="listbox"
        ref={props.listRef}
        tabIndex={0}
        aria-label={props.label}
        aria-multiselectable={props.multiselectable}
        aria-activedescendant={props.active >= 0 && props.active < props.count
          ? `row-${props.active}`
          : undefined}
        class="vlist-box"
        style={{ height: `${Math.max(props.count * ROW_HEIGHT, ROW_HEIGHT)}px` }}
        onKeyDown={props.onKeyDown}
      >
        {rows}
      </div>
    </div>
  );
}
