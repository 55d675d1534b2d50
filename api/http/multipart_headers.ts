/**
 * A multipart part's header block (RFC 7578): the Content-Disposition `name` and `filename`
 * (`filename*` of RFC 5987 first), parsed on bytes and decoded as strict UTF-8, for the framing
 * in ./multipart_parser.ts.
 */

export interface PartHeaders {
  /** The Content-Disposition `name` parameter. */
  name: string;
  /**
   * The `filename*` (RFC 5987) or `filename` parameter; undefined when the part has neither, ""
   * when its bytes are not UTF-8 (then `filenameProblem` says why).
   */
  filename: string | undefined;
  /** Set only when the filename is not valid UTF-8: "is not valid UTF-8: byte 4 (0xC3) ...". */
  filenameProblem?: string;
}

/** The body is not well-formed multipart; the message says where it broke. */
export class MultipartFramingError extends Error {}

/**
 * The name and filename of a part, from its header block (lines without the final CRLF) as a
 * binary string (one character per byte): the header is parsed on bytes, and only the values
 * are decoded, strictly, as UTF-8, so an invalid byte is reported instead of becoming U+FFFD.
 */
export function parsePartHeaders(text: string, maxPairs: number): PartHeaders {
  const lines: string[] = [];
  for (const line of text === "" ? [] : text.split("\r\n")) {
    // Obsolete line folding: a line starting with whitespace continues the previous one.
    if ((line.startsWith(" ") || line.startsWith("\t")) && lines.length > 0) {
      lines[lines.length - 1] += " " + trimOws(line);
    } else lines.push(line);
  }
  if (lines.length > maxPairs) {
    throw new MultipartFramingError(`a part has more than ${maxPairs} header lines`);
  }
  let disposition: string | undefined;
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon <= 0) {
      throw new MultipartFramingError(`a part header line has no name: ${printable(line)}`);
    }
    if (trimOws(line.slice(0, colon)).toLowerCase() === "content-disposition") {
      disposition = trimOws(line.slice(colon + 1));
    }
  }
  const parsed = disposition === undefined ? null : parseDisposition(disposition);
  if (!parsed || parsed.type !== "form-data" || parsed.params.get("name") === undefined) {
    throw new MultipartFramingError(
      "every part needs a 'Content-Disposition: form-data' header with a name",
    );
  }
  const name = decodeUtf8(bytesOf(parsed.params.get("name")!));
  if ("problem" in name) throw new MultipartFramingError(`a part's name ${name.problem}`);
  const extended = parsed.params.get("filename*");
  const plain = parsed.params.get("filename");
  const filename = (extended === undefined ? undefined : decodeExtValue(extended)) ??
    (plain === undefined ? undefined : decodeUtf8(bytesOf(plain)));
  if (filename === undefined) return { name: name.text, filename: undefined };
  if ("problem" in filename) {
    return { name: name.text, filename: "", filenameProblem: filename.problem };
  }
  return { name: name.text, filename: filename.text };
}

/**
 * `type; key=value; key="quoted"` with lower-cased type and keys. In a quoted value only `\"`
 * and `\\` are escapes: browsers send backslashes in file names as they are (and `"` as %22).
 */
function parseDisposition(value: string): { type: string; params: Map<string, string> } | null {
  const params = new Map<string, string>();
  const semi = value.indexOf(";");
  const type = trimOws(semi < 0 ? value : value.slice(0, semi)).toLowerCase();
  let i = semi < 0 ? value.length : semi + 1;
  while (i < value.length) {
    while (value[i] === " " || value[i] === "\t") i++;
    const eq = value.indexOf("=", i);
    if (eq < 0) return trimOws(value.slice(i)) === "" ? { type, params } : null;
    const key = trimOws(value.slice(i, eq)).toLowerCase();
    i = eq + 1;
    while (value[i] === " " || value[i] === "\t") i++;
    let v = "";
    if (value[i] === '"') {
      i++;
      for (; i < value.length && value[i] !== '"'; i++) {
        if (value[i] === "\\" && (value[i + 1] === '"' || value[i + 1] === "\\")) i++;
        v += value[i];
      }
      if (value[i] !== '"') return null;
      i++;
      while (value[i] === " " || value[i] === "\t") i++;
    } else {
      const end = value.indexOf(";", i);
      v = trimOws(end < 0 ? value.slice(i) : value.slice(i, end));
      i = end < 0 ? value.length : end;
    }
    if (i < value.length && value[i] !== ";") return null;
    i++;
    if (key !== "" && !params.has(key)) params.set(key, v);
  }
  return { type, params };
}

