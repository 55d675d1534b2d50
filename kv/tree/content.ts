/**
 * A file's bytes and versions: storing a new file (upload, template, copy) and replacing a file's
 * content (a new version, or an overwrite). The bytes are written to the blob store completely
 * first, within the quota and size limits; then one commit makes them visible (resource, name
 * index, version record, usage), and a failed commit deletes the new blob again (the commit
 * discipline is in placement.ts).
 */
import {
  type BlobInfo,
  BlobNotFoundError,
  BlobSizeMismatchError,
  BlobTooLargeError,
} from "../../blobs/store.ts";
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import type { Deps } from "../deps.ts";
import { type ErrorCode, fail } from "../errors.ts";
import { requireUser, type User } from "../identity/users.ts";
import { assertNotLockedByOther, type LockOwner } from "./locks.ts";
import { readInheritedLockGuard, readMembershipLockGuard } from "./dav_locks.ts";
import {
  type NewFileState,
  newResource,
  type NotFound,
  type OnNameConflict,
  pickName,
  readLiveEntries,
  readNewFileState,
  requireFolderEntry,
  stateFits,
} from "./placement.ts";
import { type ContentVersion, deleteVersion, writeVersion } from "./content_versions.ts";
import { getResourceEntry, type Resource, writeResource } from "./resources.ts";
import { lockStampKey, usageKey } from "../keys.ts";
import { validateName } from "./names.ts";
import { chargeUsage, readUsageEntry } from "./usage.ts";

type Body = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** Streams a body into the blob store, mapping size failures to catalog errors. */
async function writeBlob(
  d: Deps,
  body: Body,
  opts: { maxBytes: number; expectedSize?: number; overLimit: ErrorCode; overLimitMessage: string },
): Promise<BlobInfo> {
  try {
    return await d.blobs.write(body, { maxBytes: opts.maxBytes, expectedSize: opts.expectedSize });
  } catch (err) {
    if (err instanceof BlobTooLargeError) fail(opts.overLimit, opts.overLimitMessage);
    if (err instanceof BlobSizeMismatchError) {
      fail("REQUEST_001", `size says ${err.expected} bytes but the body has ${err.actual}`, "size");
    }
    throw err;
  }
}

/** Free quota of a user right now (an upper bound for how many bytes to accept). */
export async function freeQuota(d: Deps, userSeq: number): Promise<number> {
  const [user, usage] = await Promise.all([
    requireUser(d.kv, userSeq),
    readUsageEntry(d.kv, userSeq),
  ]);
  return Math.max(user.quotaBytes - (usage.value ?? 0), 0);
}

async function discardBlob(d: Deps, blobId: string) {
  await d.blobs.delete(blobId).catch((err) =>
    console.error(`could not delete blob ${blobId}:`, err)
  );
}

/**
 * Runs `work` with a freshly written blob; deletes the blob again when `work` fails, unless the
 * caller wrote it (`callerOwned`) and so cleans it up itself.
 */
async function withBlob<T>(
  d: Deps,
  blob: BlobInfo,
  work: () => Promise<T>,
  callerOwned = false,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!callerOwned) await discardBlob(d, blob.blobId);
    throw err;
  }
}

/** What a new content needs to say about its bytes; shared by new files and new versions. */
export interface ContentSource {
  body: Body;
  /** Bytes already written by the caller (who then also deletes them on failure). */
  blob?: BlobInfo;
  expectedSize?: number;
  /** Upper bound on the body besides quota (e.g. the provider's document limit). */
  maxBytes?: number;
  quotaCode: ErrorCode;
  /**
   * Adds the caller's own checks and writes to the content's one commit (a resumable upload marks
   * itself complete there, kv/tree/uploads.ts); it runs again on every retry, and may throw.
   */
  extendCommit?: (op: Deno.AtomicOperation, file: Resource) => Promise<void>;
}

/**
 * The content's blob: the caller's pre-written one, checked against the limits, or the body
 * streamed into a new blob that stops as soon as it passes `room` bytes of quota or `maxBytes`.
 */
