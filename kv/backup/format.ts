/**
 * The backup file format, version 1 (docs/backup-format.md): one POSIX tar (ustar with pax
 * headers, written and read by npm `tar-stream`) whose entries come in this order:
 *
 *   backup.json        BackupHeader: format name and version, schema version, creation time
 *   secrets.key        (only when the source sealed adapter secrets with DATA_DIR/secrets.key)
 *   blobs/<blobId>     the bytes of every blob a stored version or resource references, once
 *                      each; pax header `drive.sha256` holds their SHA-256
 *   kv/<n>.v8          KV entries, in key order, in batches: node:v8 `serialize` of KvRecord[]
 *   manifest.json      BackupManifest: counts and digests; a file without it is incomplete
 *
 * Blobs come before the KV part because a restore writes them through the target's blob store,
 * which names them anew; the KV part's `blobId` fields are then rewritten with the new names.
 * Writer (write.ts) and reader (restore.ts) share everything here, so they cannot disagree.
 *
 * Signatures the admin CLI calls (kv/backup/write.ts, kv/backup/restore.ts):
 *   writeBackup(d: Deps, out: WritableStream<Uint8Array>, opts?: WriteBackupOptions)
 *     : Promise<BackupManifest>
 *   restoreBackup(d: Deps, input: ReadableStream<Uint8Array>, opts?: RestoreOptions)
 *     : Promise<RestoreSummary>
 */
import type { Hash } from "node:crypto";
import { deserialize, serialize } from "node:v8";
import {
  blobChunkKey,
  blobKey,
  blobLeaseKey,
  blobPendingKey,
  migrationKey,
  s3PendingKey,
  s3StageChunkKey,
  s3StageKey,
  schemaVersionKey,
} from "../keys.ts";

export const FORMAT_NAME = "drive-backup";
/** Raised on any change a version-1 reader would misread; restore refuses newer versions. */
export const FORMAT_VERSION = 1;

export const HEADER_ENTRY = "backup.json";
export const SECRETS_KEY_ENTRY = "secrets.key";
export const MANIFEST_ENTRY = "manifest.json";
export const BLOB_PREFIX = "blobs/";
export const KV_PREFIX = "kv/";
/** The pax header field that carries a blob's SHA-256 (lowercase hex). */
export const PAX_SHA256 = "drive.sha256";

/** A KV batch entry closes after this many records or bytes (values are at most 64 KiB). */
export const KV_BATCH_RECORDS = 2000;
export const KV_BATCH_BYTES = 4 * 1024 * 1024;

export interface BackupHeader {
  format: typeof FORMAT_NAME;
  formatVersion: number;
  /** The KV schema version of the data (kv/migrations). */
  schemaVersion: number;
  createdAt: string;
  source: {
    blobStore: "fs" | "kv" | "s3";
    /** How the KV part was read (docs/operations.md, Backup and restore). */
    kvSnapshot: SnapshotMode;
  };
}

/**
 * `sqlite-copy`: `VACUUM INTO` of the KV file, one point in time. `verified-scan`: two scans of a
 * KV that has no file (`:memory:`, KV Connect) that saw the same keys and versionstamps.
 */
export type SnapshotMode = "sqlite-copy" | "verified-scan";

export interface BackupManifest {
  format: typeof FORMAT_NAME;
  formatVersion: number;
  /** KV entries written (expired ones are left out). */
  kvEntries: number;
  blobs: number;
  blobBytes: number;
  /** SHA-256 over the bytes of every kv/ entry, in order. */
  kvSha256: string;
}

/** What a KV value was, when V8 serialization alone would lose it. */
export const ValueKind = {
  /** Anything structured clone carries (objects, strings, numbers, bigint, Uint8Array…). */
  Plain: 0,
  /** A Deno.KvU64 (sum/min/max counters); stored as its bigint. */
  U64: 1,
} as const;
export type ValueKind = typeof ValueKind[keyof typeof ValueKind];

/** One KV entry: key, kind, value, and when KV expires it (ms since the epoch) or null. */
export type KvRecord = [Deno.KvKey, ValueKind, unknown, number | null];

export function toRecord(key: Deno.KvKey, value: unknown, expireAt: number | null): KvRecord {
  return value instanceof Deno.KvU64
    ? [key, ValueKind.U64, value.value, expireAt]
    : [key, ValueKind.Plain, value, expireAt];
}

export function recordValue(rec: KvRecord): unknown {
  return rec[1] === ValueKind.U64 ? new Deno.KvU64(rec[2] as bigint) : rec[2];
}

export function encodeBatch(records: KvRecord[]): Uint8Array {
  return new Uint8Array(serialize(records));
}

export function decodeBatch(bytes: Uint8Array): KvRecord[] {
  const records = deserialize(bytes);
  if (!Array.isArray(records)) throw new BackupError("invalid-file", "a kv/ entry is not a list");
  return records as KvRecord[];
}

/**
 * Passes `source` through, feeding `hash` and adding to `count.bytes`; stops after `max` bytes
 * (the entry then comes out short, which the tar writer refuses for a declared size).
 */
export async function* hashThrough(
  source: AsyncIterable<Uint8Array>,
  hash: Hash,
  count: { bytes: number },
  max = Number.MAX_SAFE_INTEGER,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of source) {
    count.bytes += chunk.byteLength;
    if (count.bytes > max) return;
    hash.update(chunk);
    yield chunk;
  }
}

/** A rough upper bound of a record's serialized size, to close batches below KV_BATCH_BYTES. */
export function recordSize(rec: KvRecord): number {
  return serialize(rec).byteLength;
}

/**
 * Families the KV part leaves out: the kv blob store's own records (blobs travel as logical
 * blobs, so bytes are never stored twice and restore works across stores) and the writer leases
 * and markers of writes running in the source (meaningless in another store).
 */
const SKIPPED_FAMILIES: ReadonlySet<Deno.KvKeyPart> = new Set([
  blobKey()[0],
  blobChunkKey("")[0],
  blobPendingKey()[0],
  blobLeaseKey()[0],
  // The s3 store's running writes and tus stages (their uploads are not carried either, as the
  // kv store's stages under blob_pending are not).
  s3PendingKey()[0],
  s3StageKey()[0],
  s3StageChunkKey("")[0],
]);

export function isSkippedKey(key: Deno.KvKey): boolean {
  return SKIPPED_FAMILIES.has(key[0]);
}

/**
 * Families a target may already hold and still count as empty: the target's own writer leases,
 * and the schema records its migrations wrote when a CLI or server opened it (restore replaces
 * those with the backup's, so migrations the backup's data did not have run on its next start).
 */
export const REPLACEABLE_ON_TARGET: ReadonlySet<Deno.KvKeyPart> = new Set([
  blobLeaseKey()[0],
  schemaVersionKey()[0],
  migrationKey()[0],
]);

export type BackupErrorReason =
  /** The file is not a backup, is truncated, or its content does not match its digests. */
  | "invalid-file"
  /** Written by a newer format or schema than this release reads. */
  | "unsupported-version"
  /** The restore target already holds data. */
  | "target-not-empty"
  /** The data changed under a scan in a way no retry within the limit could avoid. */
  | "inconsistent"
  /** The source is damaged: a referenced blob is missing or its bytes do not match. */
  | "source-damaged";

/** A backup or restore that cannot go on; `reason` lets the CLI pick its exit code. */
export class BackupError extends Error {
  constructor(readonly reason: BackupErrorReason, message: string) {
    super(message);
    this.name = "BackupError";
  }
}
