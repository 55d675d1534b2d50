/**
 * JSON.parse keeps the last of duplicate keys silently; the protocol rejects duplicate fields
 * (put's docId, the one-field request bodies, entries). This checks the text for duplicate
 * object keys with a small scanner and then lets JSON.parse build the value.
 */

class StrictJsonError extends Error {}

/** Parses `text` as JSON, failing on syntax errors and on any object with a repeated key. */
export function parseStrictJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StrictJsonError("not valid JSON");
  }
  assertNoDuplicateKeys(text);
  return value;
}

const WS = new Set([" ", "\t", "\n", "\r"]);

/** Walks syntactically valid JSON (already checked by JSON.parse) collecting each object's keys. */
function assertNoDuplicateKeys(text: string) {
  let i = 0;
  const skipWs = () => {
    while (i < text.length && WS.has(text[i])) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const skipScalar = () => {
    while (i < text.length && !WS.has(text[i]) && !",]}".includes(text[i])) i++;
  };
  // Explicit stack instead of recursion: depth is bounded only by the input.
  const stack: (Set<string> | null)[] = [];
  const value = () => {
    skipWs();
    const ch = text[i];
    if (ch === "{") {
      i++;
      stack.push(new Set());
      return;
    }
    if (ch === "[") {
      i++;
      stack.push(null);
      return;
    }
    if (ch === '"') readString();
    else skipScalar();
  };
  value();
  for (let guard = 0; stack.length > 0 && guard <= text.length; guard++) {
    skipWs();
    const top = stack[stack.length - 1];
    const ch = text[i];
    if (ch === "}" || ch === "]") {
      i++;
      stack.pop();
      continue;
    }
    if (ch === ",") {
      i++;
      skipWs();
    }
    if (top) {
      const key = readString();
      if (top.has(key)) throw new StrictJsonError(`duplicate field "${key}"`);
      top.add(key);
      skipWs();
      i++; // colon
    }
    value();
  }
}
