/**
 * The admin CLI's data commands, run as processes on the KV file a server is serving: fsck
 * finds each kind of damage and --repair fixes what is safe, usage --recompute is exact while
 * uploads run, sweep removes old orphans (after a dry run), export-user writes the drive as a
 * ZIP with a manifest, backup and restore round-trip through the CLI.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { readZip } from "../helpers/zip_reader.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import { nameIndexKey } from "../../kv/tree/resources.ts";
import { resourceNameKey, usageKey, versionKey } from "../../kv/keys.ts";
import { sha256Hex } from "../../lib/secrets.ts";
import { expectCli, freshEnv, withCliServer } from "./run.ts";

const kinds = (report: { problems: { kind: string }[] }) =>
  report.problems.map((p) => p.kind).sort();

Deno.test("fsck: a clean tree passes; each kind of damage is found, --repair fixes what is safe", async () => {
  await withCliServer(async (env, server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("Reports");
    const a = await alice.newFile("a.txt", "alpha", folder);
    const b = await alice.newFile("b.txt", "bravo");
    const clean = (await expectCli(env, 0, "fsck", "--json")).json();
    assert.equal(clean.resources, 3);
    assert.equal(clean.versions, 2);
    assert.deepEqual(clean.problems, []);

    // Damage of every repairable kind, made directly in KV.
    const [aVersion] = await listVersions(server.kv, a);
    await server.kv.delete(nameIndexKey(alice.userSeq, null, "b.txt"));
    await server.kv.set(resourceNameKey(alice.userSeq, 0, "ghost.txt"), 987654);
    await server.kv.set(usageKey(alice.userSeq), 1);
    await server.kv.set(versionKey(876543, 1), { ...aVersion });

    const found = (await expectCli(env, 1, "fsck", "--json")).json();
    assert.deepEqual(kinds(found), [
      "index_missing",
      "index_stale",
      "orphan_version",
      "usage_mismatch",
    ]);
    assert.ok(found.problems.every((p: { repaired: boolean }) => !p.repaired));
    assert.equal((await server.kv.get(usageKey(alice.userSeq))).value, 1, "a check wrote");
    assert.match((await expectCli(env, 1, "fsck")).stdout, /problem\(s\) left \(try --repair\)/);

    const repaired = (await expectCli(env, 0, "fsck", "--repair", "--json")).json();
    assert.deepEqual(kinds(repaired), kinds(found));
    assert.ok(repaired.problems.every((p: { repaired: boolean }) => p.repaired));
    assert.deepEqual((await expectCli(env, 0, "fsck", "--json")).json().problems, []);
    assert.equal((await server.kv.get(usageKey(alice.userSeq))).value, 10);
    // The name index works again: a second b.txt in the root is a conflict, as it should be.
    const dup = await alice.upload("b.txt", "again", { st: "duplicate" });
    assert.equal(dup.body.data.resourceName, "b (1).txt");
    assert.ok(b > 0);

    // A missing blob needs a person: found, never "repaired".
    await server.blobs.delete(aVersion.blobId);
    const lost = (await expectCli(env, 1, "fsck", "--repair", "--json")).json();
    assert.deepEqual(kinds(lost), ["blob_missing"]);
    assert.equal(lost.problems[0].blobId, aVersion.blobId);
    assert.equal(lost.unrepaired, 1);
  });
});

Deno.test("usage --recompute: a wrong usage is reported (exit 1), then made exact while uploads run", async () => {
  await withCliServer(async (env, server) => {
    const bob = await newApiUser(server, "bob");
    await bob.newFile("one.bin", "x".repeat(1000));
    await server.kv.set(usageKey(bob.userSeq), 5);
    const report = (await expectCli(env, 1, "usage", "--json")).json();
    assert.deepEqual(report.items, [
      { userSeq: bob.userSeq, storedBytes: 5, actualBytes: 1000, fixed: false },
    ]);

    // Recount while 20 uploads commit on the server: the recount must not undo any of them.
    let uploaded = 0;
    const uploads = (async () => {
      for (let i = 0; i < 20; i++) {
        await bob.newFile(`f${i}.bin`, "y".repeat(100));
        uploaded += 100;
      }
    })();
    const fixed = (await expectCli(env, 0, "usage", "--recompute", "--json")).json();
    assert.equal(fixed.items[0].fixed, true);
    await uploads;
    assert.equal(uploaded, 2000);
    const user = await server.admin.call("GET", `/users/${bob.userSeq}`);
    assert.equal(user.body.usedBytes, 1000 + 2000);
    const again = (await expectCli(env, 0, "usage", "--user", String(bob.userSeq), "--json"))
      .json();
    assert.deepEqual(again.items[0], {
      userSeq: bob.userSeq,
      storedBytes: 3000,
      actualBytes: 3000,
      fixed: false,
    });
  });
});

Deno.test("sweep: a dry run counts old orphans, a real run removes them and nothing referenced", async () => {
  await withCliServer(async (env, server) => {
    const carol = await newApiUser(server, "carol");
    await carol.newFile("kept.txt", "kept");
    const stray = (await server.blobs.write(new Blob(["stray bytes"]).stream())).blobId;
    const then = new Date(Date.now() - 2 * 24 * 3_600_000);
    await Deno.utime(`${server.config.dataDir}/blobs/${stray.slice(0, 2)}/${stray}`, then, then);

    const dry = (await expectCli(env, 0, "sweep", "--dry-run", "--json")).json();
    assert.equal(dry.orphans, 1);
    assert.equal(dry.orphanBytes, 11);
    assert.equal(dry.removed, 0);
    const real = (await expectCli(env, 0, "sweep", "--json")).json();
    assert.equal(real.removed, 1);
    assert.equal((await expectCli(env, 0, "sweep", "--json")).json().orphans, 0);
    assert.deepEqual((await expectCli(env, 0, "fsck", "--json")).json().problems, []);
    await expectCli(env, 2, "sweep", "--min-age-hours", "0");
  });
});

Deno.test("export-user: the live files with their folder paths and a manifest, in a ZIP", async () => {
  await withCliServer(async (env, server) => {
    const dana = await newApiUser(server, "dana");
    const top = await dana.newFolder("Projects");
    const inner = await dana.newFolder("Q3", top);
    await dana.newFile("plan.txt", "the plan", inner);
    await dana.newFile("root.md", "# root");
    await dana.newFolder("Empty");
    const gone = await dana.newFile("trashed.txt", "bye");
    assert.equal((await dana.call("PATCH", `/files/${gone}/delete`)).status, 200);

    const out = `${env.DRIVE_DATA_DIR}/dana.zip`;
    const summary =
      (await expectCli(env, 0, "export-user", String(dana.userSeq), "--out", out, "--json"))
        .json();
    assert.deepEqual([summary.files, summary.folders, summary.bytes], [2, 3, 14]);
    const zip = readZip(await Deno.readFile(out));
    assert.equal(zip.text("files/Projects/Q3/plan.txt"), "the plan");
    assert.equal(zip.text("files/root.md"), "# root");
    assert.ok(zip.entries.some((e) => e.name === "files/Empty/"));
    assert.ok(!zip.entries.some((e) => e.name.includes("trashed")), "a trashed file was exported");
    const manifest = JSON.parse(zip.text("manifest.json"));
    assert.equal(manifest.user.accountId, "dana");
    const plan = manifest.entries.find((e: { path: string }) => e.path === "Projects/Q3/plan.txt");
    assert.equal(plan.sha256, sha256Hex(new TextEncoder().encode("the plan")));

    await expectCli(env, 2, "export-user", String(dana.userSeq), "--out", out); // exists
    await expectCli(env, 4, "export-user", "424242", "--out", `${out}.2`);
    await expectCli(env, 2, "export-user", String(dana.userSeq)); // no --out
  });
});

Deno.test("backup and restore through the CLI: a running server's data comes back in a new directory", async () => {
  const target = await freshEnv();
  try {
    await withCliServer(async (env, server) => {
      const erin = await newApiUser(server, "erin");
      const rs = await erin.newFile("report.txt", "quarterly numbers");
      const file = `${env.DRIVE_DATA_DIR}/drive.backup`;
      const manifest = (await expectCli(env, 0, "backup", "--out", file, "--json")).json();
      assert.equal(manifest.blobs, 1);
      await expectCli(env, 2, "backup", "--out", file); // exists

      await expectCli(target, 0, "restore", "--from", file);
      const users = (await expectCli(target, 0, "users", "list", "--json")).json();
      assert.deepEqual(users.items.map((u: { accountId: string }) => u.accountId), ["erin"]);
      assert.deepEqual((await expectCli(target, 0, "fsck", "--json")).json().problems, []);
      const out = `${target.DRIVE_DATA_DIR}/erin.zip`;
      await expectCli(target, 0, "export-user", String(erin.userSeq), "--out", out);
      assert.equal(readZip(await Deno.readFile(out)).text("files/report.txt"), "quarterly numbers");
      assert.ok(rs > 0);
      // Restoring over data is refused by the data, not half-done.
      await expectCli(target, 4, "restore", "--from", file);
      await expectCli(target, 2, "restore", "--from", `${file}.missing`);
    });
  } finally {
    await Deno.remove(target.DRIVE_DATA_DIR, { recursive: true }).catch(() => {});
  }
});

Deno.test("backup --out writes a file only its owner can read: it holds secrets.key and token hashes", async () => {
  const env = await freshEnv();
  try {
    const file = `${env.DRIVE_DATA_DIR}/drive.backup`;
    await expectCli(env, 0, "backup", "--out", file);
    // It was 0644 (world-readable) under the usual umask 022.
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true });
  }
});
