/**
 * Schema version and start-up migrations, through real processes: data of the old shape (no
 * schema version, a lock from before the per-owner lock index) is migrated and recorded when
 * main.ts starts; data of a newer schema makes main.ts refuse to start (one line, exit 4) and the
 * admin CLI refuse to run (exit 3), both before writing anything.
 */
import assert from "node:assert/strict";
import { lockKey, migrationKey, ownerLockKey, schemaVersionKey } from "../../kv/keys.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "../../kv/migrations/migrations.ts";
import { newApiUser } from "../helpers/api.ts";
import { MAIN, startMain } from "../helpers/process.ts";
import { startTestServer } from "../helpers/server.ts";
import { expectCli, freshEnv } from "./run.ts";

Deno.test("start-up migrates old-shape data and records each migration and the schema version", async () => {
  const env = await freshEnv();
  try {
    // Real data, then made to look as an older release left it.
    const server = await startTestServer({
      kvPath: env.DRIVE_KV,
      env: { DRIVE_DATA_DIR: env.DRIVE_DATA_DIR },
    });
    const alice = await newApiUser(server, "alice");
    const doc = await alice.newFile("doc.docx", "content");
    await server.close();
    const kv = await Deno.openKv(env.DRIVE_KV);
    try {
      await kv.delete(schemaVersionKey());
      for await (const e of kv.list({ prefix: migrationKey() })) await kv.delete(e.key);
      await kv.set(lockKey(doc), {
        rs: doc,
        owner: "provider:office:someone",
        source: "provider",
        holder: "office",
        lockedAt: Date.now(),
        expiresAt: null,
      });
      await kv.delete(ownerLockKey(alice.userSeq, doc));
    } finally {
      kv.close();
    }

    const main = await startMain({ ...env, DRIVE_ADMIN_TOKEN: "migration-test-token-0123456789" });
    await main.stop();

    const after = await Deno.openKv(env.DRIVE_KV);
    try {
      assert.equal((await after.get(schemaVersionKey())).value, SCHEMA_VERSION);
      for (const m of MIGRATIONS) {
        const rec = (await after.get<{ version: number; appliedAt: string }>(migrationKey(m.name)))
          .value;
        assert.ok(rec, `migration ${m.name} not recorded`);
        assert.equal(rec.version, m.version);
      }
      const lock = (await after.get<{ ownerSeq?: number }>(lockKey(doc))).value;
      assert.equal(lock?.ownerSeq, alice.userSeq);
      assert.equal((await after.get(ownerLockKey(alice.userSeq, doc))).value, true);
    } finally {
      after.close();
    }
    const status = (await expectCli(env, 0, "migrations", "--json")).json();
    assert.equal(status.schemaVersion, SCHEMA_VERSION);
    assert.ok(status.items.every((m: { appliedAt: string | null }) => m.appliedAt !== null));
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true });
  }
});

Deno.test("a newer schema: main.ts refuses to start (exit 4, one line), the CLI refuses (exit 3)", async () => {
  const env = await freshEnv();
  try {
    const kv = await Deno.openKv(env.DRIVE_KV);
    await kv.set(schemaVersionKey(), SCHEMA_VERSION + 1);
    kv.close();

    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN],
      env: { ...env, PORT: "0", HOST: "127.0.0.1", NO_COLOR: "1" } as Record<string, string>,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 4, stderr);
    assert.equal(stderr.trim().split("\n").length, 1, `more than one line: ${stderr}`);
    assert.match(stderr, new RegExp(`schema version ${SCHEMA_VERSION + 1}, newer than`));
    assert.doesNotMatch(new TextDecoder().decode(out.stdout), /listening/);

    const cli = await expectCli(env, 3, "users", "list");
    assert.match(cli.stderr, /refusing to run: .*newer than this release/);

    // Nothing was written: no migration ran, the version is untouched.
    const after = await Deno.openKv(env.DRIVE_KV);
    try {
      assert.equal((await after.get(schemaVersionKey())).value, SCHEMA_VERSION + 1);
      for await (const _ of after.list({ prefix: migrationKey() })) assert.fail("a migration ran");
    } finally {
      after.close();
    }
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true });
  }
});
