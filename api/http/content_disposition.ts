/**
 * Content-Disposition for file responses: a plain ASCII `filename` every client understands,
 * plus RFC 5987/6266 `filename*=UTF-8''...` whenever the real name is not plain ASCII, so
 * browsers save "보고서.pdf" under its real name and old clients still get "___.pdf".
 */

/** Characters that may stand unescaped in an RFC 5987 ext-value (attr-char). */
const ATTR_CHAR = /[A-Za-z0-9!#$&+\-.^_`|~]/;

function encodeRfc5987(value: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(value)) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && ATTR_CHAR.test(ch)
      ? ch
      : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The name with everything outside printable ASCII, and quotes/backslashes/%, as "_". */
function asciiFallbackName(name: string): string {
  const ascii = [...name].map((ch) => /^[\x20-\x7e]$/.test(ch) && !/["\\%]/.test(ch) ? ch : "_")
    .join("");
  return ascii.trim() === "" ? "download" : ascii;
}

export function contentDisposition(type: "attachment" | "inline", name: string): string {
  const fallback = asciiFallbackName(name);
  const header = `${type}; filename="${fallback}"`;
  return fallback === name ? header : `${header}; filename*=UTF-8''${encodeRfc5987(name)}`;
}
