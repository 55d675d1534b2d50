/**
 * One view's rows, fetched a page at a time from a cursor-paged endpoint. The list shows what is
 * loaded and asks for the next page only when the visible rows come near the end, so a folder of
 * 100,000 entries costs one small page before its first screen and one more per screenful after.
 */
import { batch, signal } from "@preact/signals";
import type { Page, Row } from "./api.ts";

/** The first page is small so the first screen comes fast; later pages are bigger. */
export const FIRST_PAGE = 100;
export const NEXT_PAGE = 500;

export type PageSource = (cursor: string | null, ps: number) => Promise<Page>;

export class Listing {
  readonly rows = signal<Row[]>([]);
  readonly loading = signal(false);
  /** No more pages: the rows are the whole listing. */
  readonly done = signal(false);
  readonly error = signal<string | null>(null);
  private cursor: string | null = null;
  private started = false;

  constructor(private readonly source: PageSource) {}

  /** Fetches the next page unless one is on its way or the end was reached. */
  async more(): Promise<void> {
    if (this.loading.value || this.done.value) return;
    this.loading.value = true;
    try {
      const page = await this.source(this.cursor, this.started ? NEXT_PAGE : FIRST_PAGE);
      this.started = true;
      batch(() => {
        this.cursor = page.next;
        // A row a live update (live.ts) put in already is not listed twice.
        const seen = new Set(this.rows.value.map((r) => r.rs));
        this.rows.value = [...this.rows.value, ...page.rows.filter((r) => !seen.has(r.rs))];
        this.done.value = page.next === null;
      });
    } catch (err) {
      this.error.value = (err as Error).message;
      this.done.value = true;
    } finally {
      this.loading.value = false;
    }
  }

  /** Changes rows in place (rename), without a new fetch. */
  update(rs: number, change: Partial<Row>): void {
    this.rows.value = this.rows.value.map((r) => r.rs === rs ? { ...r, ...change } : r);
  }

  /** Takes rows out (trashed, restored or purged elsewhere in this view). */
  remove(rss: ReadonlySet<number>): void {
    this.rows.value = this.rows.value.filter((r) => !rss.has(r.rs));
  }
}
