/**
 * `restoreBackup`: reads a backup (format.ts) into an EMPTY target: every blob through the
 * target's blob store (fs or kv, whichever the source was), then every KV entry as it was, with
 * `blobId` fields renamed to the ids the target store gave the blobs, and expiring entries with
 * their remaining lifetime (those expired by now are left out).
 *
 * This is the one module that writes every key family: not a domain change (the owners in kv/key_families.ts)
 * but a copy of a whole consistent state into a KV nothing else uses yet, which is why a target
 * holding data is refused. A restore that fails half-way leaves a partial target: remove it and
 * run again (a rerun refuses it as not empty). The service should not be started on the target
 * before the restore returns.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { serialize } from "node:v8";
import tar from "tar-stream";
import { Buffer } from "node:buffer";
import { usesDataDir } from "../../config.ts";
import { concatBytes } from "../../lib/bytes.ts";
import type { Deps } from "../deps.ts";
import { migrationKey, schemaVersionKey } from "../keys.ts";
import { SCHEMA_VERSION } from "../migrations/migrations.ts";
import { SECRETS_KEY_FILE } from "../secrets_key.ts";
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
  recordValue,
  REPLACEABLE_ON_TARGET,
  SECRETS_KEY_ENTRY,
} from "./format.ts";

export interface RestoreSummary {
  header: BackupHeader;
  manifest: BackupManifest;
  /** KV entries written. */
  kvEntries: number;
  /** Expiring entries left out because they ended between the backup and now. */
  kvExpired: number;
  blobs: number;
  blobBytes: number;
  /**
   * The adapter-secrets key: `none` (the source used DRIVE_SECRETS_KEY or a key kept in KV),
   * `written` (to the target's DATA_DIR/secrets.key), `matches` (the target's DRIVE_SECRETS_KEY is
   * the same key), `set-env` (the target needs DRIVE_SECRETS_KEY set to the source's key file;
   * until then provider requests of the restored adapters fail).
   */
  secretsKey: "none" | "written" | "matches" | "set-env";
}

/** Throws `target-not-empty` unless the target holds nothing but what it may hold (format.ts). */
export async function assertEmptyTarget(d: Deps): Promise<void> {
  for await (const e of d.kv.list({ prefix: [] })) {
    if (!REPLACEABLE_ON_TARGET.has(e.key[0])) {
      throw new BackupError(
        "target-not-empty",
        `the target KV already holds data (entries under "${String(e.key[0])}"); restore only ` +
          `into an empty data directory or KV`,
      );
    }
  }
  for await (const b of d.blobs.list()) {
    throw new BackupError(
      "target-not-empty",
      `the target blob store already holds blob ${b.blobId}; restore only into an empty one`,
    );
  }
}

/** Renames every `blobId` property (at any depth of plain objects and arrays) through `ids`. */
export function renameBlobIds(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameBlobIds(v, ids));
  if (typeof value !== "object" || value === null) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = k === "blobId" && typeof v === "string" ? ids.get(v) ?? v : renameBlobIds(v, ids);
  }
  return out;
}

/** Commits stay well inside Deno KV's limits (1000 mutations, 800 KB, 80 KiB of keys). */
const COMMIT_MUTATIONS = 500;
const COMMIT_BYTES = 600_000;
const COMMIT_KEY_BYTES = 64_000;

