/**
 * One view's rows, fetched a page at a time from a cursor-paged endpoint. The list shows what is
 * loaded and tells the listing which rows are in view (`want`); the next page is asked for while
 * those come within PREFETCH_ROWS of the loaded end, so a folder of 100,000 entries costs one small
 * page before its first screen and one more per screenful after. A page that lands while the rows
 * in view had reached the loaded end (someone scrolled to the bottom) asks for the next one at
 * once, not after the page has rendered and the list has reported its range again: scrolling to
 * the end pulls pages as fast as the listing API answers them.
 */
import { batch, signal } from "@preact/signals";
import type { Page, Row } from "./api.ts";

/** The first page is small so the first screen comes fast; later pages are bigger. */
export const FIRST_PAGE = 100;
export const NEXT_PAGE = 500;
/**
 * How close to the loaded end the rows in view may come before the next page is fetched: more
 * than a screenful, so the page after the first comes at once and scrolling rarely waits.
 */
export const PREFETCH_ROWS = 300;

export type PageSource = (cursor: string | null, ps: number) => Promise<Page>;

export class Listing {
  readonly rows = signal<Row[]>([]);
  readonly loading = signal(false);
  /** No more pages: the rows are the whole listing. */
  readonly done = signal(false);
  readonly error = signal<string | null>(null);
  private cursor: string | null = null;
  private started = false;
  /** The view moved on (page.tsx): a page still on its way asks for no next one. */
  private closed = false;
  /** The end (exclusive) of the rows in view, as the list last reported it. */
  private inView = 0;
  /** The loaded length before the last page that landed, when that page asked for the next. */
  private chainedAt = 0;
  /**
   * The rs of every row in `rows`, so a page drops the rows a live update or an upload put in
   * already without a pass over all the rows loaded. Valid while `rows` holds `indexed`: others
   * (live.ts, upload/zone.tsx, page.tsx) set `rows` directly, and the next page re-reads it then.
   */
  private known = new Set<number>();
  private indexed: Row[] = [];

  constructor(private readonly source: PageSource) {}

  /** The list's rendered range changed: fetches the next page when its end comes near. */
  want(last: number): void {
    this.inView = last;
    if (last + PREFETCH_ROWS >= this.rows.value.length) void this.more();
  }

  /** Fetches the next page unless one is on its way or the end was reached. */
  async more(): Promise<void> {
    if (this.loading.value || this.done.value) return;
    this.loading.value = true;
    let again = false;
    try {
      const page = await this.source(this.cursor, this.started ? NEXT_PAGE : FIRST_PAGE);
      this.started = true;
      const before = this.rows.value;
      const seen = this.seen();
      const fresh = page.rows.filter((r) => !seen.has(r.rs) && (seen.add(r.rs), true));
      // concat copies references only (well under a millisecond for 100,000 rows); the signal
      // needs a new array for its readers (the page, live.ts) to see the change.
      const after = fresh.length ? before.concat(fresh) : before;
      this.indexed = after;
      batch(() => {
        this.cursor = page.next;
        this.rows.value = after;
        this.done.value = page.next === null;
      });
      again = !this.done.value && !this.closed && this.next(before.length, after.length);
      this.chainedAt = again ? before.length : 0;
    } catch (err) {
      this.error.value = (err as Error).message;
      this.done.value = true;
    } finally {
      this.loading.value = false;
    }
    if (again) await this.more();
  }

  /**
   * Whether a page that took the rows from `before` to `after` asks for the next one at once:
   * while the rows in view are within PREFETCH_ROWS of the new end; or had reached the end as it
   * was (someone at the bottom, waiting); or had reached it one page earlier, after that page asked
   * for this one (the list reports the new end only after the page renders and the next scroll, a
   * frame or two later). So a view that stays put at the end gets at most two pages more.
   */
  private next(before: number, after: number): boolean {
    if (this.inView + PREFETCH_ROWS >= after) return true;
    if (before > 0 && this.inView >= before) return true;
    return this.chainedAt > 0 && this.inView >= this.chainedAt;
  }

  /** The view no longer shows these rows: no further page is fetched for them. */
  close(): void {
    this.closed = true;
  }

  /** Changes rows in place (rename), without a new fetch. */
  update(rs: number, change: Partial<Row>): void {
    this.rows.value = this.rows.value.map((r) => r.rs === rs ? { ...r, ...change } : r);
  }

  /** Takes rows out (trashed, restored or purged elsewhere in this view). */
  remove(rss: ReadonlySet<number>): void {
    this.rows.value = this.rows.value.filter((r) => !rss.has(r.rs));
  }

  /** The rs of the rows loaded, re-read only when someone else set `rows` since the last page. */
  private seen(): Set<number> {
    const rows = this.rows.value;
    if (rows !== this.indexed) {
      this.known = new Set(rows.map((r) => r.rs));
      this.indexed = rows;
    }
    return this.known;
  }
}
