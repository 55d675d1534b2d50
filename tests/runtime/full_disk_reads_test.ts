/**
 * Reads on a disk so full that KV takes no commit at all: the download's audit entry is best
 * effort, so the bytes still come (200, not 500), the dropped entry is counted in
 * drive_audit_writes_dropped_total, and a write answers 507 SERVICE_003. The tmpfs end-to-end
 * run (full_disk_test.ts) covers the real disk; this one makes every KV commit fail as SQLite
 * does when the disk is full, so it runs anywhere.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";

/** Makes every commit of `kv` fail as SQLite does on a full disk, until the returned undo. */
function fillDisk(kv: Deno.Kv): () => void {
  const atomic = kv.atomic;
  kv.atomic = () => {
    const op = atomic.call(kv);
    op.commit = () => Promise.reject(new TypeError("database or disk is full"));
    return op;
  };
  return () => (kv.atomic = atomic);
}

async function droppedAudits(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("drive_audit_writes_dropped_total "));
  return Number(line?.split(" ")[1] ?? NaN);
}

Deno.test("full KV: downloads still answer 200, the audit entry is dropped and counted; writes 507", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await alice.newFile("kept.txt", "the bytes stay readable");
    assert.equal(await droppedAudits(server.url), 0);
    const undo = fillDisk(server.kv);
    try {
      for (const path of [`/files/${rs}/download`, `/files/${rs}/view`]) {
        const res = await alice.fetch(path);
        assert.equal(res.status, 200, path);
        assert.equal(await res.text(), "the bytes stay readable");
      }
      assert.equal((await alice.call("GET", "/resources")).status, 200);
      const folder = await alice.call("POST", "/folders", { fn: "new" });
      assert.equal(folder.status, 507);
      assert.equal(folder.body.errorCode, "SERVICE_003");
      assert.match(folder.body.message, /storage is full/);
    } finally {
      undo();
    }
    assert.equal(await droppedAudits(server.url), 2);
  });
});
