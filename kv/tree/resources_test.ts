/**
 * Name rules of the tree: what validateName accepts (NFC, counted in characters), how a taken
 * name is numbered ("name (n).ext"), and that names are unique per folder ignoring case and
 * Unicode normalisation, enforced in the commit that creates the resource.
 */
import assert from "node:assert/strict";
import { DriveError } from "../errors.ts";
import { assertFails, domainTest, newFile, newFolder, newUser, raceWinners } from "../testing.ts";
import { createFolder } from "./folders.ts";
import { renameResource } from "./moves.ts";
import { findChildByName, freeName, writeResource } from "./resources.ts";
import {
  MAX_NAME_LENGTH,
  nameCharacterProblem,
  numberedName,
  splitExtension,
  validateName,
} from "./names.ts";

/** The DriveError validateName throws for `name`, or null when it accepts it. */
function nameError(name: string, field = "fn"): DriveError | null {
  try {
    validateName(name, field);
    return null;
  } catch (err) {
    if (err instanceof DriveError) return err;
    throw err;
  }
}

Deno.test("validateName accepts ordinary names and returns them NFC-normalised", () => {
  for (const name of ["a", "report.docx", ".hidden", "...", " padded ", "日本語.txt", "a b-c_d"]) {
    assert.equal(validateName(name, "fn"), name);
  }
  const decomposed = "Cafe\u0301.txt";
  assert.equal(validateName(decomposed, "fn"), "Caf\u00e9.txt");
  assert.equal(validateName(decomposed, "fn").length, decomposed.length - 1);
});

Deno.test("validateName counts characters after NFC, not UTF-16 units or raw code points", () => {
  const longest = "x".repeat(MAX_NAME_LENGTH);
  assert.equal(validateName(longest, "fn"), longest);
  // 255 emoji are 510 UTF-16 units but 255 characters.
  const emoji = "\u{1F600}".repeat(MAX_NAME_LENGTH);
  assert.equal(validateName(emoji, "fn"), emoji);
  // 255 decomposed "é" are 510 code points, 255 once composed.
  assert.equal(validateName("e\u0301".repeat(MAX_NAME_LENGTH), "fn"), "é".repeat(255));
  assert.equal(nameError("x".repeat(MAX_NAME_LENGTH + 1))?.code, "RESOURCE_004");
  assert.equal(nameError("\u{1F600}".repeat(MAX_NAME_LENGTH + 1))?.code, "RESOURCE_004");
});

Deno.test("validateName refuses empty, dot, slash and control-character names with RESOURCE_004", () => {
  const refused: [string, string][] = [
    ["", "empty"],
    ["   ", "blank"],
    ["\t", "whitespace only (and a control character)"],
    [".", "dot"],
    ["..", "dot-dot"],
    ["a/b", "slash"],
    ["/", "slash only"],
    ["a\\b", "backslash"],
    ["a\u0000b", "NUL"],
    ["a\nb", "newline"],
    ["a\u001fb", "last C0 character"],
    ["a\u007fb", "DEL"],
    ["a\u0085b", "C1 (NEL)"],
    ["a\u009fb", "last C1 character"],
  ];
  for (const [name, what] of refused) {
    const err = nameError(name, "rn");
    assert.equal(err?.code, "RESOURCE_004", `${what}: ${JSON.stringify(name)}`);
    assert.equal(err?.field, "rn", `${what} names the request field`);
  }
  // Just outside the control ranges: allowed.
  assert.equal(validateName("a\u00a0b", "fn"), "a\u00a0b");
  assert.equal(validateName("a ~b", "fn"), "a ~b");
});

Deno.test("validateName refuses lone surrogates, naming the code point and the field", () => {
  for (const [name, cp, at] of [["a\ud800b", "U+D800", 2], ["x.txt\udfff", "U+DFFF", 6]] as const) {
    const err = nameError(name, "filename");
    assert.equal(err?.code, "RESOURCE_004", JSON.stringify(name));
    assert.equal(err?.field, "filename");
    assert.match(err!.message, /^filename must not contain a lone surrogate/);
    assert.ok(err!.message.includes(`${cp} at character ${at}`), err!.message);
  }
  // A surrogate pair is one character, not two lone halves.
  assert.equal(validateName("\ud83d\ude00.png", "fn"), "\u{1F600}.png");
});

