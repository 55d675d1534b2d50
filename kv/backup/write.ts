/**
 * `writeBackup`: a consistent snapshot of all KV state plus the bytes of every blob a stored
 * version or resource references, streamed into one tar (format.ts) while the service runs.
 *
 * Order of work: take the snapshot (snapshot.ts), find the blobs it references, hold them
 * (fs store: hard links, pins.ts; kv store: the blobs are in the snapshot itself), then stream
 * header, blobs, KV batches and the manifest. Memory stays flat in the data size: bytes stream
 * through in the stores' chunks, KV goes out in batches of at most KV_BATCH_BYTES; what grows is
 * the set of referenced blob ids (~150 bytes per blob).
 */
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { join } from "node:path";
import tar from "tar-stream";
import { openKvBlobStore } from "../../blobs/kv.ts";
import { BlobNotFoundError } from "../../blobs/store.ts";
import { kvLocation, usesDataDir } from "../../config.ts";
import type { Deps } from "../deps.ts";
import { SECRETS_KEY_FILE } from "../secrets_key.ts";
import { blobStoreKeys, resourceKey, versionKey } from "../keys.ts";
import { readSchemaVersion } from "../migrations/migrations.ts";
import type { ContentVersion } from "../tree/content_versions.ts";
import type { Resource } from "../tree/resources.ts";
import {
  BackupError,
  type BackupHeader,
  type BackupManifest,
  BLOB_PREFIX,
  encodeBatch,
  FORMAT_NAME,
  FORMAT_VERSION,
  hashThrough,
  HEADER_ENTRY,
  KV_BATCH_BYTES,
  KV_BATCH_RECORDS,
  KV_PREFIX,
  type KvRecord,
  MANIFEST_ENTRY,
  PAX_SHA256,
  recordSize,
  SECRETS_KEY_ENTRY,
  toRecord,
} from "./format.ts";
import { type BlobPins, openBlobPins } from "./pins.ts";
import { type Snapshot, takeSnapshot } from "./snapshot.ts";

export interface WriteBackupOptions {
  /** Where the SQLite copy of a KV file goes (about the KV file's size); default system temp. */
  tmpDir?: string;
  /** A remote KV's own SQLite file (denokv's `--sqlite-path`): copied instead of scanned. */
  kvFile?: string;
  /** Snapshots to try when blobs vanish between a snapshot and their pinning (default 5). */
  maxAttempts?: number;
  /** Called once the snapshot is taken and its blobs are held, before any byte is written. */
  afterSnapshot?: () => Promise<void> | void;
}

interface BlobRef {
  size: number;
  sha256: string;
}

/** Every blob the snapshot references, with the size and SHA-256 its records promise. */
async function referencedBlobs(kv: Deno.Kv): Promise<Map<string, BlobRef>> {
  const refs = new Map<string, BlobRef>();
  for await (const e of kv.list<ContentVersion>({ prefix: versionKey() })) {
    refs.set(e.value.blobId, { size: e.value.size, sha256: e.value.sha256 });
  }
  for await (const e of kv.list<Resource>({ prefix: resourceKey() })) {
    const r = e.value;
    if (r.blobId && r.sha256 !== null && !refs.has(r.blobId)) {
      refs.set(r.blobId, { size: r.size, sha256: r.sha256 });
    }
  }
  return refs;
}

interface Held {
  snapshot: Snapshot;
  refs: Map<string, BlobRef>;
  pins: BlobPins | null;
}

/** A snapshot whose referenced blobs are all held; retried while blobs vanish before pinning. */
async function holdSnapshot(d: Deps, opts: WriteBackupOptions): Promise<Held> {
  const pinning = d.blobs.kind === "fs" && kvLocation(d.config.kvPath) === "file";
  const pins = pinning ? await openBlobPins(join(d.config.dataDir, "blobs")) : null;
  const attempts = opts.maxAttempts ?? 5;
  try {
    for (let attempt = 1;; attempt++) {
      const snapshot = await takeSnapshot(d.kv, d.config, {
        tmpDir: opts.tmpDir,
        kvFile: opts.kvFile,
      });
      try {
        const refs = await referencedBlobs(snapshot.kv);
        const missing = pins ? await pins.pin(refs.keys()) : [];
        if (missing.length === 0) return { snapshot, refs, pins };
        if (attempt >= attempts) {
          throw new BackupError(
            "inconsistent",
            `${missing.length} blob(s) were deleted between each of ${attempts} snapshots and ` +
              `their pinning; retry when writes are quieter`,
          );
        }
      } catch (err) {
        await snapshot.close();
        throw err;
      }
      await snapshot.close();
    }
  } catch (err) {
    await pins?.release();
    throw err;
  }
}

/** Where the held bytes of a blob are read from. */
function blobReader(d: Deps, held: Held): (blobId: string) => Promise<ReadableStream<Uint8Array>> {
  if (held.pins) {
    const pins = held.pins;
    return async (blobId) => (await Deno.open(pins.path(blobId))).readable;
  }
  if (d.blobs.kind === "kv" && held.snapshot.mode === "sqlite-copy") {
    // The chunks are in the copy: the same point in time as the records (only read, never
    // written, so its leases are never taken).
    const copy = openKvBlobStore(held.snapshot.kv, blobStoreKeys);
    return (blobId) => copy.read(blobId);
  }
  // A verified scan reads the live store; a blob deleted meanwhile fails the read, and its
  // reference changed, which the scan's verification reports.
  return (blobId) => d.blobs.read(blobId);
}

