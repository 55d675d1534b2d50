/**
 * MKCOL (RFC 4918 9.3): a folder through the drive's createFolder; 405 when the URL is mapped,
 * 409 when the parent is missing, 415 with a body. DELETE (9.6): to the trash, as the API's
 * delete does, so it can be restored and its versions are kept.
 */
import { createFolder } from "../kv/tree/folders.ts";
import { trashResource } from "../kv/tree/moves.ts";
import { readLockStamp, releaseDavLocksOn } from "../kv/tree/dav_locks.ts";
import { davFail, type DavRequest } from "./context.ts";
import { hasBody } from "./body.ts";
import {
  authorizeContainer,
  authorizeNode,
  requireParent,
  resolvePath,
  writeTarget,
} from "./paths.ts";
import { assertWritable } from "./locks.ts";

export async function mkcol(ctx: DavRequest): Promise<Response> {
  // The caller's own drive's lock stamp, read while the path is walked: most MKCOLs go there.
  const ownStamp = readLockStamp(ctx.d.kv, ctx.caller.userSeq);
  ownStamp.catch(() => {}); // awaited below unless the request fails first
  const target = await resolvePath(ctx, ctx.url.pathname);
  if (hasBody(ctx.req)) davFail(415, "MKCOL takes no body");
  if (target.node) davFail(405, "Something already exists at this URL");
  const parent = requireParent(target);
  await authorizeContainer(ctx, parent);
  const own = parent.ownerSeq === ctx.caller.userSeq;
  const lockStamp = await (own ? ownStamp : readLockStamp(ctx.d.kv, parent.ownerSeq));
  const lockOwner = await assertWritable(ctx, [{ ...writeTarget(target, 0), lockStamp }]);
  // What the walk read: the first attempt commits on it, checking the parent's entry and stamp.
  const known = parent.entry
    ? { parent: parent.entry, lockStamp }
    : parent.parentRs === null && own
    ? { owner: ctx.caller, lockStamp }
    : undefined;
  await createFolder(ctx.d, {
    ownerSeq: parent.ownerSeq,
    parentRs: parent.parentRs,
    name: target.name!,
    actorSeq: ctx.caller.userSeq,
    onConflict: "fail",
    lockOwner,
    // The path was read on the way down: the depth check needs no second walk.
    parentDepth: parent.access?.path.length ?? 0,
    known,
  });
  return new Response(null, { status: 201, headers: { location: `${target.href}/` } });
}

export async function remove(ctx: DavRequest): Promise<Response> {
  const target = await resolvePath(ctx, ctx.url.pathname);
  const node = target.node;
  if (!node) davFail(404, `Nothing is at ${ctx.url.pathname}`);
  if (node!.kind !== "resource") davFail(403, "This collection is part of the service's layout");
  const resource = node!.kind === "resource" ? node!.resource : null!;
  const depth = ctx.req.headers.get("depth");
  if (resource.type === "FOLDER" && depth !== null && depth.toLowerCase() !== "infinity") {
    davFail(400, "DELETE of a collection is always Depth: infinity");
  }
  if (node!.kind === "resource") await authorizeNode(ctx, node!, "delete");
  const lockOwner = await assertWritable(ctx, [writeTarget(target, "infinity", true)]);
  await trashResource(ctx.d, { rs: resource.rs, actorSeq: ctx.caller.userSeq, lockOwner });
  // RFC 4918 9.6: a deleted resource loses its locks (the editor's or provider's record stays).
  await releaseDavLocksOn(ctx.d.kv, resource.rs);
  return new Response(null, { status: 204 });
}
