/**
 * Request paths to tree nodes. The WebDAV tree:
 *   /dav/                          the service: lists files/ and shared/
 *   /dav/files/                    lists the caller's own drive (one member)
 *   /dav/files/{accountId}/...     the caller's own drive; any other account id is 404
 *   /dav/shared/                   one collection per resource shared with the caller
 *   /dav/shared/{name}/...         inside one of them
 * Names resolve by the drive's name index (case-insensitive, NFC), and the caller's access is
 * decided by kv/sharing/authorize.ts on the path read on the way down.
 */
import { type Access, accessIfVisible, type Action } from "../kv/sharing/authorize.ts";
import { authorizeResourceAccess } from "../kv/sharing/authorize.ts";
import { findChildEntryByName, loadPath, type Resource } from "../kv/tree/resources.ts";
import { listSharedEntries } from "../kv/sharing/shared_list.ts";
import { getUser } from "../kv/identity/users.ts";
import { nameKeyOf } from "../kv/tree/names.ts";
import { DAV_BASE, DavError, type DavRequest } from "./context.ts";

export type DavNode =
  | { kind: "service" }
  | { kind: "files-list" }
  | { kind: "shared-list" }
  | { kind: "drive" }
  | { kind: "resource"; resource: Resource; access: Access };

/** Where a new member goes: a folder (with the caller's access to it) or the caller's drive root. */
export interface Container {
  ownerSeq: number;
  parentRs: number | null;
  href: string;
  /** null: the caller's own drive root (everything allowed). */
  access: Access | null;
  /**
   * The folder's entry as the walk read it (kv/tree/resources.ts findChildEntryByName), for a
   * create's commit to check instead of reading the folder again; absent at a drive or shared root.
   */
  entry?: Deno.KvEntry<Resource>;
}

export interface Resolved {
  /** The target's href, percent-encoded; a collection's ends with "/". */
  href: string;
  /** null: nothing is mapped at this URL. */
  node: DavNode | null;
  /** The collection the target is or would be a member of, when it exists and can hold one. */
  parent: Container | null;
  /** The last segment, decoded (null for the fixed collections). */
  name: string | null;
  /** Outside every tree the caller may reach (another account's drive, an unknown area): 404. */
  outside?: boolean;
}

/** The collection a new member at `target` goes into: 404 outside the caller's trees, 409 when missing. */
export function requireParent(target: Resolved): Container {
  if (target.outside) throw new DavError(404, `Nothing is at ${target.href}`);
  if (!target.parent) throw new DavError(409, "The parent collection does not exist");
  return target.parent;
}

/** A segment as it appears in an href: percent-encoded UTF-8 (RFC 3986 unreserved and !'()* kept). */
export const encodeSegment = (name: string) => encodeURIComponent(name);

export const driveHref = (accountId: string) => `${DAV_BASE}/files/${encodeSegment(accountId)}/`;

export const isCollection = (node: DavNode) =>
  node.kind !== "resource" || node.resource.type === "FOLDER";

/** The decoded segments of a path below DAV_BASE, or a 400. */
export function segmentsOf(pathname: string): string[] {
  const rest = pathname.slice(DAV_BASE.length);
  try {
    return rest.split("/").filter((s) => s !== "").map((s) => decodeURIComponent(s));
  } catch {
    throw new DavError(400, `The path ${pathname} is not valid percent-encoded UTF-8`, {
      code: "REQUEST_001",
    });
  }
}

export interface SharedRoot {
  /** Its collection name under /dav/shared/: the resource's name, made unique (docs/webdav.md). */
  name: string;
  path: Resource[];
  access: Access;
}

/**
 * The caller's shared roots, oldest share first. A name taken by an earlier root gets the
 * owner's account id in parentheses, then the resource seq too: "Plans (alice)", "Plans (alice, 42)".
 */
export async function sharedRoots(ctx: DavRequest): Promise<SharedRoot[]> {
  const entries = (await listSharedEntries(ctx.d.kv, ctx.caller.userSeq))
    .sort((a, b) => a.sharedAt - b.sharedAt || a.rs - b.rs);
  const seen = new Set<number>();
  const taken = new Set<string>();
  const out: SharedRoot[] = [];
  for (const e of entries) {
    if (seen.has(e.rs)) continue;
    seen.add(e.rs);
    const loaded = await loadPath(ctx.d.kv, e.rs);
    const access = await accessIfVisible(ctx.d.kv, ctx.caller, loaded);
    if (!access || access.isOwner) continue;
    let name = access.resource.name;
    if (taken.has(nameKeyOf(name))) {
      const owner = (await getUser(ctx.d.kv, access.resource.ownerSeq))?.accountId ?? "?";
      name = `${access.resource.name} (${owner})`;
      if (taken.has(nameKeyOf(name))) name = `${access.resource.name} (${owner}, ${e.rs})`;
    }
    taken.add(nameKeyOf(name));
    out.push({ name, path: access.path, access });
  }
  return out;
}

const fixed = (href: string, node: DavNode): Resolved => ({ href, node, parent: null, name: null });

