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
import {
  findChildByName,
  freeName,
  MAX_NAME_LENGTH,
  numberedName,
  splitExtension,
  validateName,
  writeResource,
} from "./resources.ts";

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
  writeResource(late, null, { ...taken, rs: taken.rs + 100, name: "TAKEN" });
  assert.equal((await late.commit()).ok, false);
  assert.equal((await findChildByName(d.kv, alice.userSeq, null, "taken"))?.rs, taken.rs);
  // A case change keeps the resource's own slot, so it needs no free one.
  const recase = d.kv.atomic();
  writeResource(recase, taken, { ...taken, name: "TAKEN" });
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
