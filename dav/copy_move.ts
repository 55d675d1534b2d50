/**
 * COPY and MOVE (RFC 4918 9.8, 9.9) over the drive's own operations: copyFile, copyFolder
 * (Depth: infinity, kv/tree/folder_copy.ts) and createFolder (Depth: 0), so a COPY counts
 * against the quota like any copy; moveResource, renameResource and moveFileToDrive. Destination is an absolute URI or a path; another host is 502. Overwrite: F
 * refuses a mapped destination (412); T moves what is there to the trash first (204). A
 * collection never goes into itself (403).
 */
import { copyFile } from "../kv/tree/content.ts";
import { copyDeadProps } from "../kv/tree/dead_props.ts";
import { createFolder } from "../kv/tree/folders.ts";
import { copyFolder } from "../kv/tree/folder_copy.ts";
import { releaseDavLocksOn } from "../kv/tree/dav_locks.ts";
import type { LockOwner } from "../kv/tree/locks.ts";
import { moveFileToDrive, moveResource, renameResource, trashResource } from "../kv/tree/moves.ts";
import type { Resource } from "../kv/tree/resources.ts";
import { isDriveError } from "../kv/errors.ts";
import { DAV_BASE, davFail, type DavRequest } from "./context.ts";
import {
  authorizeContainer,
  authorizeNode,
  type Container,
  type DavNode,
  requireParent,
  resolvePath,
  writeTarget,
} from "./paths.ts";
import { assertWritable } from "./locks.ts";

type ResourceNode = Extract<DavNode, { kind: "resource" }>;

/** The Destination header as a path below DAV_BASE (still percent-encoded). */
function destinationPath(ctx: DavRequest): string {
  const header = ctx.req.headers.get("destination");
  if (!header) davFail(400, "COPY and MOVE need a Destination header");
  let url: URL;
  try {
    url = new URL(header!, ctx.url);
  } catch {
    return davFail(400, `Destination ${header} is not a URI`);
  }
  if (url.host !== ctx.url.host) {
    davFail(502, `Destination ${header} is on another server`);
  }
  if (url.pathname !== DAV_BASE && !url.pathname.startsWith(`${DAV_BASE}/`)) {
    davFail(502, `Destination ${header} is outside this WebDAV tree`);
  }
  return url.pathname;
}

function overwriteOf(req: Request): boolean {
  const h = (req.headers.get("overwrite") ?? "T").trim().toUpperCase();
  if (h !== "T" && h !== "F") davFail(400, "Overwrite must be T or F");
  return h === "T";
}

function depthOf(req: Request, method: "COPY" | "MOVE"): 0 | "infinity" {
  const h = (req.headers.get("depth") ?? "infinity").trim().toLowerCase();
  if (h === "infinity") return "infinity";
  if (h === "0" && method === "COPY") return 0;
  return davFail(
    400,
    method === "MOVE" ? "MOVE is always Depth: infinity" : "COPY takes Depth 0 or infinity",
  );
}

/** Whether the percent-encoded path `inner` is `outer` or below it. */
function isWithin(inner: string, outer: string): boolean {
  const norm = (p: string) =>
    decodeURIComponent(p).normalize("NFC").toLowerCase().replace(/\/?$/, "/");
  return norm(inner).startsWith(norm(outer));
}

