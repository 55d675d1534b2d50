/**
 * Two hosts as one service, when things go wrong (issue 26, item 4): a backup taken while both
 * hosts write restores into a fresh pair (fresh denokv, fresh bucket) that serves the same files;
 * and a host killed with SIGKILL mid-upload leaves the other serving and, once its write lease
 * lapsed and the sweep ran, nothing lost or half-written (`admin fsck` clean on the shared KV and
 * bucket). The hosts are main.ts in two network namespaces (tests/scale/two_hosts.ts).
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { ApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { multipartBody } from "../helpers/http.ts";
import { until } from "../helpers/wait.ts";
import { runCli } from "../cli/run.ts";
import { s3PendingKey, s3StageChunkKey, s3StageKey } from "../../kv/keys.ts";
import { throttled, tusUpload } from "../helpers/tus.ts";
import { withTwoHosts } from "./two_hosts.ts";

const MiB = 1024 * 1024;
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

/** The SHA-256 of a file's bytes as `user` downloads them, or null when it is not there. */
async function downloaded(user: ApiUser, rs: number): Promise<string | null> {
  const res = await user.fetch(`/files/${rs}/download`);
  if (res.status === 404) return await res.body?.cancel(), null;
  assert.equal(res.status, 200, `download ${rs}`);
  return sha(new Uint8Array(await res.arrayBuffer()));
}

/** `bytes` as a body sending 256 KiB every 20 ms, so a kill lands in the middle of it. */
function slowBody(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    async pull(c) {
      await new Promise((r) => setTimeout(r, 20));
      if (off >= bytes.byteLength) return c.close();
      c.enqueue(bytes.slice(off, off + 256 * 1024));
      off += 256 * 1024;
    },
  });
}

Deno.test("two hosts: a backup taken while both write restores into a fresh pair", async () => {
  await withTwoHosts(async (c) => {
    const { onA, onB } = await c.newUser("backup");
    const written = new Map<number, string>();
    const write = async (u: ApiUser, name: string, seed: number) => {
      const bytes = testBytes(50_000 + seed * 997, seed);
      written.set(await u.newFile(name, bytes), sha(bytes));
    };
    for (let i = 0; i < 6; i++) await write(i % 2 ? onB : onA, `before-${i}.bin`, i + 1);
    const before = new Map(written);

    const file = `${await Deno.makeTempDir({ prefix: "drive-host-backup-" })}/drive.backup`;
    // A scan of a KV both hosts write never sees one state twice: the backup copies the denokv
    // server's own SQLite file instead, one point in time (--kv-file).
    const backingUp = runCli(
      await c.cliEnv(c.store),
      "backup",
      "--out",
      file,
      "--kv-file",
      c.store.kv.sqlitePath,
      "--json",
    );
    // Both hosts keep writing until the backup is done.
    const done = { backup: false };
    const writers = [onA, onB].map(async (u, w) => {
      for (let i = 0; !done.backup && i < 40; i++) {
        await write(u, `during-${w}-${i}.bin`, 100 + w * 50 + i);
      }
    });
    const backup = await backingUp;
    done.backup = true;
    await Promise.all(writers);
    assert.equal(backup.code, 0, backup.stderr);
    assert.ok(written.size > before.size, "both hosts wrote while the backup ran");

    const fresh = await c.newStore();
    // Another KV's file is refused, not backed up in this one's name.
    const wrongFile = await runCli(
      await c.cliEnv(c.store),
      "backup",
      "--out",
      `${file}.wrong`,
      "--kv-file",
      fresh.kv.sqlitePath,
    );
    assert.equal(wrongFile.code, 4, wrongFile.stderr);
    assert.match(wrongFile.stderr, /is not the SQLite file of the KV this service uses/);

    const restore = await runCli(await c.cliEnv(fresh), "restore", "--from", file, "--json");
    assert.equal(restore.code, 0, restore.stderr);
    const [a2, b2] = await c.startPair(fresh, [8011, 8012]);
    const as = (u: ApiUser, url: string) => Object.assign(Object.create(u), { url }) as ApiUser;
    const restoredA = as(onA, a2.url);
    const restoredB = as(onB, b2.url);
    // Every file written before the backup began is served by both new hosts with its bytes;
    // one written during it is there whole or not at all.
    for (const [rs, hash] of written) {
      const [onNewA, onNewB] = [await downloaded(restoredA, rs), await downloaded(restoredB, rs)];
      assert.equal(onNewA, onNewB, `file ${rs}: both restored hosts agree`);
      if (before.has(rs)) assert.equal(onNewA, hash, `file ${rs} restored`);
      else assert.ok(onNewA === null || onNewA === hash, `file ${rs} whole or absent`);
    }
    const fsck = await runCli(await c.cliEnv(fresh), "fsck", "--json");
    assert.equal(fsck.code, 0, fsck.stdout);
    assert.deepEqual(fsck.json().problems, []);
    const restored = [...written.keys()].filter((rs) => !before.has(rs));
    console.log(
      `backup while both hosts wrote: ${before.size} files before, ${restored.length} during; ` +
        `manifest ${JSON.stringify(backup.json())}`,
    );
  });
});