async function acceptContent(d: Deps, src: ContentSource, room: number): Promise<BlobInfo> {
  const tooBig = `The content is larger than ${src.maxBytes} bytes`;
  const overQuota = `The content is larger than the ${room} bytes of quota left`;
  if (src.blob) {
    if (src.maxBytes !== undefined && src.blob.size > src.maxBytes) fail("REQUEST_002", tooBig);
    if (src.blob.size > room) fail(src.quotaCode, overQuota);
    return src.blob;
  }
  const quotaBinds = room <= (src.maxBytes ?? Infinity);
  return await writeBlob(d, src.body, {
    maxBytes: Math.min(room, src.maxBytes ?? Number.MAX_SAFE_INTEGER),
    expectedSize: src.expectedSize,
    overLimit: quotaBinds ? src.quotaCode : "REQUEST_002",
    overLimitMessage: quotaBinds ? overQuota : tooBig,
  });
}

interface StoreFileInput extends ContentSource {
  ownerSeq: number;
  parentRs: number | null;
  name: string;
  actorSeq: number;
  onConflict: OnNameConflict;
  reason: string;
  /** Who is writing, for the parent folder's WebDAV locks (WebDAV: the tokens submitted). */
  lockOwner?: LockOwner;
  /** The owner's state and the parent's entry, when the caller just read them (checked first). */
  known?: NewFileState;
}

/** Stores a new file: bytes first, then resource + name index + version + usage in one commit. */
export async function storeNewFile(d: Deps, input: StoreFileInput): Promise<Resource> {
  const name = validateName(input.name, "name");
  // The owner, their usage and lock stamp and the parent: one round trip before the bytes stream.
  // An edge that read them on its way (kv/tree/placement.ts stateFits) saves that round trip.
  const known = input.known && stateFits(input.known, input.ownerSeq, input.parentRs);
  const read = known ? input.known! : await readNewFileState(d.kv, input.ownerSeq, input.parentRs);
  const owner = read.owner;
  // A locked parent refuses before the bytes stream (the commit checks it again).
  await readMembershipLockGuard(
    d.kv,
    owner.userSeq,
    input.parentRs,
    input.lockOwner ?? null,
    read.lockStamp,
  );
  const free = Math.max(owner.quotaBytes - (read.usage.value ?? 0), 0);
  if (input.expectedSize !== undefined && input.expectedSize > free) {
    fail(
      input.quotaCode,
      `The file needs ${input.expectedSize} bytes but only ${free} of the quota are free`,
    );
  }
  const blob = await acceptContent(d, input, free);
  return commitNewFile(d, { ...input, name, owner, blob }, input.blob !== undefined);
}

/** Stores bytes a service produced (templates): same path as an upload. */
export function storeGeneratedFile(
  d: Deps,
  input: Omit<StoreFileInput, "body"> & { bytes: Uint8Array },
): Promise<Resource> {
  const { bytes, ...rest } = input;
  return storeNewFile(d, {
    ...rest,
    body: ReadableStream.from([bytes]),
    expectedSize: bytes.byteLength,
  });
}

