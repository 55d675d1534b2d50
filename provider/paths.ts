/**
 * URL shape of the storage provider protocol: `/doc-storage/v1/{encoded path}/{operation}`,
 * read from the raw request target (never a decoded or normalized path), and resolution of the
 * decoded path by names under the adapter's root folder.
 */
import { isDriveError } from "../kv/errors.ts";
import { findChildByName, MAX_DEPTH, type Resource } from "../kv/tree/resources.ts";
import { nameCharacterProblem, validateName } from "../kv/tree/names.ts";
import { MAX_NAME_CHARS, MAX_PATH_CHARS } from "./limits.ts";
import { type Operation, OPERATIONS } from "../kv/adapters/operations.ts";

export const PROVIDER_BASE = "/doc-storage/v1";

export const OPERATION_METHOD: Record<Operation, string> = {
  info: "GET",
  list: "GET",
  get: "GET",
  put: "PUT",
  lock: "POST",
  unlock: "POST",
  mkdir: "POST",
  rename: "POST",
  delete: "DELETE",
};

export class PathError extends Error {
  constructor(readonly status: 400 | 404, message: string) {
    super(message);
  }
}

export interface ProviderUrl {
  operation: Operation;
  /** The raw encoded path as received, what `request.path` is compared with. */
  rawPath: string;
  /** Decoded segments of the document path; [] is the root. */
  segments: string[];
  /** Decoded root-relative path ("" for the root). */
  path: string;
}

/**
 * Splits the raw request URL (as the server received it) into path and query. `new URL()` is
 * not used: it would resolve `..` and `%2e%2e` segments before we could reject them.
 */