/**
 * An RFC 5987 ext-value (`UTF-8''%E2%82%AC.txt`) of a binary string: its text, or why its UTF-8
 * is invalid; undefined (fall back to `filename`) for another charset or broken percent-encoding.
 */
function decodeExtValue(value: string): Decoded | undefined {
  const m = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'[^']*'(.*)$/.exec(value);
  if (!m) return undefined;
  const charset = m[1].toLowerCase();
  if (charset !== "utf-8" && charset !== "iso-8859-1") return undefined;
  const bytes: number[] = [];
  for (let i = 0; i < m[2].length; i++) {
    if (m[2][i] !== "%") bytes.push(m[2].charCodeAt(i));
    else if (/^[0-9A-Fa-f]{2}$/.test(m[2].slice(i + 1, i + 3))) {
      bytes.push(parseInt(m[2].slice(i + 1, i + 3), 16));
      i += 2;
    } else return undefined;
  }
  const decoded = new Uint8Array(bytes);
  return charset === "utf-8" ? decodeUtf8(decoded) : { text: binaryString(decoded) };
}

type Decoded = { text: string } | { problem: string };

const utf8 = new TextDecoder();

/**
 * Strict UTF-8 (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF): the
 * text, or the first offending byte as "is not valid UTF-8: byte n (0xXX) ...".
 */
export function decodeUtf8(bytes: Uint8Array): Decoded {
  const at = invalidUtf8At(bytes);
  if (at < 0) return { text: utf8.decode(bytes) };
  const hex = bytes[at].toString(16).toUpperCase().padStart(2, "0");
  return { problem: `is not valid UTF-8: byte ${at + 1} (0x${hex}) begins no valid character` };
}

/** The offset of the first byte that does not begin a complete, valid UTF-8 sequence; -1 if none. */
function invalidUtf8At(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const x = b[i];
    if (x < 0x80) {
      i++;
      continue;
    }
    const more = x >= 0xc2 && x <= 0xdf
      ? 1
      : x >= 0xe0 && x <= 0xef
      ? 2
      : x >= 0xf0 && x <= 0xf4
      ? 3
      : 0;
    if (more === 0) return i;
    // The second byte's range excludes overlong forms (E0, F0), surrogates (ED) and > U+10FFFF (F4).
    const lo = x === 0xe0 ? 0xa0 : x === 0xf0 ? 0x90 : 0x80;
    const hi = x === 0xed ? 0x9f : x === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k <= more; k++) {
      const y = b[i + k];
      if (y === undefined || y < (k === 1 ? lo : 0x80) || y > (k === 1 ? hi : 0xbf)) return i;
    }
    i += more + 1;
  }
  return -1;
}

/** One character per byte (U+0000–U+00FF), so no byte is lost or replaced before it is checked. */
export function binaryString(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return s;
}

const bytesOf = (binary: string) => Uint8Array.from(binary, (c) => c.charCodeAt(0));

/**
 * HTTP's optional whitespace is space and tab only. String#trim would also strip U+0085 and
 * U+00A0, which in a binary string are bytes of UTF-8 characters ("à" ends in 0xA0).
 */
const trimOws = (s: string) => s.replace(/^[ \t]+|[ \t]+$/g, "");

/** A header line for an error message: bytes outside printable ASCII as \xNN. */
const printable = (s: string) =>
  s.slice(0, 100).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`,
  );
