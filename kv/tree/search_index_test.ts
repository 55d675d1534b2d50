/**
 * The token rule of search (search_index.ts): folding, cutting names into tokens, query words,
 * and the token keys writeResource keeps in step with the resource.
 */
import assert from "node:assert/strict";
import { searchTokenKey } from "../keys.ts";
import { domainTest, newFile, newFolder, newUser, trash } from "../testing.ts";
import { renameResource } from "./moves.ts";
import {
  compareCodePoints,
  firstIndexedMatch,
  foldForSearch,
  indexedTokens,
  indexSearchTokens,
  MAX_TOKEN_CHARS,
  MAX_TOKENS,
  nameMatches,
  nameTokens,
  queryTokens,
  type SearchEntry,
} from "./search_index.ts";
import { restoreTrashed } from "./trash.ts";

Deno.test("folding drops case, accents and compatibility forms, spells out ß and friends", () => {
  const cases: [string, string][] = [
    ["Résumé", "resume"],
    ["ÉCOLE", "ecole"],
    ["Straße", "strasse"],
    ["STRASSE", "strasse"],
    ["Øre Æble Œuvre", "ore aeble oeuvre"],
    ["Łódź", "lodz"],
    ["ＡＢＣ１２３", "abc123"], // full-width
    ["ﬁle", "file"], // ligature
    ["İstanbul", "istanbul"],
    ["Crème brûlée", "creme brulee"],
    ["회의록", "회의록"], // Hangul stays composed
    ["e\u0301", "e"], // decomposed input
  ];
  for (const [input, folded] of cases) assert.equal(foldForSearch(input), folded, input);
});

Deno.test("a name's tokens: words, camelCase humps, letter/digit changes, whole runs too", () => {
  assert.deepEqual(nameTokens("Q3 Report.pdf"), ["q3", "report", "pdf", "q", "3"]);
  assert.deepEqual(nameTokens("QuarterlyReport_final-v2.xlsx"), [
    "quarterlyreport",
    "final",
    "v2",
    "xlsx",
    "quarterly",
    "report",
    "v",
    "2",
  ]);
  assert.deepEqual(nameTokens("XMLParser"), ["xmlparser", "xml", "parser"]);
  assert.deepEqual(nameTokens("회의록2024 (최종).hwp"), [
    "회의록2024",
    "최종",
    "hwp",
    "회의록",
    "2024",
  ]);
  assert.deepEqual(nameTokens("...---..."), []);
  assert.deepEqual(nameTokens("Café Crème"), ["cafe", "creme"]);
});