/**
 * The adapter-secrets key file, when the source seals adapter secrets with it (kv/secrets_key.ts):
 * without it a restore elsewhere could not open the restored adapters' secrets.
 */
async function secretsKeyFile(d: Deps): Promise<string | null> {
  if (d.config.secretsKey || !usesDataDir(d.config)) return null;
  return await Deno.readTextFile(join(d.config.dataDir, SECRETS_KEY_FILE)).catch((err) => {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  });
}

type Pack = ReturnType<typeof tar.pack>;

/** Adds one entry with a known size and waits until tar-stream has taken it. */
async function addEntry(
  pack: Pack,
  header: { name: string; size: number; pax?: Record<string, string> },
  body: AsyncIterable<Uint8Array> | Uint8Array,
): Promise<void> {
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const entry = pack.entry(
    { ...header, mode: 0o600, mtime: new Date() },
    (err?: Error | null) => err ? reject(err) : resolve(),
  );
  if (body instanceof Uint8Array) {
    entry.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  } else {
    try {
      for await (const chunk of body) {
        if (!entry.write(chunk)) {
          await new Promise<void>((ok) => entry.once("drain", () => ok()));
        }
      }
      entry.end(null); // no last chunk
    } catch (err) {
      entry.destroy(err as Error);
      promise.catch(() => {});
      throw err;
    }
  }
  await promise;
}

const json = (value: unknown) => new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n");

/**
 * Writes the backup to `out` and closes it; returns the manifest. On failure `out` is aborted
 * and what reached it is not a backup (no manifest): the caller deletes the file.
 */
export async function writeBackup(
  d: Deps,
  out: WritableStream<Uint8Array>,
  opts: WriteBackupOptions = {},
): Promise<BackupManifest> {
  const held = await holdSnapshot(d, opts);
  const pack = tar.pack();
  const writer = out.getWriter();
  const pump = (async () => {
    for await (const chunk of pack as AsyncIterable<Uint8Array>) await writer.write(chunk);
  })();
  pump.catch(() => {});
  try {
    await opts.afterSnapshot?.();
    const header: BackupHeader = {
      format: FORMAT_NAME,
      formatVersion: FORMAT_VERSION,
      schemaVersion: await readSchemaVersion(held.snapshot.kv),
      createdAt: new Date().toISOString(),
      source: { blobStore: d.blobs.kind, kvSnapshot: held.snapshot.mode },
    };
    const headerBytes = json(header);
    await addEntry(pack, { name: HEADER_ENTRY, size: headerBytes.byteLength }, headerBytes);
    const secretsKey = await secretsKeyFile(d);
    if (secretsKey !== null) {
      const bytes = new TextEncoder().encode(secretsKey);
      await addEntry(pack, { name: SECRETS_KEY_ENTRY, size: bytes.byteLength }, bytes);
    }

    const read = blobReader(d, held);
    let blobBytes = 0;
    for (const [blobId, ref] of held.refs) {
      const hash = createHash("sha256");
      const seen = { bytes: 0 };
      const stream = await read(blobId).catch((err) => {
        if (err instanceof BlobNotFoundError || err instanceof Deno.errors.NotFound) {
          throw new BackupError("source-damaged", `blob ${blobId} is referenced but missing`);
        }
        throw err;
      });
      await addEntry(
        pack,
        { name: BLOB_PREFIX + blobId, size: ref.size, pax: { [PAX_SHA256]: ref.sha256 } },
        hashThrough(stream, hash, seen, ref.size),
      ).catch((err) => {
        throw seen.bytes !== ref.size
          ? new BackupError(
            "source-damaged",
            `blob ${blobId} has not the ${ref.size} bytes its record says`,
          )
          : err;
      });
      if (hash.digest("hex") !== ref.sha256) {
        throw new BackupError("source-damaged", `blob ${blobId} does not match its SHA-256`);
      }
      blobBytes += ref.size;
    }

    const kvHash = createHash("sha256");
    let kvEntries = 0;
    let batchNo = 0;
    let batch: KvRecord[] = [];
    let batchBytes = 0;
    const flush = async () => {
      if (batch.length === 0) return;
      const bytes = encodeBatch(batch);
      kvHash.update(bytes);
      const name = `${KV_PREFIX}${String(batchNo++).padStart(6, "0")}.v8`;
      await addEntry(pack, { name, size: bytes.byteLength }, bytes);
      batch = [];
      batchBytes = 0;
    };
    for await (const e of held.snapshot.entries()) {
      const rec = toRecord(e.key, e.value, e.expireAt);
      batch.push(rec);
      batchBytes += recordSize(rec);
      kvEntries++;
      if (batch.length >= KV_BATCH_RECORDS || batchBytes >= KV_BATCH_BYTES) await flush();
    }
    await flush();
    held.snapshot.verify();

    const manifest: BackupManifest = {
      format: FORMAT_NAME,
      formatVersion: FORMAT_VERSION,
      kvEntries,
      blobs: held.refs.size,
      blobBytes,
      kvSha256: kvHash.digest("hex"),
    };
    const manifestBytes = json(manifest);
    await addEntry(pack, { name: MANIFEST_ENTRY, size: manifestBytes.byteLength }, manifestBytes);
    pack.finalize();
    await pump;
    await writer.close();
    return manifest;
  } catch (err) {
    pack.destroy();
    await writer.abort(err).catch(() => {});
    throw err;
  } finally {
    await held.snapshot.close();
    await held.pins?.release();
  }
}