/** Resolves a request path (pathname, percent-encoded) to what it names for the caller. */
export async function resolvePath(ctx: DavRequest, pathname: string): Promise<Resolved> {
  const segs = segmentsOf(pathname);
  const own = ctx.caller.user.accountId;
  if (segs.length === 0) return fixed(`${DAV_BASE}/`, { kind: "service" });
  const [area, top, ...rest] = segs;
  const missing = (): Resolved => ({
    href: pathname,
    node: null,
    parent: null,
    name: segs.at(-1)!,
    outside: true,
  });
  if (area === "files") {
    if (top === undefined) return fixed(`${DAV_BASE}/files/`, { kind: "files-list" });
    // Another account's drive is indistinguishable from one that does not exist.
    if (top !== own) return missing();
    const root: Container = {
      ownerSeq: ctx.caller.userSeq,
      parentRs: null,
      href: driveHref(own),
      access: null,
    };
    if (rest.length === 0) return fixed(root.href, { kind: "drive" });
    return await walk(ctx, root, [], rest);
  }
  if (area === "shared") {
    if (top === undefined) return fixed(`${DAV_BASE}/shared/`, { kind: "shared-list" });
    const wanted = nameKeyOf(top.normalize("NFC"));
    const root = (await sharedRoots(ctx)).find((r) => nameKeyOf(r.name) === wanted);
    if (!root) return missing();
    const href = `${DAV_BASE}/shared/${encodeSegment(root.name)}` +
      (root.access.resource.type === "FOLDER" ? "/" : "");
    const node: DavNode = { kind: "resource", resource: root.access.resource, access: root.access };
    if (rest.length === 0) return { href, node, parent: null, name: root.name };
    if (root.access.resource.type !== "FOLDER") return missing();
    const container: Container = {
      ownerSeq: root.access.resource.ownerSeq,
      parentRs: root.access.resource.rs,
      href,
      access: root.access,
    };
    return await walk(ctx, container, root.path.slice().reverse(), rest);
  }
  return missing();
}

/** Walks `segs` down from `start`; `above` is the path from the drive root to `start`, top first. */
async function walk(
  ctx: DavRequest,
  start: Container,
  above: Resource[],
  segs: string[],
): Promise<Resolved> {
  let container: Container | null = start;
  const path = above.slice();
  for (let i = 0; i < segs.length; i++) {
    const last = i === segs.length - 1;
    const name = segs[i];
    const entry: Deno.KvEntry<Resource> | null = container
      ? await findChildEntryByName(ctx.d.kv, container.ownerSeq, container.parentRs, name)
      : null;
    const child: Resource | null = entry?.value ?? null;
    if (!child || child.trashedAt !== null) {
      const href = (container?.href ?? "") + encodeSegment(name);
      return { href, node: null, parent: last ? container : null, name };
    }
    path.push(child);
    const access = await accessIfVisible(ctx.d.kv, ctx.caller, {
      path: path.slice().reverse(),
      trashed: false,
    });
    if (!access) return { href: pathOf(container!, child), node: null, parent: null, name };
    const href = pathOf(container!, child);
    if (last) {
      return { href, node: { kind: "resource", resource: child, access }, parent: container, name };
    }
    container = child.type === "FOLDER"
      ? { ownerSeq: child.ownerSeq, parentRs: child.rs, href, access, entry: entry! }
      : null;
  }
  throw new Error("unreachable");
}

const pathOf = (container: Container, child: Resource) =>
  container.href + encodeSegment(child.name) + (child.type === "FOLDER" ? "/" : "");

/** The href of a member of a collection whose href is `parentHref`. */
export const memberHref = (parentHref: string, r: Resource) =>
  parentHref + encodeSegment(r.name) + (r.type === "FOLDER" ? "/" : "");

/** Checks `action` on a resource node through the one authorization module (403 when refused). */
export async function authorizeNode(
  ctx: DavRequest,
  node: Extract<DavNode, { kind: "resource" }>,
  action: Action,
): Promise<Access> {
  return await authorizeResourceAccess(ctx.d.kv, ctx.caller, {
    rs: node.resource.rs,
    loaded: { path: node.access.path, trashed: false },
  }, action);
}

/** May the caller add a member to `container` (upload permission there)? 403 otherwise. */
export async function authorizeContainer(ctx: DavRequest, container: Container): Promise<void> {
  if (!container.access) return;
  await authorizeResourceAccess(ctx.d.kv, ctx.caller, {
    rs: container.parentRs!,
    loaded: { path: container.access.path, trashed: false },
  }, "upload");
}

/**
 * What a write touches, for dav/locks.ts's assertWritable: the target's href and resource (null:
 * unmapped), with its drive's owner and, when unmapped, its parent folder, so the lock check
 * reads no path again (and only one lock-stamp read for a drive that never had a lock).
 */
export function writeTarget(t: Resolved, depth: 0 | "infinity", members?: boolean) {
  const r = t.node?.kind === "resource" ? t.node.resource : null;
  return {
    path: t.href,
    resourceSeq: r?.rs ?? null,
    depth,
    ...(members === undefined ? {} : { members }),
    ...(r
      ? { ownerSeq: r.ownerSeq }
      : t.parent
      ? { ownerSeq: t.parent.ownerSeq, parentRs: t.parent.parentRs }
      : {}),
  };
}
