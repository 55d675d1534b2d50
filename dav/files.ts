/**
 * What PUT and LOCK share about files: a file's ETag, and storing a new file at an unmapped URL
 * (a PUT to a new name, a LOCK on an unmapped URL) through the drive's one storeNewFile.
 */
import { storeNewFile } from "../kv/tree/content.ts";
import { contentEtag } from "../lib/etag.ts";
import type { LockOwner } from "../kv/tree/locks.ts";
import type { Resource } from "../kv/tree/resources.ts";
import type { NewFileState } from "../kv/tree/placement.ts";
import type { DavRequest } from "./context.ts";
import { authorizeContainer, requireParent, type Resolved } from "./paths.ts";

/** A file's ETag: the same strong ETag as the API's download (lib/etag.ts). */
export const etagOf = (r: Resource): string | null =>
  r.type === "FILE" && r.sha256 ? contentEtag(r.sha256) : null;

/**
 * A new file at the unmapped `target` holding `body`: the drive's one way to store a new file
 * (kv/tree/content.ts), its name checked by the drive's name rule.
 */
export async function storeAt(
  ctx: DavRequest,
  target: Resolved,
  body: ReadableStream<Uint8Array>,
  expectedSize: number | undefined,
  lockOwner: LockOwner,
  /** The owner's state and the parent's entry as the request read them (kv/tree/placement.ts). */
  known?: NewFileState,
): Promise<Resource> {
  const parent = requireParent(target);
  await authorizeContainer(ctx, parent);
  return await storeNewFile(ctx.d, {
    ownerSeq: parent.ownerSeq,
    parentRs: parent.parentRs,
    name: target.name!,
    actorSeq: ctx.caller.userSeq,
    onConflict: "fail",
    reason: "upload",
    quotaCode: "RESOURCE_015",
    body,
    expectedSize,
    lockOwner,
    known,
  });
}

/** LOCK on an unmapped URL (dav/locks.ts): an empty file, as a 0-byte PUT makes. */
export function createEmptyFile(
  ctx: DavRequest,
  target: Resolved,
  lockOwner: LockOwner,
): Promise<Resource> {
  return storeAt(ctx, target, ReadableStream.from<Uint8Array>([]), 0, lockOwner);
}
