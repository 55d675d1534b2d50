/**
 * Value generators the fuzz properties share: hostile strings (huge, invisible, bidi, lone
 * surrogates, NUL, path tricks), names that are almost valid, hostile numbers, JSON values of
 * the wrong type, and JSON request bodies that are malformed on purpose (truncated, invalid
 * UTF-8, a byte-order mark, deep nesting, over the body limit).
 */
import fc from "./fast_check.ts";

/** `arb` once in `n` cases, null otherwise. */
export function oneIn<T>(n: number, arb: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: n - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });
}

/** Characters that have broken parsers, key encoders, file systems and displays before. */
const NASTY_CHARS = [
  "\u0000",
  "\u0001",
  "\u001f",
  "\u007f",
  "\t",
  "\r\n",
  "\u0085",
  "\u00a0",
  "\u00ad",
  "\u034f",
  "\u061c",
  "\u180e",
  "\u200b",
  "\u200d",
  "\u200e",
  "\u2028",
  "\u202a",
  "\u202e",
  "\u2066",
  "\u2069",
  "\u2060",
  "\ufeff",
  "\ufffd",
  "\uffff",
  "\ud800",
  "\udfff",
  "\udc00\ud800",
  "\u{1f600}",
  "\u{10ffff}",
  "e\u0301",
  "\u00e9",
  "\u0130",
  "\u212a",
  "ß",
  "%",
  "%00",
  "%2e%2e",
  "%ff",
  "/",
  "\\",
  "..",
  ".",
  "?",
  "#",
  "&",
  "=",
  "+",
  '"',
  "'",
  "<script>",
  "${x}",
  "{{x}}",
  "\u0000/../../etc/passwd",
  "con",
  "nul.txt",
  "__proto__",
  "constructor",
];

/** A string assembled from nasty characters and ordinary text. */
export const junkString: fc.Arbitrary<string> = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NASTY_CHARS) },
    { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
  ),
  { minLength: 1, maxLength: 12 },
).map((parts) => parts.join(""));

/**
 * A long string: around the usual limits (255 name characters, 2 KiB KV keys, 4 KiB paths, 64 KiB
 * JSON bodies) and, rarely, well past them.
 */
export const hugeString: fc.Arbitrary<string> = fc.tuple(
  fc.constantFrom("a", "é", "\u{1f600}", "\u202e", "%", "/", "\u0000", "ab1-"),
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(255, 256, 1_024, 2_049, 2_100, 4_097, 8_200) },
    { weight: 3, arbitrary: fc.integer({ min: 256, max: 70_000 }) },
    { weight: 1, arbitrary: fc.constant(1_100_000) },
  ),
).map(([unit, n]) => unit.repeat(Math.max(1, Math.floor(n / unit.length))));

/** Any hostile string. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: junkString },
  { weight: 2, arbitrary: hugeString },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "null", "undefined", "NaN", "-1", "0", "1e3") },
);

/** Names a user might send: mostly valid, many at the edge of validity. */
export const nameLike: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 ._()-]{0,24}$/) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "Reports",
      "a.txt",
      "report.docx",
      "caf\u00e9.txt",
      "cafe\u0301.txt",
      "CAF\u00c9.TXT",
      "invoice\u202efdp.exe",
      "a\u200bb",
      "\ufeffname",
      "bad\ud800name",
      "tab\tname",
      "line\nname",
      " lead",
      "trail ",
      "trail.",
      "x".repeat(255),
      "x".repeat(256),
      "\u00e9".repeat(255),
      "\u{1f600}".repeat(200),
      ".",
      "..",
      "...",
      "a/b",
      "a\\b",
      "CON",
      "a:b",
      "*?<>|",
      "%2F",
      "\u3000",
      "\u0000",
    ),
  },
  { weight: 2, arbitrary: junkString },
  { weight: 1, arbitrary: hugeString },
);

/** Numbers that break integer parsing, KV sequences and date arithmetic. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    1.5,
    0.1,
    -(2 ** 31),
    2 ** 31,
    2 ** 32,
    2 ** 53,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    -Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e21,
    -1e308,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** JSON number texts JSON.stringify cannot produce (they go into bodies as raw text). */
export const RAW_NUMBER_TEXTS = [
  "1e400",
  "-1e400",
  "-0",
  "123456789012345678901234567890",
  "0.0000000000000000000000000001",
  "1E+2",
  "01",
  "1.",
  ".5",
  "NaN",
  "Infinity",
  "0x10",
];

