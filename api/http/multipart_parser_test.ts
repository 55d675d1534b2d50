/**
 * The multipart framing parser on its own: every way of cutting a body into chunks must give the
 * same parts and bytes, including bodies whose data holds near-delimiters. The HTTP behaviour of
 * uploads is covered in tests/drive/files_test.ts and tests/drive/bad_input_test.ts.
 */
import assert from "node:assert/strict";
import { boundaryOf, MultipartParser } from "./multipart_parser.ts";
import { MultipartFramingError, type PartHeaders } from "./multipart_headers.ts";
import { concat as joinChunks } from "../../tests/helpers/http.ts";

const assertEquals = <T>(actual: T, expected: T, message?: string) =>
  assert.deepEqual(actual, expected, message);
/** Asserts `fn` throws a framing error whose message contains `part`. */
function assertFramingError(fn: () => unknown, part = "") {
  assert.throws(fn, (err) => err instanceof MultipartFramingError && err.message.includes(part));
}

const LIMITS = { headerBytes: 1024, headerPairs: 8, ignoredBytes: 4096 };
const enc = new TextEncoder();

interface Parsed {
  parts: { headers: PartHeaders; bytes: number[] }[];
  ended: boolean;
}

function parse(body: Uint8Array, boundary: string, cuts: number[]): Parsed {
  const out: Parsed = { parts: [], ended: false };
  let open = false;
  const parser = new MultipartParser(boundary, {
    part(headers) {
      assertEquals(open, false, "a part started inside another");
      open = true;
      out.parts.push({ headers, bytes: [] });
    },
    data(bytes) {
      assertEquals(open, true, "data outside a part");
      out.parts.at(-1)!.bytes.push(...bytes);
    },
    partEnd() {
      assertEquals(open, true, "partEnd outside a part");
      open = false;
    },
    end() {
      out.ended = true;
    },
  }, LIMITS);
  let from = 0;
  for (const cut of [...cuts, body.byteLength]) {
    // The parser may only look at a chunk while it parses it: hand it a copy and scribble over it.
    const chunk = body.slice(from, cut);
    parser.write(chunk);
    chunk.fill(0xee);
    from = cut;
  }
  parser.finish();
  return out;
}

/** The pieces, text as UTF-8, joined into one array. */
const concat = (...pieces: (string | Uint8Array)[]) =>
  joinChunks(pieces.map((p) => typeof p === "string" ? enc.encode(p) : p));

