/**
 * A stopping main.ts exits even when what it waits on is gone: with denokv and the S3 server
 * killed in the middle of an upload, SIGTERM must end the process (issue 26). Before, it logged
 * "stopping" and then waited forever on the request stuck on the dead KV.
 */
import assert from "node:assert/strict";
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { startMain } from "../helpers/process.ts";
import { startDenoKv } from "../helpers/denokv_server.ts";
import { startS3Server } from "../helpers/s3_server.ts";

/** Far above the 10 s grace and the few seconds after it: only a hang reaches it. */
const HANG = 90_000;

Deno.test("SIGTERM ends main.ts mid-upload after denokv and S3 were killed", async () => {
  const denokv = await startDenoKv();
  const s3 = await startS3Server();
  let kvAlive = true;
  try {
    const bucket = await s3.newBucket();
    const main = await startMain({
      DRIVE_KV: denokv.url,
      ...denokv.env,
      ...s3.env(bucket),
      DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    let exited = false;
    try {
      const admin = new AdminClient(main.url, ADMIN_TOKEN);
      const tenant = await admin.createTenant("stranded-org");
      const user = await admin.createUser(tenant.id, "stranded");
      const key = await admin.createKey(user.userSeq);

      // An upload that sends 20 MiB (two parts went to S3) and then waits for more.
      const boundary = "----stranded";
      const enc = new TextEncoder();
      let sent = 0;
      let sentEnough: () => void = () => {};
      const enough = new Promise<void>((r) => (sentEnough = r));
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode(
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.bin"\r\n` +
              `Content-Type: application/octet-stream\r\n\r\n`,
          ));
        },
        async pull(c) {
          if (sent >= 20 * 1024 * 1024) {
            sentEnough();
            return await new Promise(() => {}); // stalls: the request stays in flight
          }
          c.enqueue(new Uint8Array(1024 * 1024).fill(7));
          sent += 1024 * 1024;
        },
      });
      const upload = fetch(`${main.url}/api/external/v1/files`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": `multipart/form-data; boundary=${boundary}`,
        },
        body,
      }).then((r) => r.body?.cancel(), () => {});
      await enough;
      await new Promise((r) => setTimeout(r, 500));
      kvAlive = false;
      await denokv.stop();
      s3.kill();

      const stopped = main.stop().then((status) => {
        exited = true;
        return status;
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const status = await Promise.race([
        stopped,
        new Promise<null>((r) => (timer = setTimeout(() => r(null), HANG))),
      ]);
      clearTimeout(timer);
      assert.ok(status, "main.ts did not exit after SIGTERM");
      assert.match(main.output(), /SIGTERM: stopping/);
      await upload;
    } finally {
      if (!exited) await main.kill();
    }
  } finally {
    await s3.stop();
    if (kvAlive) await denokv.stop();
  }
});
