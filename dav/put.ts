/**
 * PUT (RFC 4918 9.7, RFC 9110 9.3.4): the body streams to the blob store (chunked bodies too; a
 * 0-byte body is a file). A new name stores a new file; an existing file gets a new version,
 * exactly like the API's st=version upload. If-Match and If-None-Match: * are honoured; over quota
 * is 507, a missing parent 409, a collection 405.
 */
import { putContent } from "../kv/tree/content.ts";
import { davFail, type DavRequest } from "./context.ts";
import { authorizeNode, requireParent, resolvePath, writeTarget } from "./paths.ts";
import { etagOf, storeAt } from "./files.ts";
import { assertWritable, type WriteTarget } from "./locks.ts";
import { readNewFileState } from "../kv/tree/placement.ts";

const tagsOf = (header: string) => header.split(",").map((t) => t.trim().replace(/^W\//, ""));

/** If-Match and If-None-Match against the target's current ETag (null: nothing there). */
export function checkPreconditions(req: Request, etag: string | null, exists: boolean): void {
  const ifMatch = req.headers.get("if-match");
  if (ifMatch !== null) {
    const tags = tagsOf(ifMatch);
    const ok = exists && (tags.includes("*") || (etag !== null && tags.includes(etag)));
    if (!ok) davFail(412, "If-Match does not match the resource's current ETag");
  }
  const ifNoneMatch = req.headers.get("if-none-match");
  if (ifNoneMatch !== null && exists) {
    const tags = tagsOf(ifNoneMatch);
    if (tags.includes("*") || (etag !== null && tags.includes(etag))) {
      davFail(412, "If-None-Match: the resource exists (or has that ETag)");
    }
  }
}

function expectedSizeOf(req: Request): number | undefined {
  const len = req.headers.get("content-length");
  return len !== null && /^\d+$/.test(len) ? Number(len) : undefined;
}

export async function put(ctx: DavRequest): Promise<Response> {
  if (ctx.req.headers.has("content-range")) {
    davFail(400, "A PUT with Content-Range (a partial update) is not supported");
  }
  // The caller's own drive's state (user, usage, lock stamp), read while the path is walked: most
  // PUTs go there, and then neither the lock check nor the store reads again before the bytes.
  const ownState = readNewFileState(ctx.d.kv, ctx.caller.userSeq, null);
  ownState.catch(() => {}); // awaited below unless the request fails first
  const target = await resolvePath(ctx, ctx.url.pathname);
  const node = target.node;
  const withStamp = async (t: WriteTarget): Promise<WriteTarget> =>
    t.ownerSeq === ctx.caller.userSeq ? { ...t, lockStamp: (await ownState).lockStamp } : t;
  if (node && (node.kind !== "resource" || node.resource.type === "FOLDER")) {
    davFail(405, "PUT cannot replace a collection");
  }
  const file = node?.kind === "resource" ? node.resource : null;
  checkPreconditions(ctx.req, file ? etagOf(file) : null, file !== null);
  const body = ctx.req.body ?? ReadableStream.from<Uint8Array>([]);
  const expectedSize = expectedSizeOf(ctx.req);
  if (node?.kind === "resource") {
    await authorizeNode(ctx, node, "edit");
    const lockOwner = await assertWritable(ctx, [await withStamp(writeTarget(target, 0))]);
    const next = await putContent(ctx.d, {
      rs: node.resource.rs,
      body,
      expectedSize,
      mode: "version",
      reason: "version",
      actorSeq: ctx.caller.userSeq,
      quotaCode: "RESOURCE_015",
      lockOwner,
      known: node.resource.ownerSeq === ctx.caller.userSeq ? await ownState : undefined,
    });
    return new Response(null, { status: 204, headers: { etag: etagOf(next)! } });
  }
  const parent = requireParent(target);
  const lockOwner = await assertWritable(ctx, [await withStamp(writeTarget(target, 0))]);
  const known = parent.ownerSeq === ctx.caller.userSeq
    ? { ...await ownState, parent: parent.entry ?? null }
    : undefined;
  const created = await storeAt(ctx, target, body, expectedSize, lockOwner, known);
  return new Response(null, {
    status: 201,
    headers: { etag: etagOf(created)!, location: target.href },
  });
}
