/**
 * The drive operations both protocols use: create, store bytes, put content, rename, move, copy,
 * trash. Each validates, then commits the resource, its index keys and usage in one atomic
 * write; byte streams go to the blob store first and are deleted again when the commit fails,
 * so a failed request never leaves a half-written tree or changes stored content.
 */
import {
  type BlobInfo,
  BlobNotFoundError,
  BlobSizeMismatchError,
  BlobTooLargeError,
} from "../../blobs/store.ts";
import { commit, commitWithRetry, CONFLICT, nextSeq } from "../db.ts";
import type { Deps } from "../deps.ts";
import { DriveError, type ErrorCode, fail } from "../errors.ts";
import { shareByResKey } from "../keys.ts";
import {
  assertNotLockedByOther,
  lockEntryFor,
  type LockOwner,
  readFolderLockGuard,
} from "./locks.ts";
import { mimeOf } from "../../lib/mime.ts";
import {
  type ContentVersion,
  deleteVersion,
  freeName,
  getResourceEntry,
  listVersions,
  loadPath,
  MAX_DEPTH,
  nameIndexKey,
  type Resource,
  validateName,
  writeResource,
  writeVersion,
} from "./resources.ts";
import { chargeUsage, readUsageEntry } from "./usage.ts";
import { requireUser, type User } from "../identity/users.ts";

type Body = AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** What to do when the name is taken: pick "name (n).ext", or fail with RESOURCE_003. */
export type OnNameConflict = "rename" | "fail";

async function requireFolderEntry(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  field = "pfs",
) {
  if (parentRs === null) return null;
  const entry = await getResourceEntry(kv, parentRs);
  const p = entry.value;
  if (!p || p.trashedAt !== null || p.ownerSeq !== ownerSeq) {
    fail("RESOURCE_008", `No folder with seq ${parentRs} in this drive`, field);
  }
  if (p.type !== "FOLDER") {
    fail("RESOURCE_005", `Resource ${parentRs} is a file, not a folder`, field);
  }
  return entry;
}

async function pickName(
  kv: Deno.Kv,
  ownerSeq: number,
  parentRs: number | null,
  name: string,
  onConflict: OnNameConflict,
  ignoreRs?: number,
): Promise<string> {
  if (onConflict === "rename") return await freeName(kv, ownerSeq, parentRs, name, ignoreRs);
  const taken = (await kv.get<number>(nameIndexKey(ownerSeq, parentRs, name))).value;
  if (taken !== null && taken !== ignoreRs) {
    fail("RESOURCE_003", `"${name}" already exists in this folder`);
  }
  return name;
}

/**
 * A failed commit is retried whatever check failed: it may be the name slot, or a concurrent
 * change elsewhere (a move's ancestor chain). The retry's pickName answers RESOURCE_003 when
 * the name really is taken by then.
 */
function nameConflict(_onConflict: OnNameConflict, _name: string): typeof CONFLICT {
  return CONFLICT;
}

export async function createFolder(
  d: Deps,
  input: {
    ownerSeq: number;
    parentRs: number | null;
    name: string;
    actorSeq: number;
    onConflict?: OnNameConflict;
  },
): Promise<Resource> {
  const name = validateName(input.name, "fn");
  const owner = await requireUser(d.kv, input.ownerSeq);
  const onConflict = input.onConflict ?? "fail";
  if (input.parentRs !== null) {
    const path = await loadPath(d.kv, input.parentRs);
    if (path && path.path.length >= MAX_DEPTH) {
      fail("RESOURCE_014", `Folders may nest at most ${MAX_DEPTH} deep`, "pfs");
    }
  }
  const rs = await nextSeq(d.kv, "resource");
  return commitWithRetry(async () => {
    const parent = await requireFolderEntry(d.kv, owner.userSeq, input.parentRs);
    const finalName = await pickName(d.kv, owner.userSeq, input.parentRs, name, onConflict);
    const now = Date.now();
    const folder: Resource = {
      rs,
      ownerSeq: owner.userSeq,
      tenantId: owner.tenantId,
      parentRs: input.parentRs,
      name: finalName,
      type: "FOLDER",
      size: 0,
      mime: null,
      blobId: null,
      sha256: null,
      version: 0,
      createdAt: now,
      updatedAt: now,
      createdBy: input.actorSeq,
      updatedBy: input.actorSeq,
      trashedAt: null,
    };
    const op = d.kv.atomic();
    if (parent) op.check(parent);
    writeResource(op, null, folder);
    return (await commit(op)) === true ? folder : nameConflict(onConflict, finalName);
  });
}