export async function copyMove(ctx: DavRequest, method: "COPY" | "MOVE"): Promise<Response> {
  const depth = depthOf(ctx.req, method);
  const overwrite = overwriteOf(ctx.req);
  const src = await resolvePath(ctx, ctx.url.pathname);
  if (!src.node) davFail(404, `Nothing is at ${ctx.url.pathname}`);
  if (src.node!.kind !== "resource") {
    davFail(403, "This collection is part of the service's layout");
  }
  const node = src.node as ResourceNode;
  const destPath = destinationPath(ctx);
  const dest = await resolvePath(ctx, destPath);
  if (dest.node && dest.node.kind !== "resource") {
    davFail(403, "The destination is part of the service's layout");
  }
  if (dest.node?.kind === "resource" && dest.node.resource.rs === node.resource.rs) {
    davFail(403, "The source and the destination are the same resource");
  }
  if (node.resource.type === "FOLDER" && isWithin(destPath, src.href)) {
    davFail(403, "A collection cannot be copied or moved into itself");
  }
  requireParent(dest);
  if (dest.node && !overwrite) davFail(412, "The destination exists and Overwrite is F");
  await authorizeNode(ctx, node, method === "MOVE" ? "edit" : "download");
  await authorizeContainer(ctx, dest.parent!);
  const targets = [writeTarget(dest, "infinity", true)];
  if (method === "MOVE") targets.unshift(writeTarget(src, "infinity", true));
  const lockOwner = await assertWritable(ctx, targets);
  if (dest.node?.kind === "resource") {
    await authorizeNode(ctx, dest.node, "delete");
    await trashResource(ctx.d, {
      rs: dest.node.resource.rs,
      actorSeq: ctx.caller.userSeq,
      lockOwner,
    });
    await releaseDavLocksOn(ctx.d.kv, dest.node.resource.rs);
  }
  if (method === "MOVE") {
    await move(ctx, node.resource, dest.parent!, dest.name!, lockOwner);
    // RFC 4918 9.9.4: a lock does not move with the resource; it ends with the MOVE.
    await releaseDavLocksOn(ctx.d.kv, node.resource.rs);
  } else await copy(ctx, node.resource, dest.parent!, dest.name!, depth, lockOwner);
  const status = dest.node ? 204 : 201;
  return new Response(null, { status, headers: status === 201 ? { location: dest.href } : {} });
}

async function move(
  ctx: DavRequest,
  r: Resource,
  to: Container,
  name: string,
  lockOwner: LockOwner,
): Promise<void> {
  const base = { rs: r.rs, actorSeq: ctx.caller.userSeq, lockOwner };
  const rename = () =>
    renameResource(ctx.d, { ...base, name, onConflict: "fail", field: "Destination" });
  if (r.ownerSeq !== to.ownerSeq) {
    if (r.type === "FOLDER") {
      davFail(403, "A collection cannot move to another user's drive; copy it, then delete it");
    }
    await moveFileToDrive(ctx.d, { ...base, destOwnerSeq: to.ownerSeq, destParentRs: to.parentRs });
    if (r.name !== name) await rename();
    return;
  }
  if (r.parentRs === to.parentRs) {
    await rename();
    return;
  }
  try {
    await moveResource(ctx.d, { ...base, destParentRs: to.parentRs });
  } catch (err) {
    // The source's name is taken in the destination folder: rename first, then move.
    if (!isDriveError(err) || err.code !== "RESOURCE_003" || r.name === name) throw err;
    await rename();
    await moveResource(ctx.d, { ...base, destParentRs: to.parentRs });
    return;
  }
  if (r.name !== name) await rename();
}

async function copy(
  ctx: DavRequest,
  r: Resource,
  to: Container,
  name: string,
  depth: 0 | "infinity",
  lockOwner: LockOwner,
): Promise<void> {
  const common = {
    destOwnerSeq: to.ownerSeq,
    destParentRs: to.parentRs,
    actorSeq: ctx.caller.userSeq,
    lockOwner,
  };
  if (r.type === "FILE") {
    const made = await copyFile(ctx.d, { ...common, rs: r.rs, name, onConflict: "fail" });
    await copyDeadProps(ctx.d.kv, r.rs, made);
    return;
  }
  if (depth === "infinity") {
    // The drive's one folder copy (kv/tree/folder_copy.ts): quota up front, batched commits.
    await copyFolder(ctx.d, {
      ...common,
      rs: r.rs,
      name,
      onConflict: "fail",
      onCopied: (src, made) => copyDeadProps(ctx.d.kv, src.rs, made),
    });
    return;
  }
  const folder = await createFolder(ctx.d, {
    ownerSeq: to.ownerSeq,
    parentRs: to.parentRs,
    name,
    actorSeq: ctx.caller.userSeq,
    onConflict: "fail",
    lockOwner,
  });
  await copyDeadProps(ctx.d.kv, r.rs, folder);
}