/** Copies a file (its current content) into a folder of `destOwnerSeq`'s drive, charging that user. */
export async function copyFile(
  d: Deps,
  input: {
    rs: number;
    destOwnerSeq: number;
    destParentRs: number | null;
    actorSeq: number;
    /** The copy's name (WebDAV's COPY names it); default the source's, "name (n)" when taken. */
    name?: string;
    onConflict?: OnNameConflict;
    /** Who is writing, for the destination folder's WebDAV locks. */
    lockOwner?: LockOwner;
  },
): Promise<Resource> {
  const name = input.name === undefined ? undefined : validateName(input.name, "name");
  let owner: User | null = null;
  let copied: { src: Resource; blobId: string } | null = null;
  // The source's content may be replaced (its old blob deleted) while it is copied: copy the
  // new content then. A blob missing from an unchanged file is a real fault and is thrown.
  for (let attempt = 0; copied === null; attempt++) {
    const src = (await getResourceEntry(d.kv, input.rs)).value;
    if (!src || src.trashedAt !== null) fail("RESOURCE_002", `No file with seq ${input.rs}`);
    if (src.type !== "FILE") {
      fail("RESOURCE_006", `Resource ${input.rs} is a folder; only files can be copied`);
    }
    if (!owner) {
      owner = await requireUser(d.kv, input.destOwnerSeq);
      await requireFolderEntry(d.kv, owner.userSeq, input.destParentRs);
      const lockOwner = input.lockOwner ?? null;
      await readMembershipLockGuard(d.kv, owner.userSeq, input.destParentRs, lockOwner);
    }
    if (src.size > (await freeQuota(d, owner.userSeq))) {
      fail("RESOURCE_015", `The copy needs ${src.size} bytes, more than the quota left`);
    }
    try {
      copied = { src, blobId: await d.blobs.copy(src.blobId!) };
    } catch (err) {
      const now = (await getResourceEntry(d.kv, input.rs)).value;
      if (!(err instanceof BlobNotFoundError) || now?.blobId === src.blobId) throw err;
      if (attempt >= 3) fail("RESOURCE_012", `File ${input.rs} keeps changing; retry the copy`);
    }
  }
  return commitNewFile(d, {
    owner: owner!,
    parentRs: input.destParentRs,
    name: name ?? copied.src.name,
    actorSeq: input.actorSeq,
    onConflict: input.onConflict ?? "rename",
    quotaCode: "RESOURCE_015",
    reason: "copy",
    lockOwner: input.lockOwner,
    blob: { blobId: copied.blobId, size: copied.src.size, sha256: copied.src.sha256! },
  });
}

/** What committing a new file's record needs once its bytes are stored. */
type FileCommit =
  & Pick<
    StoreFileInput,
    "parentRs" | "name" | "actorSeq" | "onConflict" | "quotaCode" | "reason" | "lockOwner"
  >
  & Pick<ContentSource, "extendCommit">
  & { owner: User; blob: BlobInfo };

/**
 * Commits stored bytes as a new file of `input.owner`: resource, name index, first version and
 * usage in one commit. The blob is deleted again when that fails, unless `callerOwned`.
 */
async function commitNewFile(d: Deps, input: FileCommit, callerOwned = false): Promise<Resource> {
  const { owner, blob } = input;
  const resourceSeq = await d.ids.next("resource");
  return withBlob(d, blob, () =>
    commitWithRetry(async () => {
      // The parent, the usage, the lock stamp and the name slot in one round trip.
      const read = await readNewFileState(d.kv, owner.userSeq, input.parentRs, input.name);
      const { parent, usage } = read;
      const guard = await readMembershipLockGuard(
        d.kv,
        owner.userSeq,
        input.parentRs,
        input.lockOwner ?? null,
        read.lockStamp,
      );
      // A free slot is checked by the commit (writeResource); a taken one is answered or renamed.
      const name = read.holder === null
        ? input.name
        : await pickName(d.kv, owner.userSeq, input.parentRs, input.name, input.onConflict);
      const file = newResource({
        rs: resourceSeq,
        ownerSeq: owner.userSeq,
        tenantId: owner.tenantId,
        parentRs: input.parentRs,
        name,
        actorSeq: input.actorSeq,
        content: blob,
      });
      const op = d.kv.atomic().check(...guard);
      if (parent) op.check(parent);
      chargeUsage(op, usage, owner.userSeq, blob.size, owner.quotaBytes, input.quotaCode);
      writeResource(op, null, file, input.actorSeq, input.reason === "copy" ? "copy" : undefined);
      writeVersion(op, file.rs, versionRecord(file, blob, input.reason));
      await input.extendCommit?.(op, file);
      return (await commit(op)) === true ? file : CONFLICT;
    }), callerOwned);
}

