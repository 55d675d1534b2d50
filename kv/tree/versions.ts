/**
 * A file's stored content versions beyond listing them: reading one, restoring one as the new
 * current content, and deleting one. Restore goes through content.ts `putContent` (the same
 * commit as an upload with st=version: lock check, quota charged, usage, history kept) with a
 * copy of the version's bytes, so every version keeps a blob of its own and deleting or purging
 * one never touches another. Deleting a version frees its bytes and its usage in one commit
 * checked against the file, the version and the usage.
 */
import { BlobNotFoundError } from "../../blobs/store.ts";
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { requireUser } from "../identity/users.ts";
import { freeQuota, putContent } from "./content.ts";
import { assertNotLockedByOther, getLock } from "./locks.ts";
import { type ContentVersion, deleteVersion, getVersionEntry } from "./content_versions.ts";
import { getResourceEntry, type Resource, writeResource } from "./resources.ts";
import { chargeUsage, readUsageEntry } from "./usage.ts";

const noVersion = (resourceSeq: number, version: number): never =>
  fail("VERSION_001", `File ${resourceSeq} has no stored version ${version}`, "version");

/** Stored version `version` of file `resourceSeq`, or VERSION_001. */
export async function requireVersion(
  kv: Deno.Kv,
  resourceSeq: number,
  version: number,
): Promise<ContentVersion> {
  return (await getVersionEntry(kv, resourceSeq, version)).value ?? noVersion(resourceSeq, version);
}

/**
 * Makes version `version` of file `resourceSeq` its new current content (a new version number; every
 * version stays). Its bytes are copied first, so the quota is charged for them like an upload;
 * refused (RESOURCE_010) while a lock is held, like an upload with st=version.
 */
export async function restoreVersion(
  d: Deps,
  input: { rs: number; version: number; actorSeq: number },
): Promise<{ file: Resource; restoredFrom: ContentVersion }> {
  const source = await requireVersion(d.kv, input.rs, input.version);
  const file = (await getResourceEntry(d.kv, input.rs)).value;
  if (!file || file.trashedAt !== null) fail("RESOURCE_002", `No file with seq ${input.rs}`);
  // The cheap refusals before copying any bytes; putContent checks both again in its commit.
  assertNotLockedByOther(await getLock(d.kv, input.rs), null);
  const owner = await requireUser(d.kv, file.ownerSeq);
  const free = await freeQuota(d, owner.userSeq);
  if (source.size > free) {
    fail("RESOURCE_015", `Restoring needs ${source.size} bytes but only ${free} are free`);
  }
  let blobId: string;
  try {
    blobId = await d.blobs.copy(source.blobId);
  } catch (err) {
    // Deleted (or purged) since it was read.
    if (err instanceof BlobNotFoundError) noVersion(input.rs, input.version);
    throw err;
  }
  try {
    const restored = await putContent(d, {
      rs: input.rs,
      mode: "version",
      reason: "restore",
      actorSeq: input.actorSeq,
      lockOwner: null,
      quotaCode: "RESOURCE_015",
      body: ReadableStream.from<Uint8Array>([]),
      blob: { blobId, size: source.size, sha256: source.sha256 },
    });
    return { file: restored, restoredFrom: source };
  } catch (err) {
    // The copy is ours (putContent leaves a caller's blob to the caller).
    await d.blobs.delete(blobId).catch((e) => console.error(`could not delete blob ${blobId}:`, e));
    throw err;
  }
}

/**
 * Deletes stored version `version` of file `resourceSeq`: its record and usage in one commit, then its
 * bytes. The current version cannot be deleted (VERSION_002). A lock does not stop it: a lock
 * guards the current content, which this never changes.
 */
export async function removeVersion(
  d: Deps,
  input: { rs: number; version: number; actorSeq: number },
): Promise<ContentVersion> {
  const removed = await commitWithRetry(async () => {
    const [cur, entry] = await Promise.all([
      getResourceEntry(d.kv, input.rs),
      getVersionEntry(d.kv, input.rs, input.version),
    ]);
    if (!cur.value || cur.value.trashedAt !== null) {
      fail("RESOURCE_002", `No file with seq ${input.rs}`);
    }
    if (!entry.value) return noVersion(input.rs, input.version);
    if (entry.value.version === cur.value.version) {
      fail("VERSION_002", `Version ${input.version} is the current content of file ${input.rs}`);
    }
    const ownerSeq = cur.value.ownerSeq;
    const usage = await readUsageEntry(d.kv, ownerSeq);
    // Checked against the file (its owner, whose usage is charged, may change with a move) and
    // the version (a concurrent delete must not free the same bytes twice). The unchanged record
    // is written again: moves to another drive and purges sum a file's versions and check only
    // the record, so its new versionstamp sends them round again instead of moving or freeing
    // these bytes a second time.
    const op = d.kv.atomic().check(cur);
    writeResource(op, cur.value, cur.value, input.actorSeq);
    deleteVersion(op, input.rs, input.version, entry.versionstamp);
    chargeUsage(op, usage, ownerSeq, -entry.value.size, Number.MAX_SAFE_INTEGER, "RESOURCE_015");
    return (await commit(op)) === true ? entry.value : CONFLICT;
  });
  await d.blobs.delete(removed.blobId).catch((err) =>
    console.error(`could not delete blob ${removed.blobId}:`, err)
  );
  return removed;
}
