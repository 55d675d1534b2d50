/**
 * Resource ids across processes: three main.ts processes on one KV file, each creating folders
 * 16 at a time, hand out no id twice and surface no conflict to a client (ids come from blocks
 * each process reserves in one commit, kv/db.ts openIdAllocator).
 */
import assert from "node:assert/strict";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { type MainProcess, startMain } from "../helpers/process.ts";

const PROCESSES = 3;
const CONCURRENCY = 16;
const PER_WORKER = 8;

Deno.test("3 processes x 16 concurrent folder creates on one KV: every id unique, no errors", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-ids-" });
  const env = { DRIVE_DATA_DIR: dir, DRIVE_ADMIN_TOKEN: ADMIN_TOKEN };
  const procs: MainProcess[] = [];
  try {
    for (let i = 0; i < PROCESSES; i++) procs.push(await startMain(env));
    const admin = new AdminClient(procs[0].url);
    const tenant = await admin.createTenant("ids");
    const user = await admin.createUser(tenant.id, "ids");
    const key = await admin.createKey(user.userSeq);
    const statuses: number[] = [];
    const ids: number[] = [];
    await Promise.all(procs.flatMap((p, pi) => {
      const api = new ApiUser(p.url, user.userSeq, tenant.id, key, "ids");
      return Array.from({ length: CONCURRENCY }, async (_, wi) => {
        for (let n = 0; n < PER_WORKER; n++) {
          const res = await api.call("POST", "/folders", { fn: `p${pi}-w${wi}-${n}` });
          statuses.push(res.status);
          if (res.status === 201) ids.push(res.body.data.resourceSeq);
        }
      });
    }));
    const total = PROCESSES * CONCURRENCY * PER_WORKER;
    assert.deepEqual(statuses.filter((s) => s !== 201), [], "every create answered 201");
    assert.equal(ids.length, total);
    assert.equal(new Set(ids).size, total, "no id handed out twice");
    assert.ok(ids.every((id) => Number.isSafeInteger(id) && id > 0), "positive integers");
    // Each process took its own block: the ids of one process never collide with another's,
    // and every folder is listed once under its own id.
    const listed = await new ApiUser(procs[1].url, user.userSeq, tenant.id, key, "ids")
      .call("GET", "/resources?ps=1000");
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    const listedIds = (listed.body.data.items as { resourceSeq: number }[])
      .map((i) => i.resourceSeq).sort((a, b) => a - b);
    assert.deepEqual(listedIds, [...ids].sort((a, b) => a - b));
  } finally {
    for (const p of procs) await p.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