/** A pseudo-random generator with a seed, so a failing case can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x80000000;
  };
}

Deno.test("parser: every chunking of a body with near-delimiters in its data parses the same", () => {
  const boundary = "----b0undary";
  const delim = `\r\n--${boundary}`;
  // File data full of delimiter prefixes, a delimiter missing its last byte, and CRs at the ends.
  const tricky = concat(
    "\r",
    delim.slice(0, 5),
    "x",
    delim.slice(0, -1),
    "z\r\n-",
    delim.slice(0, 3),
    delim.slice(0, -1),
    "\r\n",
    "\r",
  );
  const body = concat(
    "preamble text\r\n",
    `--${boundary}\r\nContent-Disposition: form-data; name="pfs"\r\n\r\n12`,
    `${delim}\r\ncontent-disposition: form-data; name=file; filename="a b.txt"\r\n`,
    "Content-Type: application/octet-stream\r\n\r\n",
    tricky,
    `${delim}--\r\nepilogue`,
  );
  const expected: Parsed = {
    parts: [
      { headers: { name: "pfs", filename: undefined }, bytes: [...enc.encode("12")] },
      { headers: { name: "file", filename: "a b.txt" }, bytes: [...tricky] },
    ],
    ended: true,
  };
  assertEquals(parse(body, boundary, []), expected);
  for (let cut = 1; cut < body.byteLength; cut++) {
    assertEquals(parse(body, boundary, [cut]), expected, `one cut at ${cut}`);
  }
  for (let a = 1; a < body.byteLength; a += 3) {
    for (let b = a + 1; b < body.byteLength; b += 2) {
      assertEquals(parse(body, boundary, [a, b]), expected, `cuts at ${a}, ${b}`);
    }
  }
  assertEquals(parse(body, boundary, [...body.keys()].slice(1)), expected, "one byte at a time");
});

Deno.test("parser: random bodies cut at random places", () => {
  const random = rng(7);
  const boundary = "xyz";
  const delim = enc.encode(`\r\n--${boundary}`);
  for (let round = 0; round < 300; round++) {
    // Data drawn from the delimiter's own bytes, so near-matches are everywhere.
    const alphabet = [...delim, 0x41];
    const parts = Array.from({ length: 1 + Math.floor(random() * 3) }, (_, i) => ({
      name: `p${i}`,
      data: Uint8Array.from(
        { length: Math.floor(random() * 40) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ),
    }));
    // Data containing the whole delimiter cannot be framed; such rounds are skipped.
    if (parts.some((p) => new TextDecoder().decode(p.data).includes(`\r\n--${boundary}`))) continue;
    const body = concat(
      ...parts.flatMap((p) => [
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="f"\r\n\r\n`,
        p.data,
        "\r\n",
      ]),
      `--${boundary}--`,
    );
    const cuts = [...new Set(Array.from({ length: 6 }, () => Math.floor(random() * body.length)))]
      .filter((c) => c > 0).sort((a, b) => a - b);
    assertEquals(parse(body, boundary, cuts), {
      parts: parts.map((p) => ({ headers: { name: p.name, filename: "f" }, bytes: [...p.data] })),
      ended: true,
    }, `round ${round}, cuts ${cuts}`);
  }
});

Deno.test("parser: header parameters (quoted, escaped, RFC 5987, folded, no headers)", () => {
  const b = "B";
  const one = (headers: string) =>
    parse(enc.encode(`--${b}\r\n${headers}\r\n\r\nv\r\n--${b}--`), b, []).parts[0].headers;
  assertEquals(one('Content-Disposition: form-data; name="a"; filename="C:\\dir\\x.txt"'), {
    name: "a",
    filename: "C:\\dir\\x.txt",
  });
  assertEquals(one('Content-Disposition: form-data; name="a"; filename="say \\"hi\\".txt"'), {
    name: "a",
    filename: 'say "hi".txt',
  });
  assertEquals(
    one(
      `Content-Disposition: form-data; name="a"; filename="euro.txt"; filename*=UTF-8''%E2%82%AC.txt`,
    ),
    { name: "a", filename: "€.txt" },
  );
  assertEquals(
    one(`Content-Disposition: form-data; name="a"; filename*=UTF-8''%ZZ; filename="plain.txt"`),
    { name: "a", filename: "plain.txt" },
  );
  assertEquals(one('Content-Disposition: form-data;\r\n name="folded"'), {
    name: "folded",
    filename: undefined,
  });
  assertEquals(one('CONTENT-DISPOSITION: FORM-DATA; NAME="upper"; filename=""'), {
    name: "upper",
    filename: "",
  });
  assertEquals(
    one('Content-Disposition: form-data; name="한글"; filename="새 문서.docx"'),
    { name: "한글", filename: "새 문서.docx" },
  );
  assertFramingError(() => one("Content-Type: text/plain"), "Content-Disposition");
  assertFramingError(() => one("Content-Disposition: attachment; name=a"));
  assertFramingError(() => one('Content-Disposition: form-data; name="open'));
  // A part with no headers at all is framed correctly and then refused for lacking a name.
  assertFramingError(
    () => parse(enc.encode(`--${b}\r\n\r\nv\r\n--${b}--`), b, []),
    "Content-Disposition",
  );
});

Deno.test("parser: names and filenames are strict UTF-8; bad bytes are reported, never U+FFFD", () => {
  const b = "B";
  const one = (...disposition: (string | number[])[]) =>
    parse(
      concat(
        `--${b}\r\nContent-Disposition: form-data; name="file"; `,
        ...disposition.map((p) => typeof p === "string" ? p : new Uint8Array(p)),
        `\r\n\r\nv\r\n--${b}--`,
      ),
      b,
      [],
    ).parts[0].headers;
  const refused = (problem: string) => ({ name: "file", filename: "", filenameProblem: problem });
  assertEquals(
    one('filename="a', [0xff], '.txt"'),
    refused("is not valid UTF-8: byte 2 (0xFF) begins no valid character"),
  );
  assertEquals(
    one('filename="caf', [0xc3], '.txt"'),
    refused("is not valid UTF-8: byte 4 (0xC3) begins no valid character"),
  );
  for (
    const bad of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]
  ) {
    const headers = one('filename="', bad, '"');
    assertEquals(headers.filename, "", JSON.stringify(bad));
    assert.match(
      headers.filenameProblem ?? "",
      /^is not valid UTF-8: byte 1 /,
      JSON.stringify(bad),
    );
  }
  assertEquals(
    one("filename*=UTF-8''x%ED%A0%80.txt"),
    refused("is not valid UTF-8: byte 2 (0xED) begins no valid character"),
  );
  // Valid multi-byte characters pass whole, also ones ending in bytes String#trim would eat
  // ("\u00e0" is C3 A0, "\u2026" is E2 80 A6, "\u0105" is C4 85) and 4-byte ones.
  for (const name of ["l\u00e0", "\u2026", "\u0105", "\u{1F600}", "\uFFFD"]) {
    assertEquals(one(`filename=`, [...enc.encode(name)]), { name: "file", filename: name });
    assertEquals(one(`filename="`, [...enc.encode(name)], '"'), { name: "file", filename: name });
  }
  assertEquals(one("filename*=ISO-8859-1''caf%E9.txt"), {
    name: "file",
    filename: "caf\u00e9.txt",
  });
  assertFramingError(
    () =>
      parse(
        concat(`--${b}\r\nContent-Disposition: form-data; name="`, new Uint8Array([0xff]), '"'),
        b,
        [],
      ),
  );
  assertFramingError(
    () =>
      parse(
        concat(
          `--${b}\r\nContent-Disposition: form-data; name="`,
          new Uint8Array([0xff]),
          `"\r\n\r\nv\r\n--${b}--`,
        ),
        b,
        [],
      ),
    "a part's name is not valid UTF-8",
  );
});

Deno.test("parser: broken framing is reported, not guessed", () => {
  const b = "B";
  const part = `--${b}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv`;
  const cases: [string, string][] = [
    ["", "no boundary line"],
    ["no boundary at all", "no boundary line"],
    [part, "ended before the closing boundary"],
    [`${part}\r\n--${b}`, "ended before the closing boundary"],
    [`--${b}X\r\n`, "not followed by CRLF"],
    [`--${b}\r\nContent-Disposition: form-data; name="a"`, "ended before"],
    [`--${b}\r\n${"X-H: v\r\n".repeat(9)}\r\n`, "more than 8 header lines"],
    [`--${b}\r\nX-Long: ${"v".repeat(2000)}\r\n\r\n`, "longer than 1024 bytes"],
    [`--${b}--\r\n${"e".repeat(5000)}`, "outside the boundaries"],
    [`${"p".repeat(5000)}\r\n--${b}--`, "outside the boundaries"],
  ];
  for (const [body, message] of cases) {
    assertFramingError(() => parse(enc.encode(body), b, []), message);
  }
  // Transport padding after a boundary is allowed; an empty form is well-formed.
  assertEquals(parse(enc.encode(`--${b}  \t\r\n${part.slice(b.length + 4)}\r\n--${b}--`), b, []), {
    parts: [{ headers: { name: "a", filename: undefined }, bytes: [...enc.encode("v")] }],
    ended: true,
  });
  assertEquals(parse(enc.encode(`--${b}--`), b, []), { parts: [], ended: true });
});

Deno.test("parser: boundary parameter of the Content-Type", () => {
  assertEquals(boundaryOf("multipart/form-data; boundary=abc"), "abc");
  assertEquals(boundaryOf('multipart/form-data; boundary="a b:c"; charset=utf-8'), "a b:c");
  assertEquals(boundaryOf("multipart/form-data;BOUNDARY=----x"), "----x");
  assertEquals(boundaryOf("multipart/form-data"), null);
  assertEquals(boundaryOf("multipart/form-data; boundary="), null);
  assertEquals(boundaryOf(`multipart/form-data; boundary=${"x".repeat(71)}`), null);
});