function versionRecord(file: Resource, blob: BlobInfo, reason: string): ContentVersion {
  return {
    version: file.version,
    blobId: blob.blobId,
    size: blob.size,
    sha256: blob.sha256,
    createdAt: file.updatedAt,
    createdBy: file.updatedBy,
    reason,
  };
}

interface PutContentInput extends ContentSource {
  rs: number;
  /** version: keep the previous content as an older version; overwrite: replace it. */
  mode: "version" | "overwrite";
  reason: string;
  actorSeq: number;
  /** Who is writing, for the lock check; null = nobody holding a lock. */
  lockOwner: LockOwner;
  /** The owner's state (user, usage, lock stamp), when the caller just read it. */
  known?: NewFileState;
}

/**
 * Replaces a file's content atomically: the new bytes are written completely first, then one
 * commit swaps the resource to them (checked against the resource, the lock and usage).
 */
export async function putContent(d: Deps, input: PutContentInput): Promise<Resource> {
  const notFound: NotFound = ["RESOURCE_002", `No file with seq ${input.rs}`, "rs"];
  const before = await readLiveEntries(d, input.rs, notFound);
  if (before.cur.value.type !== "FILE") {
    fail("RESOURCE_006", `Resource ${input.rs} is a folder`, "rs");
  }
  assertNotLockedByOther(before.lock.value, input.lockOwner);
  // The owner, their usage and lock stamp in one round trip.
  const ownerSeq = before.cur.value.ownerSeq;
  const state = input.known?.owner.userSeq === ownerSeq
    ? input.known
    : await readNewFileState(d.kv, ownerSeq, null);
  const owner = state.owner;
  // A WebDAV depth-infinity lock on a folder above counts too; refused before the bytes stream.
  await readInheritedLockGuard(d.kv, before.cur.value, input.lockOwner, state.lockStamp);
  const free = Math.max(owner.quotaBytes - (state.usage.value ?? 0), 0);
  const credit = input.mode === "overwrite" ? before.cur.value.size : 0;
  const blob = await acceptContent(d, input, free + credit);
  let replaced: string | null = null;
  const file = await withBlob(d, blob, () =>
    commitWithRetry(async () => {
      const [{ cur, lock }, [usage, stamp]] = await Promise.all([
        readLiveEntries(d, input.rs, notFound),
        d.kv.getMany<[number, number]>([usageKey(owner.userSeq), lockStampKey(owner.userSeq)]),
      ]);
      assertNotLockedByOther(lock.value, input.lockOwner);
      // The stamp read beside the entries is the owner's (a file keeps its owner; else re-read).
      const ownStamp = cur.value.ownerSeq === owner.userSeq ? stamp : undefined;
      const inherited = await readInheritedLockGuard(d.kv, cur.value, input.lockOwner, ownStamp);
      const now = Date.now();
      const next: Resource = {
        ...cur.value,
        size: blob.size,
        blobId: blob.blobId,
        sha256: blob.sha256,
        version: cur.value.version + 1,
        updatedAt: Math.max(now, cur.value.updatedAt + 1),
        updatedBy: input.actorSeq,
      };
      const op = d.kv.atomic().check(cur, lock, ...inherited);
      const delta = blob.size - (input.mode === "overwrite" ? cur.value.size : 0);
      chargeUsage(op, usage, owner.userSeq, delta, owner.quotaBytes, input.quotaCode);
      writeResource(op, cur.value, next, input.actorSeq);
      if (input.mode === "overwrite") {
        deleteVersion(op, cur.value.rs, cur.value.version);
      }
      writeVersion(op, next.rs, versionRecord(next, blob, input.reason));
      replaced = input.mode === "overwrite" ? cur.value.blobId : null;
      await input.extendCommit?.(op, next);
      return (await commit(op)) === true ? next : CONFLICT;
    }), input.blob !== undefined);
  if (replaced) await discardBlob(d, replaced);
  return file;
}
