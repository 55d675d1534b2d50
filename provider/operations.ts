/**
 * The nine operations of the storage provider protocol, on the drive: paths resolve by name
 * under the adapter's root and every change goes through the same kv/ operations the drive API
 * uses (createFolder, storeNewFile/putContent, renameResource, trashResource, the lock record).
 */
import type { OptionalOperation } from "../kv/adapters/operations.ts";
import type { Deps } from "../kv/deps.ts";
import { isDriveError } from "../kv/errors.ts";
import { createFolder } from "../kv/tree/folders.ts";
import { putContent, storeNewFile } from "../kv/tree/content.ts";
import { renameResource, trashResource } from "../kv/tree/moves.ts";
import { acquireLock, type Lock, providerLockOwner, releaseLock } from "../kv/tree/locks.ts";
import { findChildByName, type Resource } from "../kv/tree/resources.ts";
import { hasChildren } from "../kv/tree/listing.ts";
import { directoryJson, docIdOf, nodeEntry } from "./entries.ts";
import { isDirectory, nodeRs, pathOf } from "./paths.ts";
import { noContent, ProviderError, unsupportedResponse } from "./responses.ts";
import type { ReadAhead } from "./read_ahead.ts";
import type { ListPool } from "./list_pool.ts";
import type { VerifiedRequest } from "./verify.ts";
import {
  authorize,
  type Ctx,
  jsonBytesOk,
  jsonResponse,
  loadRoot,
  newName,
  oneStringField,
  requireFile,
  requireNotRoot,
  resolve,
  resolveParent,
} from "./operation_context.ts";

const WRITING = new Set(["put", "lock", "unlock", "mkdir", "rename", "delete"]);

async function info(ctx: Ctx): Promise<Response> {
  const { url } = ctx.v;
  const node = await resolve(ctx, url.segments);
  await authorize(ctx, node, "view");
  const name = url.segments[url.segments.length - 1] ?? "";
  const entry = await nodeEntry(
    ctx.reader,
    ctx.adapter,
    ctx.root,
    node,
    url.path,
    name,
    ctx.d.config.providerMaxDocBytes,
  );
  return jsonResponse(entry);
}

async function list(ctx: Ctx): Promise<Response> {
  const node = await resolve(ctx, ctx.v.url.segments);
  if (!isDirectory(node)) throw new ProviderError(409, "The target is a file, not a directory");
  await authorize(ctx, node, "view");
  // On the listing worker when there is one (provider/list_pool.ts): the scan and the JSON of
  // 1,000 entries are most of a list's CPU, and the main thread has the other requests to serve.
  const listing = {
    adapter: ctx.adapter,
    ownerSeq: ctx.root.ownerSeq,
    parentRs: nodeRs(ctx.root, node),
    dirPath: ctx.v.url.path,
    maxDocBytes: ctx.d.config.providerMaxDocBytes,
  };
  const inThread = async () => new TextEncoder().encode(await directoryJson(ctx.d.kv, listing));
  return jsonBytesOk(ctx.lists ? await ctx.lists.run(listing, inThread) : await inThread());
}

async function get(ctx: Ctx): Promise<Response> {
  const node = await resolve(ctx, ctx.v.url.segments);
  const file = requireFile(node);
  await authorize(ctx, node, "download");
  if (file.size > ctx.d.config.providerMaxDocBytes) {
    throw new ProviderError(413, "The document is larger than the provider's limit");
  }
  // Opened before the headers go out; an open file keeps its bytes even if replaced meanwhile.
  const body = await ctx.d.blobs.read(file.blobId!);
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(file.size),
      "cache-control": "no-store, no-transform",
    },
  });
}

function saveReason(ctx: Ctx): string {
  const saveType = ctx.v.claims.request.arguments?.save_type;
  return typeof saveType === "string" && /^[\w.:-]{1,64}$/.test(saveType) ? saveType : "put";
}

async function put(ctx: Ctx): Promise<Response> {
  const { d, adapter, v } = ctx;
  const blob = v.blob!;
  requireNotRoot(ctx, "overwritten");
  // The name passed newNameProblem in step 1 (verify.ts), before the body was read.
  const name = v.url.segments[v.url.segments.length - 1];
  const parent = await resolveParent(ctx, v.url.segments.slice(0, -1));
  const parentRs = nodeRs(ctx.root, parent);
  // A put carries no lock owner: it may write through any lock of this adapter, not others'.
  const ownLock = (lock: Lock) =>
    lock.source === "provider" && lock.owner.startsWith(providerLockOwner(adapter.name, ""));
  // Retried a few times: a concurrent put may create (or a delete trash) the file between our
  // look-up and our write; the buffered blob is reused.
  for (let attempt = 0;; attempt++) {
    const existing = await findChildByName(d.kv, ctx.root.ownerSeq, parentRs, name);
    if (existing && existing.type !== "FILE") {
      throw new ProviderError(409, "A directory occupies the path");
    }
    try {
      let file: Resource;
      if (existing) {
        const node = { kind: "resource" as const, resource: existing, above: pathOf(parent) };
        await authorize(ctx, node, "edit");
        file = await putContent(d, {
          rs: existing.rs,
          body: new ReadableStream(),
          blob,
          mode: "version",
          reason: saveReason(ctx),
          actorSeq: adapter.userSeq,
          lockOwner: ownLock,
          quotaCode: "RESOURCE_015",
          maxBytes: d.config.providerMaxDocBytes,
        });
      } else {
        await authorize(ctx, parent, "upload");
        file = await storeNewFile(d, {
          ownerSeq: ctx.root.ownerSeq,
          parentRs,
          name,
          body: new ReadableStream(),
          blob,
          actorSeq: adapter.userSeq,
          onConflict: "fail",
          quotaCode: "RESOURCE_015",
          reason: saveReason(ctx),
          maxBytes: d.config.providerMaxDocBytes,
        });
      }
      ctx.blobUsed = true;
      return jsonResponse({ docId: docIdOf(adapter, file) });
    } catch (err) {
      const raced = (isDriveError(err, "RESOURCE_003") && !existing) ||
        (isDriveError(err, "RESOURCE_002") && existing);
      if (!raced || attempt >= 3) throw err;
    }
  }
}