Deno.test("validateName refuses every bidirectional control, naming it (the invoice\u202efdp.exe spoof)", () => {
  const bidi = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067];
  for (const cp of [...bidi, 0x2068, 0x2069]) {
    const hex = cp.toString(16).toUpperCase().padStart(4, "0");
    const err = nameError(`invoice${String.fromCodePoint(cp)}fdp.exe`, "rn");
    assert.equal(err?.code, "RESOURCE_004", `U+${hex}`);
    assert.equal(err?.field, "rn");
    assert.match(err!.message, /^rn must not contain a bidirectional control character/);
    assert.ok(err!.message.includes(`U+${hex}`), err!.message);
    assert.ok(err!.message.includes("at character 8"), err!.message);
  }
  assert.match(nameError("invoice\u202efdp.exe")!.message, /U\+202E RIGHT-TO-LEFT OVERRIDE/);
});

Deno.test("validateName refuses invisible format characters (Cf and default-ignorable)", () => {
  const invisible: [string, string][] = [
    ["a\u200bb", "U+200B"], // zero width space
    ["a\u2060b", "U+2060"], // word joiner
    ["a\u2061b", "U+2061"],
    ["a\u2064b", "U+2064"],
    ["\ufeffreport.txt", "U+FEFF"], // byte order mark / zero width no-break space
    ["in\u00advoice.pdf", "U+00AD"], // soft hyphen
    ["a\u180eb", "U+180E"], // Mongolian vowel separator
    ["a\ufff9b", "U+FFF9"], // interlinear annotation anchor (Cf, not default-ignorable)
    ["a\u034fb", "U+034F"], // combining grapheme joiner (default-ignorable, not Cf)
    ["\u3164", "U+3164"], // Hangul filler: a name that looks empty
    ["a\uffa0b", "U+FFA0"],
    ["a\u{E0041}b", "U+E0041"], // a tag character outside a flag
    ["a\u200db", "U+200D"], // a joiner between Latin letters only hides itself
    ["\u200cabc", "U+200C"],
    ["abc\u200d", "U+200D"],
  ];
  for (const [name, cp] of invisible) {
    const err = nameError(name, "fn");
    assert.equal(err?.code, "RESOURCE_004", `${cp} in ${JSON.stringify(name)}`);
    assert.equal(err?.field, "fn");
    assert.ok(err!.message.startsWith("fn must not contain "), err!.message);
    assert.ok(err!.message.includes(cp), `${cp}: ${err!.message}`);
  }
});

Deno.test("validateName keeps joiners and tags where writing needs them, and variation selectors", () => {
  const kept = [
    "\u{1F468}\u200d\u{1F469}\u200d\u{1F467} family.jpg", // emoji ZWJ sequence
    "\u{1F3F3}\ufe0f\u200d\u{1F308}.png", // rainbow flag: VS16 then ZWJ
    "\u{1F9D1}\u{1F3FD}\u200d\u{1F4BB} notes.txt", // skin tone modifier then ZWJ
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645.txt", // Persian: ZWNJ between letters
    "\u0915\u094d\u200d\u0937.txt", // Devanagari: ZWJ after virama
    "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}.png", // flag of Scotland
    "\u2764\ufe0f.txt", // emoji presentation selector after a text-style emoji
    "\u231a\ufe0e.txt", // text presentation selector after an emoji-style one
    "\u0031\ufe0f\u20e3 first.txt", // keycap
    "\u{1F469}\u200d\u2764\ufe0f\u200d\u{1F48B}\u200d\u{1F468}.png",
    "\u{1F3C3}\u200d\u2640\ufe0f.png",
    "\u{1F441}\ufe0f\u200d\u{1F5E8}\ufe0f.png",
    "\u{1F1F0}\u{1F1F7}.png", // regional indicators are visible symbols
    "\u845b\u{E0100}.txt", // ideographic variation selector
    "\u182d\u180b\u1820.txt", // Mongolian free variation selector
  ];
  for (const name of kept) assert.equal(validateName(name, "fn"), name.normalize("NFC"), name);
  // The same characters where they change nothing are as invisible as any other.
  const invisible = [
    "a\u{E007F}", // a cancel tag without its flag
    "\u{1F3F4}\u{E007F}.png", // a flag and a cancel tag with no tags between
    "\u{1F3F4}\u{E0067}\u{E0062}.png", // tags never cancelled
    "a\ufe0f.txt", // VS16 after a letter
    "\u{1F600}\ufe0f.txt", // VS16 after an emoji that is emoji-style already
    "1\ufe0f.txt", // a keycap base without the keycap
    "\u2764\ufe0f\ufe0f.txt", // a second selector
    "a\ufe00.txt",
    "a\u180b.txt", // a Mongolian selector after Latin
    "a\ufe0f\u200d\u{1F600}", // a ZWJ "sequence" that starts with a letter
  ];
  for (const name of invisible) {
    assert.equal(nameError(name)?.code, "RESOURCE_004", JSON.stringify(name));
  }
  // A name of only variation selectors or spaces shows nothing.
  assert.equal(nameError("\ufe0f")?.code, "RESOURCE_004");
  assert.equal(nameError(" \ufe0f ")?.code, "RESOURCE_004");
});

