/**
 * A list the server pages and searches (the admin API's q, limit, cursor and nextCursor): a
 * search box, one page of PAGE_SIZE rows as a ListTable, and Previous / Next. Previous goes back
 * through the cursors this view was given, so it shows the pages as they were reached; a page
 * is read again after an action on it (`reload`).
 */
import { type Signal, useSignal } from "@preact/signals";
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import type { Paged, PageParams } from "../api.ts";
import { messageOf } from "../../shared/format.ts";
import { humanizeMessage } from "../../shared/form.ts";
import type { Loaded } from "./data.tsx";
import { type Column, ListTable, PAGE_SIZE } from "./table.tsx";

/** How long typing pauses before the search is sent. */
const SEARCH_DELAY_MS = 250;

export interface PagedList<T> extends Loaded<T[]> {
  /** The search as typed. */
  query: Signal<string>;
  /** 0 for the first page. */
  pageIndex: Signal<number>;
  hasNext: Signal<boolean>;
  next: () => void;
  previous: () => void;
}

/**
 * The pages of `load`, from the first again whenever the search or `deps` (the other filters)
 * change. Answers arriving for a page or search no longer shown are dropped.
 */
export function usePagedList<T>(
  load: (params: PageParams) => Promise<Paged<T>>,
  deps: unknown[] = [],
): PagedList<T> {
  const data = useSignal<T[] | null>(null);
  const error = useSignal<string | null>(null);
  const loading = useSignal(true);
  const query = useSignal("");
  const searched = useSignal("");
  const pageIndex = useSignal(0);
  const hasNext = useSignal(false);
  // cursors[i] starts page i; nextCursor starts the page after the one shown.
  const cursors = useRef<(string | undefined)[]>([undefined]);
  const nextCursor = useRef<string | null>(null);
  const latest = useRef(0);

  const show = async (index: number) => {
    const asked = ++latest.current;
    loading.value = true;
    try {
      const q = searched.value;
      const page = await load({ q, cursor: cursors.current[index], limit: PAGE_SIZE });
      if (asked !== latest.current) return;
      data.value = page.items;
      nextCursor.current = page.nextCursor;
      hasNext.value = page.nextCursor !== null;
      pageIndex.value = index;
      error.value = null;
    } catch (err) {
      if (asked === latest.current) error.value = humanizeMessage(messageOf(err));
    } finally {
      if (asked === latest.current) loading.value = false;
    }
  };
  useEffect(() => {
    const timer = setTimeout(() => (searched.value = query.value.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [query.value]);
  useEffect(() => {
    cursors.current = [undefined];
    show(0);
  }, [searched.value, ...deps]);

  return {
    data,
    error,
    loading,
    query,
    pageIndex,
    hasNext,
    reload: () => show(pageIndex.value),
    next: () => {
      if (nextCursor.current === null) return;
      const index = pageIndex.value + 1;
      cursors.current = [...cursors.current.slice(0, index), nextCursor.current];
      show(index);
    },
    previous: () => {
      if (pageIndex.value > 0) show(pageIndex.value - 1);
    },
  };
}

/** `list` as a table with its search box and pager; `name` names both ("users"). */
export function PagedTable<T>(
  { list, name, searchHint, empty, columns, rowKey, rowClass, actions }: {
    list: PagedList<T>;
    name: string;
    /** What the search matches, under the box. */
    searchHint: string;
    empty: string;
    columns: Column<T>[];
    rowKey: (item: T) => string | number;
    rowClass?: (item: T) => string | undefined;
    actions: (item: T) => ComponentChildren;
  },
) {
  const id = `search-${name}`;
  const at = list.pageIndex.value;
  const searching = list.query.value.trim() !== "";
  return (
    <>
      <div class="field inline list-search">
        <label for={id}>Search {name}</label>
        <input
          id={id}
          type="search"
          aria-describedby={`${id}-hint`}
          value={list.query.value}
          onInput={(e) => (list.query.value = e.currentTarget.value)}
        />
        <span class="hint" id={`${id}-hint`}>{searchHint}</span>
      </div>
      <ListTable
        loaded={list}
        empty={searching ? `Nothing matches “${list.query.value.trim()}”.` : empty}
        columns={columns}
        rowKey={rowKey}
        rowClass={rowClass}
        actions={actions}
      />
      {(at > 0 || list.hasNext.value) && (
        <nav class="pager" aria-label={`Pages of ${name}`}>
          <button type="button" disabled={at === 0} onClick={list.previous}>Previous</button>
          <span aria-live="polite">Page {at + 1}</span>
          <button type="button" disabled={!list.hasNext.value} onClick={list.next}>Next</button>
        </nav>
      )}
    </>
  );
}