async function lock(ctx: Ctx): Promise<Response> {
  const owner = oneStringField(ctx, "owner");
  const node = await resolve(ctx, ctx.v.url.segments);
  const file = requireFile(node);
  await authorize(ctx, node, "edit");
  await acquireLock(ctx.d.kv, {
    rs: file.rs,
    owner: providerLockOwner(ctx.adapter.name, owner),
    source: "provider",
    holder: owner,
    ttlMs: null,
  });
  return noContent();
}

async function unlock(ctx: Ctx): Promise<Response> {
  const owner = oneStringField(ctx, "owner");
  const node = await resolve(ctx, ctx.v.url.segments);
  const file = requireFile(node);
  await authorize(ctx, node, "edit");
  await releaseLock(ctx.d.kv, file.rs, providerLockOwner(ctx.adapter.name, owner));
  return noContent();
}

async function mkdir(ctx: Ctx): Promise<Response> {
  const name = newName(ctx);
  const parent = await resolve(ctx, ctx.v.url.segments);
  if (!isDirectory(parent)) throw new ProviderError(409, "The parent is not a directory");
  await authorize(ctx, parent, "upload");
  await createFolder(ctx.d, {
    ownerSeq: ctx.root.ownerSeq,
    parentRs: nodeRs(ctx.root, parent),
    name,
    actorSeq: ctx.adapter.userSeq,
    onConflict: "fail",
  });
  return noContent();
}

async function rename(ctx: Ctx): Promise<Response> {
  requireNotRoot(ctx, "renamed");
  const name = newName(ctx);
  const node = await resolve(ctx, ctx.v.url.segments);
  if (node.kind === "root") throw new ProviderError(400, "The root cannot be renamed");
  await authorize(ctx, node, "edit");
  // No lock owner: a locked entry refuses rename (409), as in the public examples.
  await renameResource(ctx.d, {
    rs: node.resource.rs,
    name,
    onConflict: "fail",
    actorSeq: ctx.adapter.userSeq,
    field: "name",
    lockOwner: null,
  });
  return noContent();
}

async function remove(ctx: Ctx): Promise<Response> {
  requireNotRoot(ctx, "deleted");
  const node = await resolve(ctx, ctx.v.url.segments);
  if (node.kind === "root") throw new ProviderError(400, "The root cannot be deleted");
  await authorize(ctx, node, "delete");
  const r = node.resource;
  if (r.type === "FOLDER" && (await hasChildren(ctx.d.kv, r.ownerSeq, r.rs))) {
    throw new ProviderError(409, "The directory is not empty");
  }
  // Moves to the drive's trash (restorable there); locked entries refuse with 409.
  await trashResource(ctx.d, { rs: r.rs, actorSeq: ctx.adapter.userSeq, lockOwner: null });
  return noContent();
}

const HANDLERS = { info, list, get, put, lock, unlock, mkdir, rename, delete: remove };

/**
 * Step 6, answered only once the jti is recorded: `replayChecked` is settled already for every
 * operation but info and list, whose reads run meanwhile. A refused jti answers its 401 and the
 * work's answer is dropped.
 */
export async function runOperation(
  d: Deps,
  v: VerifiedRequest,
  helpers: { readAhead?: ReadAhead; lists?: ListPool | null } = {},
): Promise<Response> {
  const [replay, work] = await Promise.allSettled([v.replayChecked, runVerified(d, v, helpers)]);
  if (replay.status === "rejected") {
    if (work.status === "fulfilled") await work.value.body?.cancel();
    throw replay.reason;
  }
  if (work.status === "rejected") throw work.reason;
  return work.value;
}

/** Unsupported answer, read-only refusal, access, then the operation itself. */
async function runVerified(
  d: Deps,
  v: VerifiedRequest,
  { readAhead, lists = null }: { readAhead?: ReadAhead; lists?: ListPool | null },
): Promise<Response> {
  const op = v.url.operation;
  const ahead = readAhead?.reader(d.kv, v.readAhead.keys, v.readAhead.entries);
  const reader = ahead?.reader ?? d.kv;
  const ctx = { d, v, adapter: v.adapter, reader, lists, blobUsed: false } as Ctx;
  try {
    if (op !== "info" && op !== "get" && !v.adapter.operations.includes(op as OptionalOperation)) {
      return unsupportedResponse(op as OptionalOperation);
    }
    if (v.adapter.readOnly && WRITING.has(op)) {
      throw new ProviderError(403, "This adapter is read-only");
    }
    Object.assign(ctx, await loadRoot(d, v.adapter, v.identityEpoch));
    const response = await HANDLERS[op](ctx);
    ahead?.done(v.adapter.name, op, v.url.rawPath);
    return response;
  } finally {
    // The put body is the file's content only once committed; otherwise the temporary blob goes.
    if (v.blob && !ctx.blobUsed) await d.blobs.delete(v.blob.blobId).catch(() => {});
  }
}
