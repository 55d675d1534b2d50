/**
 * tus uploads under write contention (issue 22, item 3): 16 clients upload 192 small files of one
 * name into one folder of one user at once, through two main.ts processes on one KV file. Every
 * final commit contends on the folder's names (each one renamed "same (n).bin") and the quota.
 * A commit that keeps losing is retried in the server and then answered 503 with Retry-After,
 * the upload left resumable, so no upload fails for good: each one's first URL ends completed.
 * (tus-js-client starts a new upload when its old one answers 410; counting the first URLs
 * catches that, where counting files would not.)
 */
import assert from "node:assert/strict";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { startMain } from "../helpers/process.ts";
import { statusOf, tusUpload } from "../helpers/tus.ts";

const WORKERS = 16;
const UPLOADS = 192;

for (const blobStore of ["fs", "kv"] as const) {
  Deno.test(`16 clients, 192 tus uploads into one folder: none fails [${blobStore} blobs]`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "tus-contention-" });
    const env = {
      DRIVE_DATA_DIR: dir,
      DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
      DRIVE_BLOB_STORE: blobStore,
    };
    const main = await startMain(env);
    const second = await startMain(env).catch(async (err) => {
      await main.stop();
      throw err;
    });
    try {
      const admin = new AdminClient(main.url);
      const tenant = await admin.createTenant("t");
      const user = await admin.createUser(tenant.id, "alice");
      const key = await admin.createKey(user.userSeq);
      const users = [main, second].map((p) =>
        new ApiUser(p.url, user.userSeq, tenant.id, key, "alice")
      );
      const folder = await users[0].newFolder("Inbox");
      let next = 0;
      const firstUrls: string[] = [];
      const retried = new Map<string, number>();
      const worker = async (_: unknown, w: number) => {
        for (let i = next++; i < UPLOADS; i = next++) {
          const run = await tusUpload(users[w % 2], testBytes(1024 + i * 37, i), {
            metadata: { filename: "same.bin", pfs: String(folder) },
            retryDelays: [50, 100, 200, 400, 800, 1600, 3200],
            onAfterResponse(req, res) {
              if (req.getMethod() !== "POST" || res.getStatus() !== 201) return;
              firstUrls[i] ??= new URL(res.getHeader("Location")!, users[0].url).pathname;
            },
            // tus-js-client's own rule (retry unless 4xx, but 409 and 423 too), counted.
            onShouldRetry(err) {
              const s = statusOf(err as unknown as Error) ?? 0;
              const why = `${s} ${/"errorCode":"(\w+)"/.exec(String(err))?.[1] ?? ""}`;
              retried.set(why, (retried.get(why) ?? 0) + 1);
              return s < 400 || s >= 500 || s === 409 || s === 423;
            },
          });
          assert.equal(run.outcome, "success", `upload ${i}: ${run.outcome}`);
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      // Each upload's first URL: completed, or it was lost and the client started over.
      const failed: string[] = [];
      for (const url of firstUrls) {
        const res = await users[0].fetch(url.replace("/api/external/v1", ""));
        const state = (await res.json()).data?.state;
        if (state !== "completed") failed.push(`${url}: ${state}`);
      }
      console.log(
        `[${blobStore}] ${UPLOADS} uploads, ${failed.length} failed for good; retried after: ${
          JSON.stringify(Object.fromEntries(retried))
        }`,
      );
      assert.deepEqual(failed, []);
      const listing = await users[0].call("GET", `/resources?pfs=${folder}&ps=1000`);
      assert.equal(listing.body.data.items.length, UPLOADS);
    } finally {
      await main.stop();
      await second.stop();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