/**
 * A value spliced into a JSON body as raw text, so the body can carry what JSON.stringify never
 * writes (numbers out of range, invalid literals).
 */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A JSON value of any type, mostly not the type a field expects. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_NUMBER_TEXTS).map((t) => new RawJson(t)) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(
      fc.constantFrom("__proto__", "constructor", "toString", "a", "fn", ""),
      fc.jsonValue({ maxDepth: 1 }),
      { maxKeys: 3 },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 50, max: 5_000 }).map((n) =>
      new RawJson("[".repeat(n) + "]".repeat(n))
    ),
  },
);

/** JSON text of `v`, with RawJson values spliced in as they are. */
export function jsonText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${
      Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${jsonText(x)}`).join(",")
    }}`;
  }
  return JSON.stringify(v) ?? "null";
}

/** How a JSON body goes on the wire: mostly as it is, sometimes broken on purpose. */
export type BodyMangle =
  | { kind: "plain" }
  | { kind: "truncate"; at: number }
  | { kind: "garbage"; tail: string }
  | { kind: "bom" }
  | { kind: "invalid-utf8"; at: number }
  | { kind: "replace"; text: string }
  | { kind: "oversize"; bytes: number };

export const bodyMangle: fc.Arbitrary<BodyMangle> = fc.oneof(
  { weight: 30, arbitrary: fc.constant({ kind: "plain" as const }) },
  {
    weight: 1,
    arbitrary: fc.nat({ max: 200 }).map((at) => ({ kind: "truncate" as const, at })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(",", "}", "]", "garbage", "\u0000", '{"a":1}', "//").map((
      tail,
    ) => ({ kind: "garbage" as const, tail })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "bom" as const }) },
  {
    weight: 1,
    arbitrary: fc.nat({ max: 200 }).map((at) => ({ kind: "invalid-utf8" as const, at })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "null",
      "[]",
      "{}",
      '"str"',
      "1e999",
      "true",
      '{"fn":"a","fn":"b","rn":"a","rn":1}',
      '{"__proto__":{"admin":true}}',
      "{'single':'quotes'}",
      '{"a":1}\u0000',
      "[".repeat(100_000),
    ).map((text) => ({ kind: "replace" as const, text })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(65_537, 300_000, 2_000_000).map((bytes) => ({
      kind: "oversize" as const,
      bytes,
    })),
  },
);

const enc = new TextEncoder();

/** The wire bytes of JSON body `value`, broken as `m` says. */
export function mangledJson(value: unknown, m: BodyMangle): Uint8Array {
  const text = jsonText(value);
  switch (m.kind) {
    case "plain":
      return enc.encode(text);
    case "truncate":
      return enc.encode(text.slice(0, Math.min(m.at, Math.max(text.length - 1, 0))));
    case "garbage":
      return enc.encode(text + m.tail);
    case "bom":
      return enc.encode(`\ufeff${text}`);
    case "invalid-utf8": {
      const bytes = enc.encode(text);
      const at = Math.min(m.at, bytes.byteLength);
      const out = new Uint8Array(bytes.byteLength + 3);
      out.set(bytes.subarray(0, at));
      out.set([0xff, 0xc3, 0x28], at);
      out.set(bytes.subarray(at), at + 3);
      return out;
    }
    case "replace":
      return enc.encode(m.text);
    case "oversize": {
      // Valid JSON with the real fields plus a pad: only a size limit can refuse it.
      const fields = value !== null && typeof value === "object" && !Array.isArray(value)
        ? text.slice(1, -1)
        : "";
      const pad = "x".repeat(m.bytes);
      return enc.encode(`{${fields}${fields ? "," : ""}"pad":"${pad}"}`);
    }
  }
}

/** Content types sent with a JSON body: mostly right, sometimes wrong or odd. */
export const jsonContentType: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 20, arbitrary: fc.constant("application/json") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      null,
      "",
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/json; charset=latin1",
      "application/json;;;",
      "text/plain",
      "text/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "multipart/form-data",
      "application/octet-stream",
      "application/json\u0000",
      "a".repeat(5_000),
    ),
  },
);

/** Arbitrary bytes for file contents: empty, small, a bit larger. */
export const fileBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(new Uint8Array()) },
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => new Uint8Array(n).fill(0x61)),
  },
);
