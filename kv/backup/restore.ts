/**
 * `restoreBackup`: reads a backup (format.ts, read.ts) into an EMPTY target: every blob through
 * the target's blob store (fs or kv, whichever the source was), then every KV entry as it was,
 * with `blobId` fields renamed to the ids the target store gave the blobs, and expiring entries
 * with their remaining lifetime (those expired by now are left out).
 *
 * This is the one module that writes every key family: not a domain change (the owners in
 * kv/key_families.ts) but a copy of a whole consistent state into a KV nothing else uses yet,
 * which is why a target holding data is refused. The service should not be started on the target
 * before the restore returns.
 *
 * All or nothing: before its first write a restore sets a marker (`RestoreMarker`), and it
 * removes the marker only once the whole file passed every check. A restore that fails removes
 * what it wrote (everything but the replaceable families: the target was empty) and then the
 * marker. A restore that could not clean up (killed, or the cleanup failed) leaves the marker,
 * and the next restore into the target clears what the marker vouches for before it starts, so a
 * retry into the same directory works instead of being refused as not empty.
 */
import { join } from "node:path";
import { serialize } from "node:v8";
import { Buffer } from "node:buffer";
import { usesDataDir } from "../../config.ts";
import type { Deps } from "../deps.ts";
import { migrationKey, restoreMarkerKey, schemaVersionKey } from "../keys.ts";
import { SECRETS_KEY_FILE } from "../secrets_key.ts";
import {
  BackupError,
  type BackupHeader,
  type BackupManifest,
  type KvRecord,
  recordValue,
  REPLACEABLE_ON_TARGET,
} from "./format.ts";
import { readBackup, type ReadOptions } from "./read.ts";

/** Set before a restore writes anything, removed when it completed or was undone. */
export interface RestoreMarker {
  startedAt: string;
  /** The adapter-secrets key file this restore created (removed with the rest on a retry). */
  secretsKeyFile: string | null;
}

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

/**
 * Puts the source's adapter-secrets key where the target will look for it (secrets_key.ts). A
 * file it creates is named in the marker first, so a cleanup after a kill removes it too.
 */
async function placeSecretsKey(
  d: Deps,
  text: string,
  marker: RestoreMarker,
): Promise<RestoreSummary["secretsKey"]> {
  if (d.config.secretsKey) {
    const same = Buffer.from(text.trim(), "base64").equals(Buffer.from(d.config.secretsKey));
    return same ? "matches" : "set-env";
  }
  if (!usesDataDir(d.config)) return "set-env";
  await Deno.mkdir(d.config.dataDir, { recursive: true });
  const path = join(d.config.dataDir, SECRETS_KEY_FILE);
  const exists = await Deno.lstat(path).then(() => true, () => false);
  if (!exists) {
    marker.secretsKeyFile = path;
    await d.kv.set(restoreMarkerKey(), marker);
  }
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

/** Deletes `keys` in commits well inside KV's limits (at most 80 KiB of keys per commit). */
async function deleteAll(kv: Deno.Kv, keys: AsyncIterable<Deno.KvKey>): Promise<void> {
  let op = kv.atomic();
  let count = 0;
  let keyBytes = 0;
  for await (const key of keys) {
    const size = serialize(key).byteLength;
    if (count >= 200 || keyBytes + size > COMMIT_KEY_BYTES) {
      await op.commit();
      op = kv.atomic();
      count = keyBytes = 0;
    }
    op.delete(key);
    count++;
    keyBytes += size;
  }
  if (count > 0) await op.commit();
}

/**
 * Undoes a restore the marker vouches for: every KV entry outside the replaceable families, every
 * blob, the secrets key file it created; the marker goes last, so a cleanup cut short is resumed
 * by the next restore.
 */
async function clearRestored(d: Deps, marker: RestoreMarker): Promise<void> {
  const markerFamily = restoreMarkerKey()[0];
  await deleteAll(
    d.kv,
    (async function* () {
      for await (const e of d.kv.list({ prefix: [] })) {
        if (!REPLACEABLE_ON_TARGET.has(e.key[0]) && e.key[0] !== markerFamily) yield e.key;
      }
    })(),
  );
  const blobIds: string[] = [];
  for await (const b of d.blobs.list()) blobIds.push(b.blobId);
  for (const id of blobIds) await d.blobs.delete(id);
  if (marker.secretsKeyFile) {
    await Deno.remove(marker.secretsKeyFile).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }
  await d.kv.delete(restoreMarkerKey());
}

export type RestoreOptions = ReadOptions;

export async function restoreBackup(
  d: Deps,
  input: ReadableStream<Uint8Array>,
  opts: RestoreOptions = {},
): Promise<RestoreSummary> {
  const left = (await d.kv.get<RestoreMarker>(restoreMarkerKey())).value;
  if (left) await clearRestored(d, left);
  try {
    await assertEmptyTarget(d);
  } catch (err) {
    await input.cancel().catch(() => {});
    throw err;
  }
  const marker: RestoreMarker = { startedAt: new Date().toISOString(), secretsKeyFile: null };
  await d.kv.set(restoreMarkerKey(), marker);

  let secretsKey: RestoreSummary["secretsKey"] = "none";
  const ids = new Map<string, string>();
  let kvEntries = 0;
  let kvExpired = 0;
  try {
    const read = await readBackup(input, {
      // The target's own schema records go: the backup's say which migrations its data had.
      begin: () => clearReplaceable(d.kv),
      secretsKey: async (text) => {
        secretsKey = await placeSecretsKey(d, text, marker);
      },
      blob: async (oldId, body, size) => {
        const info = await d.blobs.write(body, { expectedSize: size });
        ids.set(oldId, info.blobId);
        return info.size;
      },
      kvBatch: async (records) => {
        const done = await writeRecords(d.kv, records, ids);
        kvEntries += done.written;
        kvExpired += done.expired;
      },
    }, opts);
    await d.kv.delete(restoreMarkerKey());
    return {
      header: read.header,
      manifest: read.manifest,
      kvEntries,
      kvExpired,
      blobs: read.blobs,
      blobBytes: read.blobBytes,
      secretsKey,
    };
  } catch (err) {
    try {
      await clearRestored(d, marker);
    } catch (cleanupErr) {
      const msg = `${(err as Error).message}; removing what the restore wrote failed too ` +
        `(${(cleanupErr as Error).message}): the next restore into this target removes it first`;
      throw err instanceof BackupError ? new BackupError(err.reason, msg) : new Error(msg);
    }
    throw err;
  }
}