Deno.test("validateName names the control character it refuses", () => {
  const err = nameError("a\u0085b", "fn");
  assert.equal(err?.code, "RESOURCE_004");
  assert.match(err!.message, /^fn must not contain a control character \(U\+0085 at character 2\)/);
});

Deno.test("nameCharacterProblem is the character rule alone, for edges that word their own errors", () => {
  assert.equal(nameCharacterProblem("report.docx"), null);
  assert.equal(nameCharacterProblem("Cafe\u0301.txt"), null);
  assert.match(nameCharacterProblem("a\u202eb")!, /^must not contain a bidirectional control/);
  assert.match(nameCharacterProblem("a\ud800")!, /^must not contain a lone surrogate/);
  // Structure (empty, dots, slashes, length) is validateName's, not this rule's.
  assert.equal(nameCharacterProblem(".."), null);
  assert.equal(nameCharacterProblem("a/b"), null);
});

Deno.test("splitExtension splits at the last dot; dotfiles have no extension", () => {
  assert.deepEqual(splitExtension("report.final.docx"), ["report.final", ".docx"]);
  assert.deepEqual(splitExtension("README"), ["README", ""]);
  assert.deepEqual(splitExtension(".bashrc"), [".bashrc", ""]);
  assert.deepEqual(splitExtension(".config.json"), [".config", ".json"]);
});

Deno.test("numberedName puts ' (n)' before the extension and stays within the name limit", () => {
  assert.equal(numberedName("a.txt", 1), "a (1).txt");
  assert.equal(numberedName("report.final.docx", 12), "report.final (12).docx");
  assert.equal(numberedName("Folder", 2), "Folder (2)");
  assert.equal(numberedName(".bashrc", 3), ".bashrc (3)");
  // A name at the limit loses characters of its base, never of its extension.
  const long = `${"b".repeat(MAX_NAME_LENGTH - 5)}.docx`;
  const numbered = numberedName(long, 7);
  assert.equal([...numbered].length, MAX_NAME_LENGTH);
  assert.ok(numbered.endsWith("b (7).docx"), numbered);
  assert.equal(validateName(numbered, "fn"), numbered);
});

domainTest(
  "freeName skips taken names ignoring case, and may ignore the resource itself",
  async (d) => {
    const alice = await newUser(d, "alice");
    const taken = await newFile(d, alice, "a.txt", "1");
    await newFile(d, alice, "A (1).TXT", "2");
    assert.equal(await freeName(d.kv, alice.userSeq, null, "b.txt"), "b.txt");
    assert.equal(await freeName(d.kv, alice.userSeq, null, "a.txt"), "a (2).txt");
    assert.equal(await freeName(d.kv, alice.userSeq, null, "A.TXT"), "A (2).TXT");
    assert.equal(await freeName(d.kv, alice.userSeq, null, "a.txt", taken.rs), "a.txt");
    // Names are per folder and per drive.
    const folder = await newFolder(d, alice, "Sub");
    assert.equal(await freeName(d.kv, alice.userSeq, folder.rs, "a.txt"), "a.txt");
    const bob = await newUser(d, "bob");
    assert.equal(await freeName(d.kv, bob.userSeq, null, "a.txt"), "a.txt");
  },
);