export function rawTarget(url: string): { path: string; hasQuery: boolean; hasFragment: boolean } {
  const scheme = url.indexOf("://");
  const slash = url.indexOf("/", scheme < 0 ? 0 : scheme + 3);
  const rest = slash < 0 ? "/" : url.slice(slash);
  const q = rest.search(/[?#]/);
  return {
    path: q < 0 ? rest : rest.slice(0, q),
    hasQuery: rest.includes("?"),
    hasFragment: rest.includes("#"),
  };
}

/** Characters a path segment may carry unencoded (RFC 3986 pchar without "%"). */
const PCHAR = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Percent-decodes one segment to strict UTF-8; null when the encoding is not valid. */
function decodeSegment(raw: string): string | null {
  if (!PCHAR.test(raw)) return null;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === "%") {
      bytes.push(parseInt(raw.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(raw.charCodeAt(i));
    }
  }
  try {
    return utf8.decode(new Uint8Array(bytes));
  } catch {
    return null;
  }
}

/** Why a decoded segment is not a name the provider accepts, or null when it is fine. */
export function segmentProblem(name: string): string | null {
  if (name === "") return "empty path segment";
  if (name === "." || name === "..") return `"${name}" segments are not allowed`;
  if (/[/\\]/.test(name)) return "a path segment contains a slash or backslash";
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) {
    return "a path segment contains control characters";
  }
  if ([...name].length > MAX_NAME_CHARS) {
    return `a path segment is longer than ${MAX_NAME_CHARS} characters`;
  }
  return null;
}

/**
 * Why `name` cannot be the name of a new entry under the drive's own name rule
 * (`validateName`), or null. The message names `term`, the protocol's word for where the name
 * came from (the body's `name` field, the last path segment), never the drive API's field
 * (`fn`, `rn`) that the domain function would otherwise put in the answer.
 */
export function newNameProblem(name: string, term: string): string | null {
  if ([...name].length > MAX_NAME_CHARS) {
    return `${term} is longer than ${MAX_NAME_CHARS} characters`;
  }
  try {
    validateName(name, term);
    return null;
  } catch (err) {
    if (isDriveError(err) && err.status === 400) return err.message.slice(0, 300);
    throw err;
  }
}

/** The operation named by the last raw segment, or null (no such endpoint). */
export function operationOf(rawPath: string): Operation | null {
  if (!rawPath.startsWith(`${PROVIDER_BASE}/`)) return null;
  const last = rawPath.slice(rawPath.lastIndexOf("/") + 1);
  return (OPERATIONS as readonly string[]).includes(last) ? last as Operation : null;
}

/**
 * Parses the raw path after the base. Unknown operations are 404 (no such endpoint); a bad
 * document path is 400.
 */
export function parseProviderPath(rawPath: string): ProviderUrl {
  const operation = operationOf(rawPath);
  if (!operation) throw new PathError(404, "No such endpoint");
  const parts = rawPath.slice(PROVIDER_BASE.length + 1).split("/");
  parts.pop();
  const segments: string[] = [];
  for (const raw of parts) {
    if (raw === "") throw new PathError(400, "Invalid path: empty segment or extra '/'");
    const name = decodeSegment(raw);
    if (name === null) throw new PathError(400, "Invalid path: bad percent-encoding or UTF-8");
    const problem = segmentProblem(name);
    if (problem) throw new PathError(400, `Invalid path: ${problem}`);
    // The drive's name characters too (no bidi controls or invisible characters), for every
    // operation: no entry can be named so, and a put or mkdir is refused before it reads a byte.
    // Entries named so before this rule existed stay reachable through the drive API, by seq.
    const bad = nameCharacterProblem(name);
    if (bad) throw new PathError(400, `Invalid path: a path segment ${bad}`);
    segments.push(name);
  }
  const path = segments.join("/");
  if ([...path].length > MAX_PATH_CHARS) {
    throw new PathError(400, `Invalid path: longer than ${MAX_PATH_CHARS} characters`);
  }
  return { operation, rawPath, segments, path };
}

/** Percent-encodes document path segments the way a host does (one segment at a time). */
export function encodeProviderPath(segments: readonly string[]): string {
  return segments.map((s) => encodeURIComponent(s)).join("/");
}

/** The adapter's storage root: a user's drive root (folder null) or one of its folders. */
export interface ProviderRoot {
  ownerSeq: number;
  folder: Resource | null;
  /** The root folder and its ancestors, nearest first, as read when the request began ([]: the drive root). */
  path: Resource[];
}

/** A resolved document path: the root, a folder or a file. */
export type ProviderNode =
  | { kind: "root" }
  | {
    kind: "resource";
    resource: Resource;
    /** The folders between the root and it, nearest first, as the resolution read them. */
    above: Resource[];
  };

type Resolution =
  | { found: true; node: ProviderNode }
  /** `throughFile`: a segment before the last named a file, so the path cannot exist. */
  | { found: false; throughFile: boolean };

export const nodeRs = (root: ProviderRoot, node: ProviderNode): number | null =>
  node.kind === "root" ? root.folder?.rs ?? null : node.resource.rs;

/** A resolved node and the folders above it up to the root (exclusive), nearest first. */
export const pathOf = (node: ProviderNode): Resource[] =>
  node.kind === "root" ? [] : [node.resource, ...node.above];

export const isDirectory = (node: ProviderNode) =>
  node.kind === "root" || node.resource.type === "FOLDER";

/** Resolves decoded segments by name (the drive's case-insensitive names) under the root. */
export async function resolveProviderPath(
  kv: Pick<Deno.Kv, "get">,
  root: ProviderRoot,
  segments: readonly string[],
): Promise<Resolution> {
  let node: ProviderNode = { kind: "root" };
  if (segments.length > MAX_DEPTH + 1) return { found: false, throughFile: false };
  for (const name of segments) {
    if (!isDirectory(node)) return { found: false, throughFile: true };
    const child = await findChildByName(kv, root.ownerSeq, nodeRs(root, node), name);
    if (!child || child.trashedAt !== null) return { found: false, throughFile: false };
    node = { kind: "resource", resource: child, above: pathOf(node) };
  }
  return { found: true, node };
}
