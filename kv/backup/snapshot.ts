/**
 * A consistent view of every KV entry, taken while the service runs and writes.
 *
 * Deno KV's `list` is consistent per batch, not across batches, so a plain scan of a busy KV can
 * pair a record with indexes from another moment. Two ways out, by where KV lives:
 *
 * - A KV file (SQLite): `VACUUM INTO` copies the whole database in one read transaction, one point
 *   in time, while writers go on (WAL). The copy is then read with the normal KV API, so no key
 *   decoding is needed. Each entry's expiry (not visible through the KV API) is read from the
 *   copy's `kv` table in the same key order and matched by versionstamp.
 * - A remote KV whose server's own SQLite file is at hand (`denokv --sqlite-path`, same format):
 *   the same copy of that file (`kvFile`, `admin backup --kv-file`), checked to be this service's
 *   KV. The only consistent backup of a busy shared KV: several hosts write all the time.
 * - No file (`:memory:`, KV Connect): a verified scan. A first pass fingerprints every key and
 *   versionstamp; the pass that writes the backup fingerprints again. Every commit gives the keys
 *   it writes a new, higher versionstamp, so equal fingerprints mean no commit changed anything
 *   between the two passes, and the entries written are one state of the data. A busy KV fails
 *   the backup with `inconsistent` rather than write a torn one. Expiry is taken from the values
 *   of the families that carry it (EXPIRY_FROM_VALUE).
 */
import { createHash, type Hash } from "node:crypto";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { serialize } from "node:v8";
import { type Config, kvLocation } from "../../config.ts";
import {
  adminTokenKey,
  downloadTokenKey,
  guessKey,
  guessRateKey,
  invitationKey,
  jtiKey,
  linkAccessKey,
  lockKey,
  schemaVersionKey,
  sessionKey,
} from "../keys.ts";
import { FORGET_AFTER_MS } from "../identity/guess_throttle.ts";
import { BackupError, isSkippedKey, type SnapshotMode } from "./format.ts";

export interface SnapshotEntry {
  key: Deno.KvKey;
  value: unknown;
  /** When KV expires the entry (ms since the epoch), or null. */
  expireAt: number | null;
}

export interface Snapshot {
  readonly mode: SnapshotMode;
  /** The KV to read references and kv-store blobs from: the copy, or the live KV for a scan. */
  readonly kv: Deno.Kv;
  /** Every entry outside the skipped families, in key order, unexpired. */
  entries(): AsyncIterable<SnapshotEntry>;
  /** After `entries()` ran to its end: throws `inconsistent` when a scan saw the data change. */
  verify(): void;
  close(): Promise<void>;
}

export interface SnapshotOptions {
  /** Where the SQLite copy goes (as large as the KV file); default a new system temp dir. */
  tmpDir?: string;
  /** A remote KV's own SQLite file (the denokv server's `--sqlite-path`), to copy instead. */
  kvFile?: string;
}

export async function takeSnapshot(
  kv: Deno.Kv,
  config: Pick<Config, "kvPath">,
  opts: SnapshotOptions = {},
): Promise<Snapshot> {
  if (kvLocation(config.kvPath) === "file") return await sqliteSnapshot(config.kvPath, opts);
  if (opts.kvFile === undefined) return await verifiedScan(kv);
  const snapshot = await sqliteSnapshot(opts.kvFile, opts);
  // A file of another KV would back up the wrong data without a word. The records written once
  // at set-up (schema version, a stored admin token) must be there with the live KV's very
  // versionstamps.
  const marks = [schemaVersionKey(), adminTokenKey()];
  const [copied, live] = await Promise.all([snapshot.kv, kv].map((k) => k.getMany(marks)));
  const same = copied[0].versionstamp !== null &&
    copied.every((e, i) => e.versionstamp === live[i].versionstamp);
  if (!same) {
    await snapshot.close();
    throw new BackupError(
      "inconsistent",
      `${opts.kvFile} is not the SQLite file of the KV this service uses (${config.kvPath})`,
    );
  }
  return snapshot;
}

const versionstampOf = (version: number | bigint, seq: number | bigint) =>
  BigInt(version).toString(16).padStart(16, "0") + BigInt(seq).toString(16).padStart(4, "0");

