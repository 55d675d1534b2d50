/**
 * Backup and restore are all or nothing (issue 22, item 6). A backup process killed with
 * SIGKILL half-way leaves no file under its --out name, only `<out>.partial`; a restore from
 * that partial file is refused with a clear message and writes nothing; and the retries work: a
 * backup to the same name takes the stale partial file over, and a restore of it into the same
 * target succeeds. The data set is real (about 120 MiB of blobs) so the backup is still writing
 * when it is killed; nothing in the CLI waits for the test.
 */
import assert from "node:assert/strict";
import { openStoresAndDeps } from "../../boot.ts";
import { readConfig } from "../../config.ts";
import { newFile, newUser } from "../../kv/testing.ts";
import { CLI_MAIN, type CliEnv, expectCli, freshEnv } from "./run.ts";

const FILES = 3;
const FILE_BYTES = 40 * 1024 * 1024;

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);
const sizeOf = (path: string) => Deno.stat(path).then((s) => s.size, () => 0);

/** A data directory holding one user with FILES large files, written as the service does. */
async function seedLarge(env: CliEnv): Promise<void> {
  const d = await openStoresAndDeps(readConfig({ ...env }));
  try {
    const erin = await newUser(d, "erin", { quotaBytes: 4 * FILES * FILE_BYTES });
    for (let f = 0; f < FILES; f++) {
      // Distinct, incompressible-enough bytes per file.
      const bytes = new Uint8Array(FILE_BYTES);
      for (let i = 0; i < bytes.length; i += 4096) {
        crypto.getRandomValues(bytes.subarray(i, i + 4096));
      }
      await newFile(d, erin, `big-${f}.bin`, bytes);
    }
  } finally {
    d.kv.close();
  }
}

/** Starts `admin backup --out file` and kills it (SIGKILL) once it has written `atLeast` bytes. */
async function killBackupMidway(env: CliEnv, file: string, atLeast: number): Promise<number> {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) vars[k] = v;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, "backup", "--out", file],
    env: { NO_COLOR: "1", ...vars },
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + 120_000;
  let exited = false;
  child.status.then(() => exited = true);
  // Whichever name it writes under (it used to be the final one).
  const written = async () => Math.max(await sizeOf(`${file}.partial`), await sizeOf(file));
  while ((await written()) < atLeast) {
    if (exited) throw new Error("the backup ended before it could be killed");
    if (Date.now() > deadline) throw new Error("the backup wrote nothing in 120 s");
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill("SIGKILL");
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL", "killed, not finished");
  return await written();
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  if (!(await exists(dir))) return out;
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...await listFiles(path));
    else out.push(path);
  }
  return out;
}

Deno.test("a backup killed mid-way leaves only <out>.partial; restore refuses it and leaves the target empty; both retries work", async () => {
  const env = await freshEnv("fs");
  const target = await freshEnv("fs");
  try {
    await seedLarge(env);
    const file = `${env.DRIVE_DATA_DIR}/drive.backup`;

    const cutAt = await killBackupMidway(env, file, 4 * 1024 * 1024);
    assert.ok(cutAt < FILES * FILE_BYTES, `the partial file is cut short (${cutAt} bytes)`);
    // It was a truncated file under the final name.
    assert.equal(await exists(file), false, "nothing under the final --out name");
    assert.equal(await exists(`${file}.partial`), true);

    const refused = await expectCli(target, 4, "restore", "--from", `${file}.partial`);
    assert.match(refused.stderr, /not a complete backup.*\.partial name/s);
    assert.deepEqual((await expectCli(target, 0, "users", "list", "--json")).json().items, []);
    const fsck = (await expectCli(target, 0, "fsck", "--json")).json();
    assert.deepEqual([fsck.resources, fsck.blobs], [0, 0]);
    assert.deepEqual(await listFiles(`${target.DRIVE_DATA_DIR}/blobs`), []);

    // The retries: the stale partial file is taken over, then the same target takes the backup.
    const manifest = (await expectCli(env, 0, "backup", "--out", file, "--json")).json();
    assert.equal(manifest.blobs, FILES);
    assert.equal(await exists(`${file}.partial`), false);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    await expectCli(target, 0, "restore", "--from", file);
    const users = (await expectCli(target, 0, "users", "list", "--json")).json();
    assert.deepEqual(users.items.map((u: { accountId: string }) => u.accountId), ["erin"]);
    assert.deepEqual((await expectCli(target, 0, "fsck", "--json")).json().problems, []);
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true }).catch(() => {});
    await Deno.remove(target.DRIVE_DATA_DIR, { recursive: true }).catch(() => {});
  }
});

Deno.test("a second backup to the same name is refused while the first writes it", async () => {
  const env = await freshEnv("fs");
  try {
    const file = `${env.DRIVE_DATA_DIR}/drive.backup`;
    // The lock a running backup holds on its partial file.
    const held = await Deno.open(`${file}.partial`, { write: true, create: true });
    try {
      await held.lock(true);
      const run = await expectCli(env, 2, "backup", "--out", file);
      assert.match(run.stderr, /being written by another backup/);
      assert.equal(await exists(file), false);
    } finally {
      held.close();
    }
    await expectCli(env, 0, "backup", "--out", file);
    assert.equal(await exists(`${file}.partial`), false);
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true }).catch(() => {});
  }
});
