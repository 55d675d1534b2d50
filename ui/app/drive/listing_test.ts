/**
 * The Listing (listing.ts) over a fake page source: paging to the end, the next page asked for at
 * once while the rows in view are at the loaded end, rows put in by others (live updates,
 * uploads) not listed twice, and a closed listing asking for nothing more.
 */
import assert from "node:assert/strict";
import type { Page, Row } from "./api.ts";
import { FIRST_PAGE, Listing, NEXT_PAGE, PREFETCH_ROWS } from "./listing.ts";

const row = (rs: number): Row => ({
  rs,
  name: `item ${rs}`,
  type: "FOLDER",
  size: 0,
  updatedAt: null,
});

/** A listing of rs 1..total, paged by a numeric cursor; records every page size asked for. */
function source(total: number) {
  const asked: number[] = [];
  const fetch = (cursor: string | null, ps: number): Promise<Page> => {
    asked.push(ps);
    const from = cursor ? Number(cursor) : 0;
    const to = Math.min(total, from + ps);
    const rows = [];
    for (let i = from; i < to; i++) rows.push(row(i + 1));
    return Promise.resolve({ rows, next: to < total ? String(to) : null });
  };
  return { fetch, asked };
}

const rss = (l: Listing) => l.rows.value.map((r) => r.rs);

/** Until no page is on its way (a page that lands may ask for the next one at once). */
async function idle(l: Listing) {
  while (l.loading.value) await new Promise((r) => setTimeout(r, 0));
}

Deno.test("a listing pages from a small first page to the end, each row once", async () => {
  const s = source(FIRST_PAGE + 2 * NEXT_PAGE + 7);
  const l = new Listing(s.fetch);
  l.want(10); // a screenful in view before anything is loaded
  await idle(l);
  // The first page landed with the view at the loaded end: the second came at once.
  assert.deepEqual(s.asked, [FIRST_PAGE, NEXT_PAGE]);
  assert.equal(l.rows.value.length, FIRST_PAGE + NEXT_PAGE);
  assert.equal(l.done.value, false);
  // Far from the end: nothing more is asked for.
  l.want(20);
  assert.equal(l.loading.value, false);
  while (!l.done.value) {
    l.want(l.rows.value.length);
    await idle(l);
  }
  assert.deepEqual(rss(l), Array.from({ length: FIRST_PAGE + 2 * NEXT_PAGE + 7 }, (_, i) => i + 1));
  await l.more(); // at the end: no further request
  assert.equal(s.asked.length, 4);
});

Deno.test("a listing whose view stays at the loaded end pulls every page in a row", async () => {
  const total = FIRST_PAGE + 5 * NEXT_PAGE;
  const s = source(total);
  const l = new Listing(s.fetch);
  // Someone at the bottom: the list reports the new end each time rows land.
  l.rows.subscribe((rows) => l.want(rows.length));
  l.want(0);
  await idle(l);
  assert.equal(l.rows.value.length, total);
  assert.equal(l.done.value, true);
  assert.equal(s.asked.length, 6);
});

Deno.test("a view at the end that reports the new end a page late still pulls every page", async () => {
  const total = FIRST_PAGE + 6 * NEXT_PAGE;
  const s = source(total);
  const l = new Listing(s.fetch);
  await l.more();
  await idle(l);
  // Someone scrolls to the bottom, and stays there. The list learns of new rows only when they
  // render and the next scroll comes: by then the page after may have landed too. Here the view
  // reports the end as it was one page before the last.
  const ends = [l.rows.value.length, l.rows.value.length];
  l.rows.subscribe((rows) => {
    ends.push(rows.length);
    l.want(ends[ends.length - 3]);
  });
  await idle(l);
  assert.equal(l.rows.value.length, total);
  assert.equal(l.done.value, true);
});

Deno.test("a view that stops at the loaded end gets at most two pages more", async () => {
  const s = source(20 * NEXT_PAGE);
  const l = new Listing(s.fetch);
  await l.more();
  await idle(l);
  const end = FIRST_PAGE + NEXT_PAGE;
  assert.equal(l.rows.value.length, end);
  l.want(end);
  await idle(l);
  assert.equal(l.rows.value.length, end + 3 * NEXT_PAGE);
  assert.equal(s.asked.length, 5);
});

Deno.test("a listing with the view well above the end asks only within the prefetch window", async () => {
  const s = source(10 * NEXT_PAGE);
  const l = new Listing(s.fetch);
  await l.more();
  await idle(l);
  l.want(30);
  await idle(l);
  assert.equal(l.rows.value.length, FIRST_PAGE + NEXT_PAGE);
  l.want(FIRST_PAGE + NEXT_PAGE - PREFETCH_ROWS - 1);
  assert.equal(l.loading.value, false);
  l.want(FIRST_PAGE + NEXT_PAGE - PREFETCH_ROWS);
  assert.equal(l.loading.value, true);
  await idle(l);
  assert.equal(l.rows.value.length, FIRST_PAGE + 2 * NEXT_PAGE);
});

Deno.test("rows put in by others are not listed again when their page comes", async () => {
  const total = FIRST_PAGE + 2 * NEXT_PAGE;
  const s = source(total);
  const l = new Listing(s.fetch);
  await l.more();
  await idle(l);
  assert.equal(l.rows.value.length, FIRST_PAGE + NEXT_PAGE);
  // A live update or an upload puts in a row of the page not loaded yet, and a new one, on top.
  const later = FIRST_PAGE + NEXT_PAGE + 3;
  l.rows.value = [row(later), row(99_999), ...l.rows.value];
  l.want(l.rows.value.length);
  await idle(l);
  const all = rss(l);
  assert.equal(new Set(all).size, all.length, "no row twice");
  assert.equal(all.length, total + 1);
  assert.deepEqual(all.slice(0, 2), [later, 99_999]);
  assert.equal(l.done.value, true);
});

Deno.test("rows taken out stay out and renamed rows keep their place", async () => {
  const s = source(FIRST_PAGE + NEXT_PAGE);
  const l = new Listing(s.fetch);
  await l.more();
  await idle(l);
  l.remove(new Set([1, 2]));
  l.update(3, { name: "renamed" });
  assert.deepEqual(rss(l).slice(0, 2), [3, 4]);
  assert.equal(l.rows.value[0].name, "renamed");
  assert.equal(l.done.value, true);
  assert.equal(l.rows.value.length, FIRST_PAGE - 2 + NEXT_PAGE);
});

Deno.test("a closed listing asks for no page after the one on its way", async () => {
  const s = source(10 * NEXT_PAGE);
  const l = new Listing(s.fetch);
  l.want(0);
  l.close();
  await idle(l);
  assert.deepEqual(s.asked, [FIRST_PAGE]);
});
