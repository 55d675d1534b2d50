/**
 * kv_pages.ts on a :memory: KV: paging reads every item exactly once while items are inserted
 * and deleted between pages, through plain, concatenated and nested sources; string-prefix
 * ranges; the scan bound; cursors of another shape are refused.
 */
import assert from "node:assert/strict";
import {
  BadCursorError,
  compareCodePoints,
  concatSources,
  kvSource,
  nestedSource,
  readPage,
  type Source,
  stringPrefixSelector,
} from "./kv_pages.ts";

async function readAll<T>(
  source: Source<T>,
  opts: { limit: number; maxScan: number },
  between: (page: number) => Promise<void> = async () => {},
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const got = await readPage(source, cursor, opts);
    assert.ok(got.items.length <= opts.limit);
    items.push(...got.items);
    if (got.nextCursor === null) return { items, pages: page + 1 };
    cursor = got.nextCursor;
    await between(page);
  }
  throw new Error("paging never ended");
}

Deno.test("pages read each item once while others are inserted around the cursor", async () => {
  using kv = await Deno.openKv(":memory:");
  for (let i = 0; i < 50; i += 2) await kv.set(["n", i], i);
  const source = kvSource<number, number>(kv, { prefix: ["n"] }, (e) => e.value);
  const { items } = await readAll(source, { limit: 7, maxScan: 100 }, async (page) => {
    await kv.set(["n", 1000 + page], 1000 + page); // after every cursor: must be met
    await kv.set(["n", -1 - page], -1); // before every cursor: never met
    await kv.set(["n", page * 2 + 1], page * 2 + 1); // odd, around the cursor
  });
  assert.equal(new Set(items).size, items.length, "no item twice");
  for (let i = 0; i < 50; i += 2) assert.ok(items.includes(i), `even ${i} present`);
  assert.deepEqual(items, [...items].sort((a, b) => a - b), "key order");
  assert.ok(items.some((i) => i >= 1000), "inserts after the cursor are met");
  assert.ok(!items.includes(-1), "inserts before the cursor are not");
});

Deno.test("a full last page answers nextCursor null; the scan bound cuts pages short", async () => {
  using kv = await Deno.openKv(":memory:");
  for (let i = 0; i < 10; i++) await kv.set(["n", i], i);
  const all = kvSource<number, number>(kv, { prefix: ["n"] }, (e) => e.value);
  assert.deepEqual(await readPage(all, undefined, { limit: 10, maxScan: 100 }), {
    items: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    nextCursor: null,
  });
  const nines = kvSource<number, number>(kv, { prefix: ["n"] }, (e) => e.value === 9 ? 9 : null);
  const first = await readPage(nines, undefined, { limit: 5, maxScan: 4 });
  assert.deepEqual(first.items, []);
  assert.notEqual(first.nextCursor, null, "a short page still has a cursor");
  const { items, pages } = await readAll(nines, { limit: 5, maxScan: 4 });
  assert.deepEqual(items, [9]);
  assert.equal(pages, 3);
});

Deno.test("stringPrefixSelector is exactly the keys starting with the text", async () => {
  using kv = await Deno.openKv(":memory:");
  const words = ["al", "ala", "alb", "alz", "al\u{1F600}", "am", "ak", "a", "b", "Al"];
  for (const w of words) await kv.set(["w", w], w);
  const got = (await Array.fromAsync(kv.list<string>(stringPrefixSelector(["w"], "al"))))
    .map((e) => e.value);
  assert.deepEqual(got.sort(compareCodePoints), words.filter((w) => w.startsWith("al")).sort());
  assert.ok(compareCodePoints("\u{1F600}", "\uFFFF") > 0, "code point order, not UTF-16");
});

Deno.test("concatenated and nested sources page without skipping or repeating", async () => {
  using kv = await Deno.openKv(":memory:");
  for (const g of ["a", "b", "c"]) {
    await kv.set(["group", g], g);
    for (let i = 0; i < 5; i++) await kv.set(["member", g, i], `${g}${i}`);
  }
  await kv.set(["extra", 1], "x1");
  const members = (g: string) =>
    kvSource<string, string>(kv, { prefix: ["member", g] }, (e) => e.value);
  const groups = kvSource<string, string>(kv, { prefix: ["group"] }, (e) => e.value);
  const source = concatSources([
    kvSource<string, string>(kv, { prefix: ["extra"] }, (e) => e.value),
    nestedSource(groups, members, (g) => g),
  ]);
  const { items } = await readAll(source, { limit: 3, maxScan: 100 }, async (page) => {
    if (page === 1) await kv.set(["group", "0"], "0"); // before the group being read
    if (page === 1) await kv.set(["member", "b", 9], "b9"); // after the member cursor
  });
  assert.deepEqual(items, [
    "x1",
    ...["a0", "a1", "a2", "a3", "a4"],
    ...["b0", "b1", "b2", "b3", "b4", "b9"],
    ...["c0", "c1", "c2", "c3", "c4"],
  ]);
});

Deno.test("a cursor of another shape is a BadCursorError", async () => {
  using kv = await Deno.openKv(":memory:");
  await kv.set(["n", 1], 1);
  const plain = kvSource<number, number>(kv, { prefix: ["n"] }, (e) => e.value);
  const opts = { limit: 5, maxScan: 10 };
  await assert.rejects(readPage(plain, "not a cursor", opts), BadCursorError);
  await assert.rejects(readPage(concatSources([plain]), "[7,null]", opts), BadCursorError);
  await assert.rejects(readPage(concatSources([plain]), "{", opts), BadCursorError);
  const nested = nestedSource(plain, () => plain, String);
  await assert.rejects(readPage(nested, '{"o":5}', opts), BadCursorError);
});
