/**
 * The name rule of every path that names something (drive API, provider, restore, copy): which
 * characters a file or folder name may hold, the NFC form it is stored in, the name slot that
 * makes names unique per folder whatever their case, and the numbered names of the collision
 * rules.
 */
import { fail } from "../errors.ts";

export const MAX_NAME_LENGTH = 255;

/** The name slot a name takes in its folder: NFC and lowercase, so names differing by case clash. */
export const nameKeyOf = (name: string) => name.normalize("NFC").toLowerCase();

/*
 * The characters of a name (nameCharacterProblem). Refused:
 * - lone surrogates: not Unicode at all (a KV key stores one as U+FFFD, so different names would
 *   share one index slot);
 * - C0, DEL and C1 controls: the storage provider protocol refuses them in a path segment;
 * - bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069): they make a
 *   name display differently from what it is ("invoice\u202efdp.exe" shows as "invoiceexe.pdf");
 * - every other format character (category Cf) and default-ignorable code point: they render as
 *   nothing (or as a hidden hyphen), so two names differing only by them look identical.
 * Kept where writing needs them, and only there (elsewhere they are just as invisible):
 * - ZWJ inside an emoji sequence (a pictograph, skin tone or VS16 before it, a pictograph after);
 * - ZWJ and ZWNJ between letters or marks of a script whose spelling uses them (JOINING_SCRIPT:
 *   Persian "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", Devanagari half forms);
 * - tag characters between U+1F3F4 and U+E007F (subdivision flags);
 * - variation selectors after a character they change: VS16 after a text-style emoji (and a keycap
 *   base when U+20E3 follows), VS15 after an emoji, VS1–VS14 and the ideographic selectors after
 *   an ideograph, a math symbol or Myanmar, the Mongolian selectors after Mongolian.
 * Confusable letters of different scripts (Latin "a", Cyrillic "\u0430") are not this rule's: they
 * are visible characters, and telling them apart is the client's display (UTS #39).
 */
const BIDI_CONTROLS: Record<number, string> = {
  0x061c: "ARABIC LETTER MARK",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
};
/** Names of the invisible characters people meet most, for the error message. */
const INVISIBLE_NAMES: Record<number, string> = {
  0x00ad: "SOFT HYPHEN",
  0x034f: "COMBINING GRAPHEME JOINER",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x2060: "WORD JOINER",
  0x3164: "HANGUL FILLER",
  0xfe0e: "VARIATION SELECTOR-15",
  0xfe0f: "VARIATION SELECTOR-16",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
};
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const VS15 = 0xfe0e;
const VS16 = 0xfe0f;
const KEYCAP = 0x20e3;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const isTag = (cp: number | undefined) => cp !== undefined && cp >= 0xe0020 && cp <= 0xe007e;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const EMOJI_SELECTOR = /[\ufe0e\ufe0f]/u;
const OTHER_SELECTOR = /[\ufe00-\ufe0d\u{e0100}-\u{e01ef}]/u;
const MONGOLIAN_SELECTOR = /[\u180b-\u180d\u180f]/u;
const EMOJI = /\p{Emoji}/u;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const KEYCAP_BASE = /[0-9#*]/;
const VARIANT_BASE = /[\p{Ideographic}\p{Sm}\p{scx=Myanmar}]/u;
const MONGOLIAN = /^(?=[\p{L}\p{M}])\p{scx=Mongolian}$/u;
/** Before a ZWJ in an emoji sequence (a pictograph, a skin tone, or VS16 after a pictograph). */
const EMOJI_BEFORE_ZWJ = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\ufe0f]/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
/** Letters and marks of the scripts whose spelling uses ZWJ and ZWNJ (Arabic, Indic, ...). */
const JOINING_SCRIPT = new RegExp(
  "^(?=[\\p{L}\\p{M}])[" +
    [
      "Arabic",
      "Syriac",
      "Nko",
      "Mongolian",
      "Devanagari",
      "Bengali",
      "Gurmukhi",
      "Gujarati",
      "Oriya",
      "Tamil",
      "Telugu",
      "Kannada",
      "Malayalam",
      "Sinhala",
      "Khmer",
      "Myanmar",
      "Tibetan",
    ].map((s) => `\\p{scx=${s}}`).join("") + "]$",
  "u",
);

const hexOf = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
const chr = (cp: number | undefined) => cp === undefined ? "" : String.fromCodePoint(cp);

