/**
 * What every operation of the storage provider protocol starts from: the request context (the
 * verified request, the adapter, its root), the adapter's root and access checks, path
 * resolution, the one-field JSON bodies, and the size-checked JSON answer.
 */
import type { Adapter } from "../kv/adapters/adapters.ts";
import { type Action, authorizeResourceAccess, type Caller } from "../kv/sharing/authorize.ts";
import type { Deps } from "../kv/deps.ts";
import { fail, isDriveError } from "../kv/errors.ts";
import type { Resource } from "../kv/tree/resources.ts";
import { userStanding } from "../kv/identity/users.ts";
import { isObject } from "./jwt.ts";
import { MAX_JSON_RESPONSE_BYTES } from "./limits.ts";
import {
  isDirectory,
  newNameProblem,
  nodeRs,
  pathOf,
  type ProviderNode,
  type ProviderRoot,
  resolveProviderPath,
} from "./paths.ts";
import { jsonBytesResponse, ProviderError } from "./responses.ts";
import { parseStrictJson } from "./strict_json.ts";
import type { KvReader } from "./read_ahead.ts";
import type { ListPool } from "./list_pool.ts";
import type { VerifiedRequest } from "./verify.ts";

export interface Ctx {
  d: Deps;
  v: VerifiedRequest;
  adapter: Adapter;
  caller: Caller;
  root: ProviderRoot;
  /** Reads of path resolution and entries: KV, or entries read ahead (read_ahead.ts). */
  reader: KvReader;
  /** The listing worker, when this process has one (list_pool.ts). */
  lists: ListPool | null;
  /** put: set once the buffered body became the file's content. */
  blobUsed: boolean;
}

const notFound = () => new ProviderError(404, "Not found");

/** The adapter's root; its folder must still exist and be reachable by the adapter's user. */
export async function loadRoot(
  d: Deps,
  adapter: Adapter,
  identityEpoch: bigint,
): Promise<{ caller: Caller; root: ProviderRoot }> {
  // From memory while no user or tenant changed since (kv/identity/cache.ts).
  const cached = { cache: d.identity, epoch: identityEpoch };
  const standing = await userStanding(d.kv, adapter.userSeq, cached);
  if (!standing) fail("USER_001", `No user with seq ${adapter.userSeq}`, "userSeq");
  const user = standing.user;
  // A disabled user or tenant: the adapter stops working too (their data is kept).
  const disabled = standing.disabled;
  if (disabled) throw new ProviderError(403, `AUTH_006: the adapter's ${disabled}`);
  const caller = { userSeq: user.userSeq, tenantId: user.tenantId };
  if (adapter.folderSeq === null) {
    return { caller, root: { ownerSeq: user.userSeq, folder: null, path: [] } };
  }
  const access = await authorizeResourceAccess(d.kv, caller, { rs: adapter.folderSeq }, "view")
    .catch((err) => {
      if (isDriveError(err, "RESOURCE_002")) {
        throw new ProviderError(404, "The storage root is gone");
      }
      throw err;
    });
  if (access.resource.type !== "FOLDER") throw new ProviderError(404, "The storage root is gone");
  const root = { ownerSeq: access.resource.ownerSeq, folder: access.resource, path: access.path };
  return { caller, root };
}

/**
 * Inside the user's own drive the path resolution already proves ownership; a root shared with
 * the user goes through the drive's one authorization decision.
 */
export async function authorize(ctx: Ctx, node: ProviderNode, action: Action) {
  if (ctx.root.ownerSeq === ctx.caller.userSeq) return;
  const rs = nodeRs(ctx.root, node);
  if (rs === null) return;
  // Decided on what the resolution read: the node, the folders above it, the root's own path.
  const loaded = { path: [...pathOf(node), ...ctx.root.path], trashed: false };
  await authorizeResourceAccess(ctx.d.kv, ctx.caller, { rs, loaded }, action);
}

export async function resolve(ctx: Ctx, segments: readonly string[]): Promise<ProviderNode> {
  const r = await resolveProviderPath(ctx.reader, ctx.root, segments);
  if (!r.found) throw notFound();
  return r.node;
}

/** The parent directory of a path that is about to get a new or replaced entry. */
export async function resolveParent(ctx: Ctx, segments: readonly string[]): Promise<ProviderNode> {
  const r = await resolveProviderPath(ctx.d.kv, ctx.root, segments);
  if (!r.found) {
    throw r.throughFile
      ? new ProviderError(409, "A parent path segment is a file")
      : new ProviderError(404, "The parent directory does not exist");
  }
  if (!isDirectory(r.node)) throw new ProviderError(409, "The parent is not a directory");
  return r.node;
}

export function jsonResponse(value: unknown): Response {
  return jsonBytesOk(new TextEncoder().encode(JSON.stringify(value)));
}

export function jsonBytesOk(bytes: Uint8Array<ArrayBuffer>): Response {
  if (bytes.byteLength > MAX_JSON_RESPONSE_BYTES) {
    throw new ProviderError(413, "The response would be larger than 5 MiB");
  }
  return jsonBytesResponse(200, bytes);
}

/** The one-field JSON bodies of lock, unlock, mkdir and rename. */
export function oneStringField(ctx: Ctx, field: "owner" | "name"): string {
  let body: unknown;
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(ctx.v.jsonBytes);
    body = parseStrictJson(text);
  } catch {
    throw new ProviderError(400, "The body is not valid JSON");
  }
  const keys = isObject(body) ? Object.keys(body) : [];
  if (!isObject(body) || keys.length !== 1 || keys[0] !== field) {
    throw new ProviderError(400, `The body must be {"${field}": "<string>"} and nothing else`);
  }
  const value = body[field];
  if (typeof value !== "string" || value === "") {
    throw new ProviderError(400, `${field} must be a non-empty string`);
  }
  return value;
}

/** The `name` of a mkdir or rename body. */
export function newName(ctx: Ctx): string {
  const name = oneStringField(ctx, "name");
  const problem = newNameProblem(name, "name");
  if (problem) throw new ProviderError(400, problem);
  return name;
}

export function requireNotRoot(ctx: Ctx, what: string) {
  if (ctx.v.url.segments.length === 0) throw new ProviderError(400, `The root cannot be ${what}`);
}

export function requireFile(node: ProviderNode): Resource {
  if (node.kind === "root" || node.resource.type !== "FILE") {
    throw new ProviderError(409, "The target is a directory, not a file");
  }
  return node.resource;
}