async function writeRecords(kv: Deno.Kv, records: KvRecord[], ids: ReadonlyMap<string, string>) {
  let written = 0;
  let expired = 0;
  let op = kv.atomic();
  let count = 0;
  let bytes = 0;
  let keyBytes = 0;
  const commit = async () => {
    if (count === 0) return;
    const res = await op.commit();
    if (!res.ok) throw new Error("a restore commit was refused");
    op = kv.atomic();
    count = bytes = keyBytes = 0;
  };
  const now = Date.now();
  for (const rec of records) {
    const [key, , , expireAt] = rec;
    if (expireAt !== null && expireAt <= now) {
      expired++;
      continue;
    }
    const value = renameBlobIds(recordValue(rec), ids);
    const keySize = serialize(key).byteLength;
    const size = keySize + serialize(value).byteLength;
    if (
      count + 1 > COMMIT_MUTATIONS || bytes + size > COMMIT_BYTES ||
      keyBytes + keySize > COMMIT_KEY_BYTES
    ) await commit();
    op.set(key, value, expireAt === null ? {} : { expireIn: expireAt - now });
    count++;
    bytes += size;
    keyBytes += keySize;
    written++;
  }
  await commit();
  return { written, expired };
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

/** Puts the source's adapter-secrets key where the target will look for it (secrets_key.ts). */
async function placeSecretsKey(d: Deps, text: string): Promise<RestoreSummary["secretsKey"]> {
  if (d.config.secretsKey) {
    const same = Buffer.from(text.trim(), "base64").equals(Buffer.from(d.config.secretsKey));
    return same ? "matches" : "set-env";
  }
  if (!usesDataDir(d.config)) return "set-env";
  await Deno.mkdir(d.config.dataDir, { recursive: true });
  const path = join(d.config.dataDir, SECRETS_KEY_FILE);
  try {
    await Deno.writeTextFile(path, text, { mode: 0o600, createNew: true });
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    if ((await Deno.readTextFile(path)).trim() !== text.trim()) {
      throw new BackupError(
        "target-not-empty",
        `${path} holds another adapter-secrets key; restore into an empty data directory`,
      );
    }
  }
  return "written";
}

/** Removes the target's own schema records: the backup's say which migrations its data had. */
async function clearReplaceable(kv: Deno.Kv): Promise<void> {
  for (const prefix of [schemaVersionKey(), migrationKey()]) {
    for await (const e of kv.list({ prefix })) await kv.delete(e.key);
  }
}

export interface RestoreOptions {
  /** Largest kv/ entry accepted (default: the writer's batch limit with room for one record). */
  maxKvEntryBytes?: number;
}

export async function restoreBackup(
  d: Deps,
  input: ReadableStream<Uint8Array>,
  opts: RestoreOptions = {},
): Promise<RestoreSummary> {
  await assertEmptyTarget(d);
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
  let secretsKey: RestoreSummary["secretsKey"] = "none";
  const ids = new Map<string, string>();
  let blobBytes = 0;
  let kvEntries = 0;
  let kvExpired = 0;
  let kvFiles = 0;
  const kvHash = createHash("sha256");
  let cleared = false;
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
      if (!cleared) {
        await clearReplaceable(d.kv);
        cleared = true;
      }
      if (name === SECRETS_KEY_ENTRY) {
        secretsKey = await placeSecretsKey(d, new TextDecoder().decode(await readAll(entry, 4096)));
      } else if (name.startsWith(BLOB_PREFIX)) {
        if (kvFiles > 0) throw new BackupError("invalid-file", `blob ${name} after the KV part`);
        const oldId = name.slice(BLOB_PREFIX.length);
        const expected = (source.header.pax as Record<string, string> | null)?.[PAX_SHA256];
        const hash = createHash("sha256");
        const body = hashThrough(entry, hash, { bytes: 0 });
        const info = await d.blobs.write(body, { expectedSize: source.header.size ?? 0 });
        if (hash.digest("hex") !== expected) {
          await d.blobs.delete(info.blobId);
          throw new BackupError("invalid-file", `blob ${oldId} does not match its SHA-256`);
        }
        ids.set(oldId, info.blobId);
        blobBytes += info.size;
      } else if (name.startsWith(KV_PREFIX)) {
        const bytes = await readAll(entry, maxKv);
        kvHash.update(bytes);
        kvFiles++;
        const done = await writeRecords(d.kv, decodeBatch(bytes), ids);
        kvEntries += done.written;
        kvExpired += done.expired;
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
    manifest.blobs !== ids.size || manifest.blobBytes !== blobBytes ||
    manifest.kvEntries !== kvEntries + kvExpired || manifest.kvSha256 !== kvHash.digest("hex")
  ) {
    throw new BackupError("invalid-file", "the backup's content does not match its manifest");
  }
  return { header, manifest, kvEntries, kvExpired, blobs: ids.size, blobBytes, secretsKey };
}