/** Whether the invisible character at `i` is one that writing needs there (see above). */
function neededThere(cps: number[], i: number): boolean {
  const cp = cps[i];
  const c = chr(cp);
  const before = chr(cps[i - 1]);
  const after = chr(cps[i + 1]);
  if (cp === ZWJ && EMOJI_BEFORE_ZWJ.test(before) && PICTOGRAPH.test(after)) return true;
  if (cp === ZWJ || cp === ZWNJ) return JOINING_SCRIPT.test(before) && JOINING_SCRIPT.test(after);
  if (isTag(cp) || cp === CANCEL_TAG) {
    let start = i - 1;
    while (isTag(cps[start])) start--;
    let end = i;
    while (isTag(cps[end])) end++;
    // At least one tag between the black flag and the cancel tag.
    return cps[start] === BLACK_FLAG && cps[end] === CANCEL_TAG && end - start > 1;
  }
  if (EMOJI_SELECTOR.test(c)) {
    if (!EMOJI.test(before)) return false;
    // A keycap base is plain text unless U+20E3 follows; VS16 after an emoji that is already
    // emoji-style changes nothing, so it would be invisible.
    if (KEYCAP_BASE.test(before)) return cp === VS16 && cps[i + 1] === KEYCAP;
    return cp === VS15 || !EMOJI_PRESENTATION.test(before);
  }
  if (OTHER_SELECTOR.test(c)) return VARIANT_BASE.test(before);
  if (MONGOLIAN_SELECTOR.test(c)) return MONGOLIAN.test(before);
  return false;
}

/**
 * Why `name` holds a character no name may contain, as "must not contain <what> (U+XXXX ... at
 * character n)" for the caller to prefix with the field, or null. Positions count code points of
 * the name as sent, from 1. Only characters: empty names, length, dots and slashes are
 * validateName's.
 */
export function nameCharacterProblem(name: string): string | null {
  const cps = Array.from(name, (c) => c.codePointAt(0)!);
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i];
    const at = `at character ${i + 1}`;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      return `must not contain a lone surrogate (${hexOf(cp)} ${at}); names must be valid Unicode`;
    }
    const c = chr(cp);
    if (CONTROL.test(c)) return `must not contain a control character (${hexOf(cp)} ${at})`;
    const bidi = BIDI_CONTROLS[cp];
    if (bidi) {
      return `must not contain a bidirectional control character (${hexOf(cp)} ${bidi} ${at}): ` +
        "it makes a name display differently from what it is";
    }
    if (INVISIBLE.test(c) && !neededThere(cps, i)) {
      const label = INVISIBLE_NAMES[cp] ? `${hexOf(cp)} ${INVISIBLE_NAMES[cp]}` : hexOf(cp);
      return `must not contain an invisible format character (${label} ${at})` +
        (cp === ZWJ || cp === ZWNJ
          ? ": joiners are kept only inside emoji sequences and between letters of scripts that join"
          : "");
    }
  }
  return null;
}

/** Spaces and the characters that render as nothing: a name of only these shows nothing. */
const BLANK = /^[\s\p{Default_Ignorable_Code_Point}]*$/u;

/**
 * Validates a file or folder name and returns it NFC-normalized: the one name rule of every path
 * that names something (drive API, provider, restore, copy keep names that passed it). `field`
 * names the request field in the error (RESOURCE_004).
 */
export function validateName(name: string, field: string): string {
  const bad = nameCharacterProblem(name);
  if (bad) fail("RESOURCE_004", `${field} ${bad}`, field);
  const n = name.normalize("NFC");
  if (n.trim() === "") fail("RESOURCE_004", `${field} must not be empty`, field);
  if (BLANK.test(n)) {
    fail("RESOURCE_004", `${field} must contain a visible character`, field);
  }
  if ([...n].length > MAX_NAME_LENGTH) {
    fail("RESOURCE_004", `${field} is longer than ${MAX_NAME_LENGTH} characters`, field);
  }
  if (n === "." || n === "..") fail("RESOURCE_004", `${field} must not be "." or ".."`, field);
  if (/[/\\]/.test(n)) fail("RESOURCE_004", `${field} must not contain "/" or "\\"`, field);
  return n;
}

/** Splits "report.final.docx" into ["report.final", ".docx"]; dotfiles have no extension. */
export function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return [name, ""];
  return [name.slice(0, dot), name.slice(dot)];
}

/** "name (n).ext" for n = 1, 2, ... — the collision rule of `st=duplicate` and `ncp=AUTO`. */
export function numberedName(name: string, n: number): string {
  const [base, ext] = splitExtension(name);
  const suffix = ` (${n})`;
  // Keep within the name limit by shortening the base, never the extension.
  const room = MAX_NAME_LENGTH - [...suffix].length - [...ext].length;
  const cut = [...base].slice(0, Math.max(room, 1)).join("");
  return `${cut}${suffix}${ext}`;
}