domainTest("folder names are unique per folder ignoring case and normalisation", async (d) => {
  const alice = await newUser(d, "alice");
  const reports = await newFolder(d, alice, "Reports");
  await assertFails(newFolder(d, alice, "reports"), "RESOURCE_003");
  await assertFails(newFolder(d, alice, "REPORTS"), "RESOURCE_003");
  // Files and folders share one name space.
  await assertFails(newFile(d, alice, "rePorts", "x"), "RESOURCE_003");

  const cafe = await newFolder(d, alice, "Cafe\u0301");
  assert.equal(cafe.name, "Caf\u00e9", "stored NFC");
  await assertFails(newFolder(d, alice, "Caf\u00e9"), "RESOURCE_003");
  await assertFails(newFolder(d, alice, "CAFE\u0301"), "RESOURCE_003");
  assert.equal((await findChildByName(d.kv, alice.userSeq, null, "café"))?.rs, cafe.rs);

  // The same name elsewhere is fine: inside a folder, or in another drive.
  await newFolder(d, alice, "Reports", reports.rs);
  await newFolder(d, await newUser(d, "bob"), "Reports");

  // "rename" picks the first free numbered name instead.
  const renamed = await createFolder(d, {
    ownerSeq: alice.userSeq,
    parentRs: null,
    name: "reports",
    actorSeq: alice.userSeq,
    onConflict: "rename",
  });
  assert.equal(renamed.name, "reports (1)");
});

domainTest("a rename cannot take a sibling's name in another case; its own is fine", async (d) => {
  const alice = await newUser(d, "alice");
  await newFolder(d, alice, "Plans");
  const other = await newFolder(d, alice, "Other");
  const rename = async (name: string) =>
    await renameResource(d, { rs: other.rs, name, onConflict: "fail", actorSeq: alice.userSeq });
  await assertFails(rename("PLANS"), "RESOURCE_003");
  assert.equal((await rename("OTHER")).name, "OTHER", "a case change of its own name");
  assert.equal((await findChildByName(d.kv, alice.userSeq, null, "other"))?.name, "OTHER");
  await assertFails(rename("a/b"), "RESOURCE_004", "rn");
});

domainTest("writeResource claims a new name slot only if it is still free at commit", async (d) => {
  const alice = await newUser(d, "alice");
  const taken = await newFolder(d, alice, "Taken");
  // What a create that read the name as free writes, committed after the name was taken.
  const late = d.kv.atomic();
  writeResource(late, null, { ...taken, rs: taken.rs + 100, name: "TAKEN" }, null);
  assert.equal((await late.commit()).ok, false);
  assert.equal((await findChildByName(d.kv, alice.userSeq, null, "taken"))?.rs, taken.rs);
  // A case change keeps the resource's own slot, so it needs no free one.
  const recase = d.kv.atomic();
  writeResource(recase, taken, { ...taken, name: "TAKEN" }, null);
  assert.equal((await recase.commit()).ok, true);
  assert.equal((await findChildByName(d.kv, alice.userSeq, null, "taken"))?.name, "TAKEN");
});

domainTest(
  "concurrent creates of one name: exactly one wins, the rest get RESOURCE_003",
  async (d) => {
    const alice = await newUser(d, "alice");
    const names = ["Shared", "shared", "SHARED", "Shared", "sHaReD", "Shared", "shared", "Shared"];
    const won = await raceWinners(names.map((name) => newFolder(d, alice, name)), "RESOURCE_003");
    assert.equal(won.length, 1);
    const stored = await findChildByName(d.kv, alice.userSeq, null, "shared");
    assert.equal(stored?.rs, won[0].rs);
  },
);
