/**
 * runMigrations on a `:memory:` KV: each migration runs once and is recorded, the schema
 * version rises to the highest known, concurrent runs agree, and a newer stored schema is
 * refused before any migration runs.
 */
import assert from "node:assert/strict";
import { migrationKey, schemaVersionKey } from "../keys.ts";
import {
  type Migration,
  migrationStatus,
  readSchemaVersion,
  runMigrations,
  SCHEMA_VERSION,
  SchemaTooNewError,
} from "./migrations.ts";

function counting(name: string, version: number, runs: Map<string, number>): Migration {
  return {
    name,
    version,
    description: name,
    run: () => {
      runs.set(name, (runs.get(name) ?? 0) + 1);
      return Promise.resolve();
    },
  };
}

Deno.test("migrations run once each, in order, and are recorded with the schema version", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const runs = new Map<string, number>();
    const list = [counting("a", 1, runs), counting("b", 2, runs)];
    assert.deepEqual(await runMigrations(kv, list), ["a", "b"]);
    assert.deepEqual(await runMigrations(kv, list), []);
    assert.deepEqual([...runs], [["a", 1], ["b", 1]]);
    assert.equal(await readSchemaVersion(kv), 2);
    assert.equal((await kv.get<{ version: number }>(migrationKey("b"))).value?.version, 2);

    // A release adding a migration runs only the new one.
    const more = [...list, counting("c", 3, runs)];
    assert.deepEqual(await runMigrations(kv, more), ["c"]);
    assert.equal(await readSchemaVersion(kv), 3);
  } finally {
    kv.close();
  }
});

Deno.test("concurrent runs of the same migrations leave one record each and the same version", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const runs = new Map<string, number>();
    const list = [counting("a", 1, runs), counting("b", 2, runs)];
    await Promise.all([runMigrations(kv, list), runMigrations(kv, list), runMigrations(kv, list)]);
    assert.equal(await readSchemaVersion(kv), 2);
    const names: string[] = [];
    for await (const e of kv.list({ prefix: migrationKey() })) names.push(String(e.key[1]));
    assert.deepEqual(names, ["a", "b"]);
  } finally {
    kv.close();
  }
});

Deno.test("a newer stored schema is refused before any migration runs", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(schemaVersionKey(), SCHEMA_VERSION + 5);
    const runs = new Map<string, number>();
    await assert.rejects(
      () => runMigrations(kv, [counting("a", SCHEMA_VERSION, runs)]),
      (err: unknown) =>
        err instanceof SchemaTooNewError && err.stored === SCHEMA_VERSION + 5 &&
        /newer than this release knows/.test(err.message),
    );
    assert.equal(runs.size, 0);
    assert.ok((await migrationStatus(kv)).every((m) => m.appliedAt === null));
  } finally {
    kv.close();
  }
});
