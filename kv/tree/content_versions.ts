/**
 * The stored content versions of files (res_version, kv/keys.ts): one record per version of a
 * file's bytes, written in the caller's commit like the resource record. What a version does
 * (download, restore, delete) is kv/tree/versions.ts's.
 */
import { resourceKey, versionKey } from "../keys.ts";
import type { Resource } from "./resources.ts";

export interface ContentVersion {
  version: number;
  blobId: string;
  size: number;
  sha256: string;
  createdAt: number;
  createdBy: number;
  /** Why it was saved: upload, version, overwrite, copy, template, or an editor's save type. */
  reason: string;
}

/** Adds to `op` the record of one stored content version of file `resourceSeq`. */
export function writeVersion(
  op: Deno.AtomicOperation,
  resourceSeq: number,
  record: ContentVersion,
) {
  op.set(versionKey(resourceSeq, record.version), record);
}

/**
 * Adds to `op` the removal of one content version; with `versionstamp`, only if it is still the
 * entry that was read.
 */
export function deleteVersion(
  op: Deno.AtomicOperation,
  resourceSeq: number,
  version: number,
  versionstamp?: string | null,
) {
  const key = versionKey(resourceSeq, version);
  if (versionstamp !== undefined) op.check({ key, versionstamp });
  op.delete(key);
}

/** The stored entry of one content version (for a versionstamp check). */
export function getVersionEntry(kv: Deno.Kv, resourceSeq: number, version: number) {
  return kv.get<ContentVersion>(versionKey(resourceSeq, version));
}

/** The stored content versions of a file, oldest first. */
export async function listVersions(kv: Deno.Kv, resourceSeq: number): Promise<ContentVersion[]> {
  const out: ContentVersion[] = [];
  for await (const e of kv.list<ContentVersion>({ prefix: versionKey(resourceSeq) })) {
    out.push(e.value);
  }
  return out;
}

/**
 * Every blob id a stored version or resource record points at (a full scan, for the orphan blob
 * sweep). Keys never move, so an id referenced for the whole scan is always seen.
 */
export async function* iterateReferencedBlobIds(kv: Deno.Kv): AsyncGenerator<string> {
  for await (const e of kv.list<ContentVersion>({ prefix: versionKey() })) yield e.value.blobId;
  for await (const e of kv.list<Resource>({ prefix: resourceKey() })) {
    if (e.value.blobId) yield e.value.blobId;
  }
}

/** Every stored content version with its entry: a full scan, for audits only. */
export async function* iterateVersionEntries(
  kv: Deno.Kv,
): AsyncGenerator<{ rs: number; entry: Deno.KvEntry<ContentVersion> }> {
  for await (const entry of kv.list<ContentVersion>({ prefix: versionKey() })) {
    yield { rs: entry.key[1] as number, entry };
  }
}

/**
 * Adds to `op` the removal of a content version whose resource record is gone (a repair), only
 * if the version is unchanged and the record still absent.
 */
export function dropOrphanVersion(
  op: Deno.AtomicOperation,
  resourceSeq: number,
  entry: Deno.KvEntry<unknown>,
) {
  op.check({ key: resourceKey(resourceSeq), versionstamp: null });
  deleteVersion(op, resourceSeq, entry.key[2] as number, entry.versionstamp);
}