Deno.test("two hosts: one killed mid-uploads, the other serves on and resumes, fsck is clean", async () => {
  await withTwoHosts(async (c) => {
    const { onA, onB } = await c.newUser("killed");
    const kept = testBytes(200_000, 5);
    const keptRs = await onA.newFile("kept.bin", kept);

    // A large upload on A, streamed slowly: killed once its multipart upload to S3 is under way.
    const big = multipartBody([{
      name: "file",
      filename: "half.bin",
      bytes: testBytes(24 * MiB, 6),
    }]);
    const upload = onA.fetch("/files", {
      method: "POST",
      headers: { "content-type": big.contentType },
      body: slowBody(big.body),
    }).then((r) => r.status, (err) => String(err));
    // And a tus upload on A, one slow PATCH: killed with its first bytes staged in KV.
    const resumable = testBytes(4 * MiB + 3, 8);
    const tusOnA = tusUpload(onA, throttled(resumable, 64 * 1024, 10), {
      uploadSize: resumable.byteLength,
      chunkSize: resumable.byteLength,
      metadata: { filename: "resumed.bin" },
    });
    const kv = await c.store.openKv();
    const stagedChunks = async () => {
      const [stage] = await Array.fromAsync(kv.list({ prefix: s3StageKey() }));
      if (!stage) return 0;
      const chunks = kv.list({ prefix: s3StageChunkKey(String(stage.key[1])) });
      return (await Array.fromAsync(chunks)).length;
    };
    /** The bucket's multipart uploads not yet completed or aborted (ListMultipartUploads). */
    const openUploads = async () => {
      const res = await c.s3.client.fetch(`${c.s3.endpoint}/${c.store.bucket}?uploads`);
      const listing = await res.text();
      assert.equal(res.status, 200, listing);
      return listing;
    };
    const pending = () =>
      Array.fromAsync(kv.list<{ uploadId?: string }>({ prefix: s3PendingKey() }));
    await until(
      "a multipart upload in flight on A",
      async () => (await pending()).some((e) => e.value.uploadId !== undefined),
      60_000,
    );
    await until("a tus upload staging on A", async () => (await stagedChunks()) >= 4, 60_000);
    assert.match(await openUploads(), /<Upload>/, "its multipart upload is open in the bucket");
    await c.a.proc.kill();
    const killedAt = performance.now();
    assert.match(String(await upload), /error|fetch failed/i, "the upload died with host A");
    const cut = await tusOnA;
    assert.ok(cut.outcome instanceof Error && cut.url, `the tus upload was cut: ${cut.outcome}`);

    // The tus upload goes on on B from what A had staged (423 while A's claim still holds).
    const resumed = await tusUpload(onB, resumable, {
      uploadUrl: `${c.b.url}${new URL(cut.url).pathname}`,
      retryDelays: [250, 500, 1000, 2000, 2000, 2000, 2000, 2000, 2000, 2000],
    });
    assert.equal(resumed.outcome, "success", String(resumed.outcome));
    const resumedMs = Math.round(performance.now() - killedAt);

    // B serves on: reads what A wrote, takes a new file.
    assert.equal(await downloaded(onB, keptRs), sha(kept));
    const after = testBytes(300_000, 7);
    const afterRs = await onB.newFile("after.bin", after);
    assert.equal(await downloaded(onB, afterRs), sha(after));

    // A's lease lapses; B's own sweep (every lease period) clears the abandoned write.
    await until("the abandoned write cleared", async () => (await pending()).length === 0, 60_000);
    const env = await c.cliEnv(c.store);
    const sweep = await runCli(env, "sweep", "--json");
    assert.equal(sweep.code, 0, sweep.stderr);
    const fsck = await runCli(env, "fsck", "--json");
    assert.equal(fsck.code, 0, fsck.stdout);
    const report = fsck.json();
    assert.deepEqual(report.problems, []);
    assert.equal(report.orphanBlobs, 0, "no object without a file");
    // Nothing half-written: the user has the three whole files and no fourth.
    assert.doesNotMatch(await openUploads(), /<Upload>/, "the killed multipart upload aborted");
    const list = await onB.call("GET", "/resources");
    assert.deepEqual(list.body.data.items.map((i: { name: string }) => i.name), [
      "after.bin",
      "kept.bin",
      "resumed.bin",
    ]);
    const resumedRs = list.body.data.items[2].resourceSeq;
    assert.equal(await downloaded(onB, resumedRs), sha(resumable), "the resumed file is whole");
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: s3StageKey() })), [], "no stage left");
    console.log(`host A killed mid-upload: the tus upload finished on B ${resumedMs} ms later`);
  });
});
