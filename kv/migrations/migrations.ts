/**
 * The schema version of the data in KV and the named start-up migrations that bring older data
 * up to it. Every process runs `runMigrations` before it serves (boot.ts) and the admin CLI runs
 * it before a command, so no code ever reads data of an older shape than it was written for.
 *
 * Rules for a migration (docs/operations.md, upgrades and migrations):
 * - it is idempotent: running it twice, or on two processes at once, leaves the same data;
 * - it is safe alongside live writes: older processes may still serve while a newer one starts,
 *   so it changes each record in a checked commit and never assumes it is alone;
 * - it is never edited or renamed once released: its name is what records that it ran.
 *
 * The schema version is the highest `version` of the migrations that all ran. A process whose
 * code knows a lower version than KV holds refuses to start (`SchemaTooNewError`): data written
 * by a newer release may have shapes this code would misread and then overwrite.
 */
import { indexLocksByOwner } from "../tree/locks.ts";
import { indexSearchTokens } from "../tree/search_index.ts";
import { indexUserTerms } from "../identity/users.ts";
import { migrationKey, schemaVersionKey } from "../keys.ts";

export interface Migration {
  /** Stable, never reused: the record of the run is keyed by it. */
  name: string;
  /** The schema version the data has once this migration and all before it ran. */
  version: number;
  /** Why it exists, for `admin migrations` and the operations guide. */
  description: string;
  run(kv: Deno.Kv): Promise<void>;
}

/** The record kept under ["migration", name] once a migration ran to its end. */
interface MigrationRecord {
  version: number;
  appliedAt: string;
}

/** In order; append only. */
export const MIGRATIONS: readonly Migration[] = [
  {
    name: "0001-lock-owner-index",
    version: 1,
    description: "Locks written before the per-owner lock index (lock_owner) get indexed",
    run: indexLocksByOwner,
  },
  {
    name: "0002-search-token-index",
    version: 2,
    description: "Resources written before search get their name tokens indexed (res_token)",
    run: indexSearchTokens,
  },
  {
    name: "0003-user-term-index",
    version: 3,
    description: "Users written before the admin search get their search terms indexed (user_term)",
    run: indexUserTerms,
  },
];

/** The schema version this code reads and writes. */
export const SCHEMA_VERSION = Math.max(0, ...MIGRATIONS.map((m) => m.version));

/** KV holds data of a newer schema than this code knows: upgrading back is the only way out. */
export class SchemaTooNewError extends Error {
  constructor(readonly stored: number, readonly known: number) {
    super(
      `the data is at schema version ${stored}, newer than this release knows (${known}): ` +
        `run the release that wrote it (or newer), or restore a backup taken before the upgrade`,
    );
    this.name = "SchemaTooNewError";
  }
}

export async function readSchemaVersion(kv: Deno.Kv): Promise<number> {
  return (await kv.get<number>(schemaVersionKey())).value ?? 0;
}

interface MigrationStatus {
  name: string;
  version: number;
  description: string;
  /** null: not run yet on this KV. */
  appliedAt: string | null;
}

/** Every known migration and whether it ran on this KV. */
export async function migrationStatus(kv: Deno.Kv): Promise<MigrationStatus[]> {
  const out: MigrationStatus[] = [];
  for (const m of MIGRATIONS) {
    const rec = (await kv.get<MigrationRecord>(migrationKey(m.name))).value;
    out.push({
      name: m.name,
      version: m.version,
      description: m.description,
      appliedAt: rec?.appliedAt ?? null,
    });
  }
  return out;
}

/**
 * Checks the schema version, runs every migration not yet recorded (in order), records each,
 * and raises the schema version. Returns the names of the migrations this call ran.
 */
export async function runMigrations(
  kv: Deno.Kv,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<string[]> {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const stored = await readSchemaVersion(kv);
  if (stored > known) throw new SchemaTooNewError(stored, known);
  const ran: string[] = [];
  for (const m of migrations) {
    const rec = await kv.get<MigrationRecord>(migrationKey(m.name));
    if (rec.value) continue;
    await m.run(kv);
    // Another process may have finished it meanwhile; either record says the same.
    const record: MigrationRecord = { version: m.version, appliedAt: new Date().toISOString() };
    await kv.atomic().check(rec).set(migrationKey(m.name), record).commit();
    ran.push(m.name);
  }
  await raiseSchemaVersion(kv, known);
  return ran;
}

/** Sets the schema version to `to` unless it is already there or higher (checked commit). */
async function raiseSchemaVersion(kv: Deno.Kv, to: number): Promise<void> {
  for (;;) {
    const cur = await kv.get<number>(schemaVersionKey());
    if ((cur.value ?? 0) >= to) return;
    const res = await kv.atomic().check(cur).set(schemaVersionKey(), to).commit();
    if (res.ok) return;
  }
}