async function sqliteSnapshot(kvPath: string, opts: SnapshotOptions): Promise<Snapshot> {
  const ownDir = opts.tmpDir === undefined;
  const dir = opts.tmpDir ?? await Deno.makeTempDir({ prefix: "drive-backup-" });
  const copyPath = join(dir, `snapshot-${crypto.randomUUID()}.sqlite3`);
  const cleanup = async () => {
    if (ownDir) await Deno.remove(dir, { recursive: true }).catch(() => {});
    else {
      for (const p of [copyPath, `${copyPath}-wal`, `${copyPath}-shm`]) {
        await Deno.remove(p).catch(() => {});
      }
    }
  };
  let copyKv: Deno.Kv | null = null;
  let db: DatabaseSync | null = null;
  try {
    const source = new DatabaseSync(kvPath, { readOnly: true, timeout: 30_000 });
    try {
      source.exec(`VACUUM INTO '${copyPath.replaceAll("'", "''")}'`);
    } finally {
      source.close();
    }
    db = new DatabaseSync(copyPath, { timeout: 30_000 });
    // Expiry moves to a side table and leaves the copy's rows, so KV's background expiry never
    // deletes a row of the copy while it is read (the rows and the listing must stay aligned).
    db.exec(`
      DELETE FROM kv WHERE expiration_ms >= 0 AND expiration_ms <= ${Date.now()};
      CREATE TABLE backup_expiry (k BLOB PRIMARY KEY, expiration_ms INTEGER NOT NULL);
      INSERT INTO backup_expiry SELECT k, expiration_ms FROM kv WHERE expiration_ms >= 0;
      UPDATE kv SET expiration_ms = -1 WHERE expiration_ms >= 0;
    `);
    copyKv = await Deno.openKv(copyPath);
  } catch (err) {
    copyKv?.close();
    db?.close();
    await cleanup();
    throw err;
  }
  const snapKv = copyKv;
  const rowsDb = db;
  return {
    mode: "sqlite-copy",
    kv: snapKv,
    async *entries() {
      const rows = rowsDb.prepare(
        `SELECT kv.version AS version, kv.seq AS seq, e.expiration_ms AS expiration
         FROM kv LEFT JOIN backup_expiry e ON e.k = kv.k ORDER BY kv.k`,
      ).iterate() as Iterator<{ version: number; seq: number; expiration: number | null }>;
      for await (const e of snapKv.list({ prefix: [] })) {
        const row = rows.next();
        if (row.done || versionstampOf(row.value.version, row.value.seq) !== e.versionstamp) {
          throw new Error("the KV copy's rows and its listing disagree; is this a Deno KV file?");
        }
        if (isSkippedKey(e.key)) continue;
        yield { key: e.key, value: e.value, expireAt: row.value.expiration ?? null };
      }
      if (!rows.next().done) throw new Error("the KV copy has rows its listing did not show");
    },
    verify() {},
    async close() {
      snapKv.close();
      rowsDb.close();
      await cleanup();
    },
  };
}

/** One scan's fingerprint: every key and versionstamp outside the skipped families, in order. */
function fingerprintStep(hash: Hash, e: Deno.KvEntry<unknown>): void {
  hash.update(serialize(e.key));
  hash.update(e.versionstamp);
}

async function verifiedScan(kv: Deno.Kv): Promise<Snapshot> {
  const first = createHash("sha256");
  for await (const e of kv.list({ prefix: [] })) {
    if (!isSkippedKey(e.key)) fingerprintStep(first, e);
  }
  const before = first.digest("hex");
  let after: string | null = null;
  return {
    mode: "verified-scan",
    kv,
    async *entries() {
      const second = createHash("sha256");
      const now = Date.now();
      for await (const e of kv.list({ prefix: [] })) {
        if (isSkippedKey(e.key)) continue;
        fingerprintStep(second, e);
        const expireAt = expiryFromValue(e.key, e.value);
        // Counted in the fingerprint all the same: it is part of the state both passes saw.
        if (expireAt !== null && expireAt <= now) continue;
        yield { key: e.key, value: e.value, expireAt };
      }
      after = second.digest("hex");
    },
    verify() {
      if (after === null) throw new Error("verify() before entries() ran to its end");
      if (after !== before) {
        throw new BackupError(
          "inconsistent",
          "the KV changed while it was scanned (no file to snapshot: :memory: or a remote KV); " +
            "retry when writes are quieter, or copy the KV server's own file (--kv-file)",
        );
      }
    },
    async close() {},
  };
}

/**
 * The families written with `expireIn`, and where their value says when they end (the KV API
 * does not show an entry's expiry; only a scan needs this, the SQLite copy reads it exactly).
 * Others restore without expiry.
 */
const EXPIRY_FROM_VALUE: ReadonlyMap<Deno.KvKeyPart, (v: Record<string, number>) => number | null> =
  new Map([
    // kv/adapters/replay.ts: until the JWT's exp, plus its second of slack.
    [jtiKey("", "")[0], (v) => v.exp * 1000 + 1000],
    // kv/tree/locks.ts: a lease's end plus its minute of slack; provider locks never expire.
    [lockKey()[0], (v) => (typeof v.expiresAt === "number" ? v.expiresAt + 60_000 : null)],
    [downloadTokenKey("")[0], (v) => v.expiresAt],
    [linkAccessKey("")[0], (v) => v.expiresAt],
    // kv/identity/guess_throttle.ts: a client's budget is forgotten an hour after its last try,
    // a subject's rate two minutes after its minute.
    [guessKey("", "")[0], (v) => v.lastTryAt + FORGET_AFTER_MS],
    [guessRateKey("")[0], (v) => (v.minute + 2) * 60_000],
    // kv/identity/sessions.ts and invitations.ts: at the latest their absolute end (a session's
    // idle end is earlier, and verifySession checks it whatever KV still holds).
    [sessionKey("")[0], (v) => v.expiresAt],
    [invitationKey("")[0], (v) => v.expiresAt],
  ]);

export function expiryFromValue(key: Deno.KvKey, value: unknown): number | null {
  const rule = EXPIRY_FROM_VALUE.get(key[0]);
  if (!rule || typeof value !== "object" || value === null) return null;
  const at = rule(value as Record<string, number>);
  return typeof at === "number" && Number.isFinite(at) ? at : null;
}
