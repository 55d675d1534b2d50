/**
 * The host-side schemas of a provider's JSON answers: an entry (info, and each entry of a list),
 * a list, and put's docId. Unknown, missing or duplicate fields are problems; each check returns
 * the precise list of problems, empty when the body is valid.
 */
import { isObject } from "../jwt.ts";
import { MAX_DOC_BYTES, MAX_LIST_ENTRIES } from "../limits.ts";
import { segmentProblem } from "../paths.ts";

const ENTRY_FIELDS = new Set([
  "path",
  "name",
  "type",
  "size",
  "readable",
  "writable",
  "locked",
  "locker",
  "createdAt",
  "modifiedAt",
  "revision",
]);
const REQUIRED_ENTRY_FIELDS = ["path", "name", "type", "size", "readable", "writable", "locked"];
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DOC_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,1023}$/;

/** RFC 3339 date-time with a zone, checked field by field (Date.parse accepts Feb 30, 24:00). */
function isRfc3339(s: string): boolean {
  const m = RFC3339.exec(s);
  if (!m) return false;
  const [year, month, day, hour, minute, second, offH, offM] = m.slice(1).map((x) =>
    Number(x ?? 0)
  );
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour <= 23 &&
    minute <= 59 && second <= 60 && offH <= 23 && offM <= 59;
}

const chars = (s: string) => [...s].length;

/** Problems of one entry object (`where` prefixes each message). */
export function entryProblems(v: unknown, where: string): string[] {
  if (!isObject(v)) return [`${where}: not a JSON object`];
  const out: string[] = [];
  for (const k of Object.keys(v)) {
    if (!ENTRY_FIELDS.has(k)) out.push(`${where}: unknown field "${k}"`);
  }
  for (const k of REQUIRED_ENTRY_FIELDS) {
    if (v[k] === undefined || v[k] === null) {
      out.push(`${where}: required field "${k}" is missing or null`);
    }
  }
  if (out.length) return out;
  const { path, name, type, size } = v;
  if (typeof path !== "string" || chars(path) > 4096) {
    out.push(`${where}.path: not a string of at most 4096 characters`);
  }
  if (typeof name !== "string" || chars(name) < 1 || chars(name) > 255) {
    out.push(`${where}.name: not a string of 1 to 255 characters`);
  } else if (typeof path === "string" && path !== "") {
    // The root (path "") carries a free display name; every other name is a path segment.
    const problem = segmentProblem(name);
    if (problem) out.push(`${where}.name: not a usable path segment (${problem})`);
    else if (path.split("/").pop() !== name) {
      out.push(`${where}.name: "${name}" is not the last segment of path "${path}"`);
    }
  }
  if (type !== "file" && type !== "directory") {
    out.push(`${where}.type: must be "file" or "directory"`);
  }
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0 || size > MAX_DOC_BYTES) {
    out.push(`${where}.size: not an integer from 0 to ${MAX_DOC_BYTES}`);
  } else if (type === "directory" && size !== 0) {
    out.push(`${where}.size: must be 0 for a directory`);
  }
  for (const k of ["readable", "writable", "locked"]) {
    if (typeof v[k] !== "boolean") out.push(`${where}.${k}: not a boolean`);
  }
  const optionalString = (k: string, max: number, time = false) => {
    const x = v[k];
    if (x === undefined || x === null) return;
    if (typeof x !== "string" || chars(x) > max) {
      out.push(`${where}.${k}: not a string of at most ${max} characters`);
    } else if (time && !isRfc3339(x)) {
      out.push(`${where}.${k}: not an RFC 3339 time with a zone`);
    }
  };
  optionalString("locker", 255);
  optionalString("createdAt", 64, true);
  optionalString("modifiedAt", 64, true);
  optionalString("revision", 1024);
  return out;
}

/** Problems of a list body for directory `dir` (decoded, root-relative). */
export function listProblems(body: unknown, dir: string): string[] {
  if (!isObject(body)) return ["list: the body is not a JSON object"];
  const extra = Object.keys(body).filter((k) => k !== "entries");
  if (extra.length) return extra.map((k) => `list: unknown field "${k}"`);
  const entries = body.entries;
  if (!Array.isArray(entries)) return ['list: "entries" is not an array'];
  if (entries.length > MAX_LIST_ENTRIES) return [`list: more than ${MAX_LIST_ENTRIES} entries`];
  const out: string[] = [];
  const seen = new Set<string>();
  const prefix = dir === "" ? "" : `${dir}/`;
  entries.forEach((e, i) => {
    const p = entryProblems(e, `entries[${i}]`);
    out.push(...p);
    if (p.length || !isObject(e)) return;
    const path = e.path as string;
    if (seen.has(path)) out.push(`entries[${i}]: duplicate path "${path}"`);
    seen.add(path);
    if (path === dir) out.push(`entries[${i}]: the listed directory itself`);
    else if (!path.startsWith(prefix) || path.slice(prefix.length) !== e.name) {
      out.push(`entries[${i}]: "${path}" is not a direct child of "${dir}"`);
    }
  });
  return out;
}

export function docIdProblems(body: unknown): string[] {
  if (!isObject(body)) return ["put: the body is not a JSON object"];
  const extra = Object.keys(body).filter((k) => k !== "docId");
  if (extra.length) return extra.map((k) => `put: unknown field "${k}"`);
  const id = body.docId;
  if (typeof id !== "string") return ["put: docId is missing or not a string"];
  if (!DOC_ID.test(id)) return [`put: docId "${id.slice(0, 64)}" does not match the docId grammar`];
  if (/^(true|false)$/i.test(id)) return [`put: docId "${id}" is reserved`];
  return [];
}
