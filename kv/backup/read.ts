/**
 * Reading a backup file (format.ts) entry by entry, with every check the format allows: entry
 * order, the header's format and versions, each blob's SHA-256 (its pax header), the KV part's
 * digest and the manifest's counts. What is done with the entries is the sink's: restore.ts
 * writes them into a target, `verifyBackup` only drains them (the backup CLI checks a file it
 * wrote before giving it its final name). A file that fails any check is `invalid-file`.
 */
import { createHash } from "node:crypto";
import tar from "tar-stream";
import { concatBytes } from "../../lib/bytes.ts";
import { SCHEMA_VERSION } from "../migrations/migrations.ts";
import {
  BackupError,
  type BackupHeader,
  type BackupManifest,
  BLOB_PREFIX,
  decodeBatch,
  FORMAT_NAME,
  FORMAT_VERSION,
  hashThrough,
  HEADER_ENTRY,
  KV_BATCH_BYTES,
  KV_PREFIX,
  type KvRecord,
  MANIFEST_ENTRY,
  PAX_SHA256,
  SECRETS_KEY_ENTRY,
} from "./format.ts";

/** What is done with each entry, in file order; each call finishes before the next entry. */
export interface BackupSink {
  /** The header passed its checks; called before any other entry is handed over. */
  begin?(header: BackupHeader): Promise<void>;
  secretsKey?(text: string): Promise<void>;
  /** Takes a blob's bytes (it must read `body` to its end); returns the bytes it took. */
  blob(oldId: string, body: AsyncIterable<Uint8Array>, size: number): Promise<number>;
  kvBatch?(records: KvRecord[]): Promise<void>;
}

export interface ReadResult {
  header: BackupHeader;
  manifest: BackupManifest;
  blobs: number;
  blobBytes: number;
  /** Records in the KV part (expired ones included: the manifest counts them). */
  kvRecords: number;
}

export interface ReadOptions {
  /** Largest kv/ entry accepted (default: the writer's batch limit with room for one record). */
  maxKvEntryBytes?: number;
}

async function readAll(entry: AsyncIterable<Uint8Array>, max: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of entry) {
    total += chunk.byteLength;
    if (total > max) throw new BackupError("invalid-file", `an entry is larger than ${max} bytes`);
    parts.push(chunk);
  }
  return concatBytes(parts);
}

function parseJson<T>(bytes: Uint8Array, what: string): T {
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch {
    throw new BackupError("invalid-file", `${what} is not JSON`);
  }
}

function checkHeader(header: BackupHeader): void {
  if (header?.format !== FORMAT_NAME || typeof header.formatVersion !== "number") {
    throw new BackupError("invalid-file", "not a drive backup (backup.json names another format)");
  }
  if (header.formatVersion > FORMAT_VERSION) {
    throw new BackupError(
      "unsupported-version",
      `backup format ${header.formatVersion} is newer than this release reads (${FORMAT_VERSION})`,
    );
  }
  if (header.schemaVersion > SCHEMA_VERSION) {
    throw new BackupError(
      "unsupported-version",
      `the backup's data is at schema version ${header.schemaVersion}, newer than this release ` +
        `knows (${SCHEMA_VERSION}); restore it with that release or a newer one`,
    );
  }
}

/** Reads `input` to its end through `sink`; throws BackupError when the file fails a check. */
export async function readBackup(
  input: ReadableStream<Uint8Array>,
  sink: BackupSink,
  opts: ReadOptions = {},
): Promise<ReadResult> {
  const maxKv = opts.maxKvEntryBytes ?? KV_BATCH_BYTES + 1024 * 1024;
  const extract = tar.extract();
  const feed = (async () => {
    for await (const chunk of input) {
      if (!extract.write(chunk)) await new Promise<void>((ok) => extract.once("drain", () => ok()));
    }
    extract.end(null); // no last chunk
  })();
  feed.catch((err) => extract.destroy(err));

  let header: BackupHeader | null = null;
  let manifest: BackupManifest | null = null;
  let begun = false;
  let blobs = 0;
  let blobBytes = 0;
  let kvRecords = 0;
  let kvFiles = 0;
  const kvHash = createHash("sha256");
  try {
    for await (const source of extract) {
      const name = source.header.name;
      // tar-stream yields Buffers (Uint8Arrays); its types say unknown.
      const entry = source as AsyncIterable<Uint8Array>;
      if (manifest) throw new BackupError("invalid-file", `entry ${name} after the manifest`);
      if (!header) {
        if (name !== HEADER_ENTRY) {
          throw new BackupError("invalid-file", `not a drive backup (first entry is ${name})`);
        }
        header = parseJson<BackupHeader>(await readAll(entry, 1 << 20), HEADER_ENTRY);
        checkHeader(header);
        continue;
      }
      if (!begun) {
        await sink.begin?.(header);
        begun = true;
      }
      if (name === SECRETS_KEY_ENTRY) {
        const text = new TextDecoder().decode(await readAll(entry, 4096));
        await sink.secretsKey?.(text);
      } else if (name.startsWith(BLOB_PREFIX)) {
        if (kvFiles > 0) throw new BackupError("invalid-file", `blob ${name} after the KV part`);
        const oldId = name.slice(BLOB_PREFIX.length);
        const expected = (source.header.pax as Record<string, string> | null)?.[PAX_SHA256];
        const hash = createHash("sha256");
        const body = hashThrough(entry, hash, { bytes: 0 });
        blobBytes += await sink.blob(oldId, body, source.header.size ?? 0);
        if (hash.digest("hex") !== expected) {
          throw new BackupError("invalid-file", `blob ${oldId} does not match its SHA-256`);
        }
        blobs++;
      } else if (name.startsWith(KV_PREFIX)) {
        const bytes = await readAll(entry, maxKv);
        kvHash.update(bytes);
        kvFiles++;
        const records = decodeBatch(bytes);
        kvRecords += records.length;
        await sink.kvBatch?.(records);
      } else if (name === MANIFEST_ENTRY) {
        manifest = parseJson<BackupManifest>(await readAll(entry, 1 << 20), MANIFEST_ENTRY);
      } else {
        throw new BackupError("invalid-file", `unknown entry ${name}`);
      }
    }
    await feed;
  } catch (err) {
    extract.destroy();
    await input.cancel().catch(() => {});
    if (err instanceof BackupError) throw err;
    throw new BackupError(
      "invalid-file",
      `the backup could not be read: ${(err as Error).message}`,
    );
  }
  if (!header) throw new BackupError("invalid-file", "empty file: not a drive backup");
  if (!manifest) {
    throw new BackupError("invalid-file", "the backup ends before its manifest (truncated?)");
  }
  if (
    manifest.blobs !== blobs || manifest.blobBytes !== blobBytes ||
    manifest.kvEntries !== kvRecords || manifest.kvSha256 !== kvHash.digest("hex")
  ) {
    throw new BackupError("invalid-file", "the backup's content does not match its manifest");
  }
  return { header, manifest, blobs, blobBytes, kvRecords };
}

/** Reads a whole backup without writing anything: every check `readBackup` makes. */
export function verifyBackup(input: ReadableStream<Uint8Array>): Promise<ReadResult> {
  return readBackup(input, {
    async blob(_oldId, body) {
      let n = 0;
      for await (const chunk of body) n += chunk.byteLength;
      return n;
    },
  });
}
