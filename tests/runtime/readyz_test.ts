/**
 * GET /readyz: ready on a healthy service; 503 with the failed check and its reason when the
 * blob directory takes no writes or free disk is below DRIVE_MIN_FREE_BYTES; ready again once
 * the cause is gone.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";

/**
 * Makes `dir` refuse new files. chmod does not stop root (these tests often run as root), so as
 * root the directory gets the immutable attribute (`chattr +i`: no file may be created in it,
 * whoever asks); otherwise its write permission is removed. Returns the undo.
 */
async function makeReadOnly(dir: string): Promise<() => Promise<void>> {
  if (Deno.uid() !== 0) {
    await Deno.chmod(dir, 0o555);
    return () => Deno.chmod(dir, 0o755);
  }
  const chattr = (flag: string) =>
    new Deno.Command("chattr", { args: [flag, dir], stderr: "piped" }).output();
  const set = await chattr("+i");
  if (!set.success) {
    throw new Error(`chattr +i failed: ${new TextDecoder().decode(set.stderr)}`);
  }
  return async () => {
    await chattr("-i");
  };
}

// deno-lint-ignore no-explicit-any
async function readyz(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: await res.json() };
}

Deno.test("/readyz: 200 when KV, the blob store and the disk are fine; 503 naming the blob store when its directory is read-only", async () => {
  await withServer(async (server) => {
    const ok = await readyz(server.url);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.status, "ready");
    assert.deepEqual(ok.body.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok]), [
      ["kv", true],
      ["blobStore", true],
      ["disk", true],
    ]);

    // The fs store writes every blob under blobs/tmp first, then renames it into place.
    const undo = await makeReadOnly(`${server.config.dataDir}/blobs/tmp`);
    try {
      const down = await readyz(server.url);
      assert.equal(down.status, 503);
      assert.equal(down.body.status, "not ready");
      assert.equal(down.body.error, "OPS_002");
      const blob = down.body.checks.find((c: { name: string }) => c.name === "blobStore");
      assert.equal(blob.ok, false);
      assert.match(blob.reason, /blob store did not take a new blob/);
      // The reason names the failure, not the server's file paths.
      assert.equal(blob.reason.includes(server.config.dataDir), false);
      assert.match(down.body.message, /blobStore/);
      assert.ok(down.body.checks.find((c: { name: string }) => c.name === "kv").ok);
    } finally {
      await undo();
    }
    assert.equal((await readyz(server.url)).status, 200);
  });
});

Deno.test("/readyz: 503 when free disk is below DRIVE_MIN_FREE_BYTES; the kv store has no disk check", async () => {
  await withServer(async (server) => {
    const down = await readyz(server.url);
    assert.equal(down.status, 503);
    const disk = down.body.checks.find((c: { name: string }) => c.name === "disk");
    assert.equal(disk.ok, false);
    assert.match(disk.reason, /below DRIVE_MIN_FREE_BYTES/);
  }, { env: { DRIVE_MIN_FREE_BYTES: String(Number.MAX_SAFE_INTEGER) } });

  await withServer(async (server) => {
    const ok = await readyz(server.url);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.checks.map((c: { name: string }) => c.name), ["kv", "blobStore"]);
  }, { blobStore: "kv" });
});