/** Streams a body into the blob store, mapping size failures to catalog errors. */
export async function writeBlob(
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

export interface StoreFileInput extends ContentSource {
  ownerSeq: number;
  parentRs: number | null;
  name: string;
  actorSeq: number;
  onConflict: OnNameConflict;
  reason: string;
}

/** Stores a new file: bytes first, then resource + name index + version + usage in one commit. */
export async function storeNewFile(d: Deps, input: StoreFileInput): Promise<Resource> {
  const name = validateName(input.name, "name");
  const owner = await requireUser(d.kv, input.ownerSeq);
  await requireFolderEntry(d.kv, owner.userSeq, input.parentRs);
  const free = await freeQuota(d, owner.userSeq);
  if (input.expectedSize !== undefined && input.expectedSize > free) {
    fail(
      input.quotaCode,
      `The file needs ${input.expectedSize} bytes but only ${free} of the quota are free`,
    );
  }
  const blob = await acceptContent(d, input, free);
  const rs = await nextSeq(d.kv, "resource");
  return withBlob(
    d,
    blob,
    () =>
      commitFile(d, {
        ...input,
        name,
        rs,
        blob,
        tenantId: owner.tenantId,
        quotaBytes: owner.quotaBytes,
      }),
    input.blob !== undefined,
  );
}

/** What committing a new file's record needs once its bytes are stored. */
type FileCommit =
  & Pick<
    StoreFileInput,
    "ownerSeq" | "parentRs" | "name" | "actorSeq" | "onConflict" | "quotaCode" | "reason"
  >
  & { rs: number; blob: BlobInfo; tenantId: number; quotaBytes: number };

function commitFile(d: Deps, input: FileCommit): Promise<Resource> {
  return commitWithRetry(async () => {
    const [parent, usage] = await Promise.all([
      requireFolderEntry(d.kv, input.ownerSeq, input.parentRs),
      readUsageEntry(d.kv, input.ownerSeq),
    ]);
    const finalName = await pickName(
      d.kv,
      input.ownerSeq,
      input.parentRs,
      input.name,
      input.onConflict,
    );
    const now = Date.now();
    const file: Resource = {
      rs: input.rs,
      ownerSeq: input.ownerSeq,
      tenantId: input.tenantId,
      parentRs: input.parentRs,
      name: finalName,
      type: "FILE",
      size: input.blob.size,
      mime: mimeOf(finalName),
      blobId: input.blob.blobId,
      sha256: input.blob.sha256,
      version: 1,
      createdAt: now,
      updatedAt: now,
      createdBy: input.actorSeq,
      updatedBy: input.actorSeq,
      trashedAt: null,
    };
    const op = d.kv.atomic();
    if (parent) op.check(parent);
    chargeUsage(op, usage, input.ownerSeq, input.blob.size, input.quotaBytes, input.quotaCode);
    writeResource(op, null, file);
    writeVersion(op, file.rs, versionRecord(file, input.blob, input.reason));
    return (await commit(op)) === true ? file : nameConflict(input.onConflict, finalName);
  });
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

export interface PutContentInput extends ContentSource {
  rs: number;
  /** version: keep the previous content as an older version; overwrite: replace it. */
  mode: "version" | "overwrite";
  reason: string;
  actorSeq: number;
  /** Who is writing, for the lock check; null = nobody holding a lock. */
  lockOwner: LockOwner;
}

/**
 * Replaces a file's content atomically: the new bytes are written completely first, then one
 * commit swaps the resource to them (checked against the resource, the lock and usage).
 */
export async function putContent(d: Deps, input: PutContentInput): Promise<Resource> {
  const before = await getResourceEntry(d.kv, input.rs);
  if (!before.value || before.value.trashedAt !== null) {
    fail("RESOURCE_002", `No file with seq ${input.rs}`, "rs");
  }
  if (before.value.type !== "FILE") fail("RESOURCE_006", `Resource ${input.rs} is a folder`, "rs");
  assertNotLockedByOther((await lockEntryFor(d.kv, input.rs)).value, input.lockOwner);
  const owner = await requireUser(d.kv, before.value.ownerSeq);
  const free = await freeQuota(d, owner.userSeq);
  const credit = input.mode === "overwrite" ? before.value.size : 0;
  const room = free + credit;
  const blob = await acceptContent(d, input, room);
  let replaced: string | null = null;
  const file = await withBlob(d, blob, () =>
    commitWithRetry(async () => {
      const [cur, lock, usage] = await Promise.all([
        getResourceEntry(d.kv, input.rs),
        lockEntryFor(d.kv, input.rs),
        readUsageEntry(d.kv, owner.userSeq),
      ]);
      if (!cur.value || cur.value.trashedAt !== null) {
        fail("RESOURCE_002", `No file with seq ${input.rs}`, "rs");
      }
      assertNotLockedByOther(lock.value, input.lockOwner);
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
      const op = d.kv.atomic().check(cur, lock);
      const delta = blob.size - (input.mode === "overwrite" ? cur.value.size : 0);
      chargeUsage(op, usage, owner.userSeq, delta, owner.quotaBytes, input.quotaCode);
      writeResource(op, cur.value, next);
      if (input.mode === "overwrite") {
        deleteVersion(op, cur.value.rs, cur.value.version);
      }
      writeVersion(op, next.rs, versionRecord(next, blob, input.reason));
      replaced = input.mode === "overwrite" ? cur.value.blobId : null;
      return (await commit(op)) === true ? next : CONFLICT;
    }), input.blob !== undefined);
  if (replaced) await discardBlob(d, replaced);
  return file;
}

/** Renames in place. NONE rejects a taken name (RESOURCE_003); AUTO picks "name (n)". */
export function renameResource(
  d: Deps,
  input: {
    rs: number;
    name: string;
    onConflict: OnNameConflict;
    actorSeq: number;
    field?: string;
    lockOwner?: string | null;
  },
): Promise<Resource> {
  const name = validateName(input.name, input.field ?? "rn");
  return commitWithRetry(async () => {
    const [cur, lock] = await Promise.all([
      getResourceEntry(d.kv, input.rs),
      lockEntryFor(d.kv, input.rs),
    ]);
    if (!cur.value || cur.value.trashedAt !== null) {
      fail("RESOURCE_002", `No file or folder with seq ${input.rs}`);
    }
    assertNotLockedByOther(lock.value, input.lockOwner ?? null);
    if (cur.value.name === name) return cur.value;
    const guard = await folderLockGuard(d, cur.value, input.lockOwner ?? null);
    const finalName = await pickName(
      d.kv,
      cur.value.ownerSeq,
      cur.value.parentRs,
      name,
      input.onConflict,
      input.rs,
    );
    const next: Resource = {
      ...cur.value,
      name: finalName,
      updatedAt: Date.now(),
      updatedBy: input.actorSeq,
    };
    const op = d.kv.atomic().check(cur, lock, ...guard);
    writeResource(op, cur.value, next);
    return (await commit(op)) === true ? next : nameConflict(input.onConflict, finalName);
  });
}

/**
 * Moves a file or folder to another folder of the same drive. The destination's ancestor chain
 * is checked (versionstamps) in the same commit, so two concurrent moves can never form a cycle.
 * A locked document is refused like a rename: a provider host addresses it by path.
 */
export function moveResource(
  d: Deps,
  input: { rs: number; destParentRs: number | null; actorSeq: number; onConflict?: OnNameConflict },
): Promise<Resource> {
  const onConflict = input.onConflict ?? "fail";
  return commitWithRetry(async () => {
    const [cur, lock] = await Promise.all([
      getResourceEntry(d.kv, input.rs),
      lockEntryFor(d.kv, input.rs),
    ]);
    if (!cur.value || cur.value.trashedAt !== null) {
      fail("RESOURCE_002", `No file or folder with seq ${input.rs}`);
    }
    assertNotLockedByOther(lock.value, null);
    const op = d.kv.atomic().check(cur, lock);
    let depth = 0;
    if (input.destParentRs !== null) {
      const dest = await requireFolderEntry(d.kv, cur.value.ownerSeq, input.destParentRs);
      op.check(dest!);
      // Walk up from the destination: the moved folder must not be on that path.
      let next: number | null = input.destParentRs;
      while (next !== null) {
        if (next === input.rs) {
          fail("RESOURCE_007", "A folder cannot be moved into itself or its own subfolder", "pfs");
        }
        const entry = await getResourceEntry(d.kv, next);
        if (!entry.value) break;
        if (entry.value.trashedAt !== null) {
          fail("RESOURCE_008", `Folder ${input.destParentRs} is in the trash`, "pfs");
        }
        if (next !== input.destParentRs) op.check(entry);
        next = entry.value.parentRs;
        if (++depth > MAX_DEPTH) {
          fail("RESOURCE_014", `Folders may nest at most ${MAX_DEPTH} deep`, "pfs");
        }
      }
    }
    if (cur.value.parentRs === input.destParentRs) return cur.value;
    op.check(...await folderLockGuard(d, cur.value, null));
    const finalName = await pickName(
      d.kv,
      cur.value.ownerSeq,
      input.destParentRs,
      cur.value.name,
      onConflict,
      input.rs,
    );
    const next: Resource = {
      ...cur.value,
      parentRs: input.destParentRs,
      name: finalName,
      updatedAt: Date.now(),
      updatedBy: input.actorSeq,
    };
    writeResource(op, cur.value, next);
    return (await commit(op)) === true ? next : nameConflict(onConflict, finalName);
  });
}

/**
 * Moves a file into a folder of another user's drive (e.g. a recipient taking a file out of a
 * shared folder). One commit changes the owner and moves the bytes of every stored version from
 * the old owner's usage to the new owner's, refusing with RESOURCE_015 when they do not fit.
 * A folder cannot change drives (RESOURCE_017); a same-drive target is a plain moveResource.
 */
export async function moveFileToDrive(
  d: Deps,
  input: {
    rs: number;
    destOwnerSeq: number;
    destParentRs: number | null;
    actorSeq: number;
    onConflict?: OnNameConflict;
  },
): Promise<Resource> {
  const onConflict = input.onConflict ?? "fail";
  const first = (await getResourceEntry(d.kv, input.rs)).value;
  if (first && first.ownerSeq === input.destOwnerSeq) return moveResource(d, input);
  const destOwner = await requireUser(d.kv, input.destOwnerSeq);
  return commitWithRetry(async () => {
    const [cur, lock] = await Promise.all([
      getResourceEntry(d.kv, input.rs),
      lockEntryFor(d.kv, input.rs),
    ]);
    if (!cur.value || cur.value.trashedAt !== null) {
      fail("RESOURCE_002", `No file with seq ${input.rs}`);
    }
    if (cur.value.type !== "FILE") {
      fail("RESOURCE_017", "Only files can move to another user's drive; copy a folder instead");
    }
    // An open editor session writes back to this file; it must not change hands under it.
    assertNotLockedByOther(lock.value, null);
    const [dest, versions, srcUsage, destUsage, ownShare] = await Promise.all([
      requireFolderEntry(d.kv, destOwner.userSeq, input.destParentRs),
      listVersions(d.kv, input.rs),
      readUsageEntry(d.kv, cur.value.ownerSeq),
      readUsageEntry(d.kv, destOwner.userSeq),
      d.kv.get<number>(shareByResKey(input.rs)),
    ]);
    // A share belongs to its owner's drive; the new owner would inherit someone else's grants.
    if (ownShare.value !== null) {
      fail("RESOURCE_017", "The file has its own share; remove it before moving to another drive");
    }
    const bytes = versions.reduce((sum, v) => sum + v.size, 0);
    const finalName = await pickName(
      d.kv,
      destOwner.userSeq,
      input.destParentRs,
      cur.value.name,
      onConflict,
    );
    const next: Resource = {
      ...cur.value,
      ownerSeq: destOwner.userSeq,
      tenantId: destOwner.tenantId,
      parentRs: input.destParentRs,
      name: finalName,
      updatedAt: Date.now(),
      updatedBy: input.actorSeq,
    };
    const op = d.kv.atomic().check(cur, lock, ownShare);
    if (dest) op.check(dest);
    chargeUsage(op, destUsage, destOwner.userSeq, bytes, destOwner.quotaBytes, "RESOURCE_015");
    chargeUsage(op, srcUsage, cur.value.ownerSeq, -bytes, Infinity, "RESOURCE_015");
    writeResource(op, cur.value, next);
    return (await commit(op)) === true ? next : nameConflict(onConflict, finalName);
  });
}

/** Copies a file (its current content) into a folder of `destOwnerSeq`'s drive, charging that user. */
export async function copyFile(
  d: Deps,
  input: { rs: number; destOwnerSeq: number; destParentRs: number | null; actorSeq: number },
): Promise<Resource> {
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
  const blob: BlobInfo = {
    blobId: copied.blobId,
    size: copied.src.size,
    sha256: copied.src.sha256!,
  };
  const rs = await nextSeq(d.kv, "resource");
  const dest = owner!;
  return withBlob(d, blob, () =>
    commitFile(d, {
      ownerSeq: dest.userSeq,
      parentRs: input.destParentRs,
      name: copied.src.name,
      actorSeq: input.actorSeq,
      onConflict: "rename",
      quotaCode: "RESOURCE_015",
      reason: "copy",
      rs,
      blob,
      tenantId: dest.tenantId,
      quotaBytes: dest.quotaBytes,
    }));
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

/**
 * Moves a file or folder to the trash. A folder's contents go with it (they are under a trashed
 * ancestor). A document locked by someone else is refused.
 */
export function trashResource(
  d: Deps,
  input: { rs: number; actorSeq: number; notFound?: ErrorCode; lockOwner?: string | null },
): Promise<Resource> {
  const notFound = input.notFound ?? "RESOURCE_002";
  return commitWithRetry(async () => {
    const [cur, lock] = await Promise.all([
      getResourceEntry(d.kv, input.rs),
      lockEntryFor(d.kv, input.rs),
    ]);
    if (!cur.value || cur.value.trashedAt !== null) {
      fail(notFound, `No file or folder with seq ${input.rs}, or it is already in the trash`);
    }
    assertNotLockedByOther(lock.value, input.lockOwner ?? null);
    const guard = await folderLockGuard(d, cur.value, input.lockOwner ?? null);
    const now = Date.now();
    const next: Resource = {
      ...cur.value,
      trashedAt: now,
      updatedAt: now,
      updatedBy: input.actorSeq,
    };
    const op = d.kv.atomic().check(cur, lock, ...guard);
    writeResource(op, cur.value, next);
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/**
 * The checks a folder's rename, move or trash adds to its commit: none for a file, else the
 * lock stamp read by readFolderLockGuard, which first refuses a folder holding a locked document.
 */
async function folderLockGuard(
  d: Deps,
  r: Resource,
  owner: LockOwner,
): Promise<Deno.AtomicCheck[]> {
  return r.type === "FOLDER" ? [await readFolderLockGuard(d.kv, r, owner)] : [];
}

export function isDriveError(err: unknown, code?: ErrorCode): err is DriveError {
  return err instanceof DriveError && (code === undefined || err.code === code);
}