Deno.test("indexed tokens are distinct, cut and bounded", () => {
  const long = "a".repeat(40);
  assert.deepEqual(indexedTokens(`${long} ${long}`), ["a".repeat(MAX_TOKEN_CHARS)]);
  const many = Array.from({ length: 30 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${i}`)
    .join(" ");
  assert.equal(indexedTokens(many).length, MAX_TOKENS);
  // Whole runs come before the parts, so a long name keeps its words.
  assert.deepEqual(indexedTokens(many).slice(0, 3), ["wa0", "wb1", "wc2"]);
});

Deno.test("query words: folded, cut at humps, redundant prefixes dropped", () => {
  assert.deepEqual(queryTokens("rep"), ["rep"]);
  assert.deepEqual(queryTokens("  Q3Report "), ["q", "3", "report"]);
  assert.deepEqual(queryTokens("rep report"), ["report"]);
  assert.deepEqual(queryTokens("RÉSUMÉ"), ["resume"]);
  assert.deepEqual(queryTokens("*** ..."), []);
});

Deno.test("a name matches when every query word prefixes one of its tokens", () => {
  assert.ok(nameMatches("Q3 Report.pdf", queryTokens("rep")));
  assert.ok(nameMatches("Q3 Report.pdf", queryTokens("q3 rep")));
  assert.ok(nameMatches("Q3Report.pdf", queryTokens("Q3 Report")));
  assert.ok(nameMatches("Q3 Report.pdf", queryTokens("Q3Report")));
  assert.ok(nameMatches("QuarterlyReport.xlsx", queryTokens("quarterlyrep")));
  assert.ok(nameMatches("Straße.txt", queryTokens("strasse")));
  assert.ok(nameMatches("Résumé.docx", queryTokens("resu")));
  assert.ok(!nameMatches("Q3 Report.pdf", queryTokens("port")), "prefixes only, not infixes");
  assert.ok(!nameMatches("Q3 Report.pdf", queryTokens("rep q4")), "every word must match");
});

Deno.test("code point order is KV's order, not UTF-16's", () => {
  // U+FF41 (one UTF-16 unit) sorts before U+1F600 (a surrogate pair) by code point.
  assert.ok(compareCodePoints("\uff41", "\u{1f600}") < 0);
  assert.ok("\uff41" > "\u{1f600}", "UTF-16 order differs here");
  assert.equal(compareCodePoints("ab", "ab"), 0);
  assert.ok(compareCodePoints("ab", "abc") < 0);
});

Deno.test("a name with several tokens on one prefix is counted under the first only", () => {
  assert.equal(firstIndexedMatch("report reports.txt", "rep"), "report");
  assert.equal(firstIndexedMatch("reports report.txt", "rep"), "report");
  assert.equal(firstIndexedMatch("notes.txt", "rep"), null);
});

/** The tokens the index holds for owner `ownerSeq`, as "token:rs". */
async function indexed(kv: Deno.Kv, ownerSeq: number): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list<SearchEntry>({ prefix: searchTokenKey(ownerSeq) })) {
    out.push(`${String(e.key[2])}:${String(e.key[3])}`);
  }
  return out.sort();
}

domainTest("writeResource keeps the tokens in step: create, rename, trash, restore", async (d) => {
  const alice = await newUser(d, "alice");
  const folder = await newFolder(d, alice, "Q3 Plans");
  const file = await newFile(d, alice, "Budget.xlsx", "x", folder.rs);
  /** Every token of the folder's name and of the file's, whose stem is `stem` now. */
  const bothTokens = (stem: string) =>
    [
      `3:${folder.rs}`,
      `${stem}:${file.rs}`,
      `plans:${folder.rs}`,
      `q3:${folder.rs}`,
      `q:${folder.rs}`,
      `xlsx:${file.rs}`,
    ].sort();
  assert.deepEqual(await indexed(d.kv, alice.userSeq), bothTokens("budget"));
  await renameResource(d, {
    rs: file.rs,
    name: "Forecast.xlsx",
    onConflict: "fail",
    actorSeq: alice.userSeq,
  });
  const afterRename = await indexed(d.kv, alice.userSeq);
  assert.ok(afterRename.includes(`forecast:${file.rs}`));
  assert.ok(!afterRename.includes(`budget:${file.rs}`));
  await trash(d, alice, folder);
  // The trashed folder loses its tokens; its contents keep theirs (search drops them by path).
  assert.deepEqual(await indexed(d.kv, alice.userSeq), [
    `forecast:${file.rs}`,
    `xlsx:${file.rs}`,
  ]);
  await restoreTrashed(d, { rs: folder.rs, ownerSeq: alice.userSeq, actorSeq: alice.userSeq });
  assert.deepEqual(await indexed(d.kv, alice.userSeq), bothTokens("forecast"));
});

domainTest(
  "the backfill indexes resources stored before the index, and is idempotent",
  async (d) => {
    const alice = await newUser(d, "alice");
    const file = await newFile(d, alice, "Old Name.txt", "x");
    const before = await indexed(d.kv, alice.userSeq);
    for await (const e of d.kv.list({ prefix: searchTokenKey(alice.userSeq) })) {
      await d.kv.delete(e.key);
    }
    assert.deepEqual(await indexed(d.kv, alice.userSeq), []);
    await indexSearchTokens(d.kv);
    await indexSearchTokens(d.kv);
    assert.deepEqual(await indexed(d.kv, alice.userSeq), before);
    assert.ok(before.includes(`old:${file.rs}`));
  },
);
