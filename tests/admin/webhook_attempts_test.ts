/**
 * A webhook delivery keeps each attempt (issue 21, bug 11), as Svix and GitHub show them: its
 * time, the status or the network error, the duration, the first KiB of the answer and when the
 * next try is due, newest first, in the deliveries list and in GET .../deliveries/{deliveryId}.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import type { AdminClient } from "../helpers/admin.ts";

const ENV = {
  DRIVE_WEBHOOK_ALLOW_PRIVATE: "true",
  DRIVE_WEBHOOK_RETRY_BASE_MS: "100",
  DRIVE_WEBHOOK_RETRY_WINDOW_S: "1",
};

// deno-lint-ignore no-explicit-any
type Delivery = any;

/** Reads the delivery until `done` holds (bounded). */
async function waitFor(
  admin: AdminClient,
  path: string,
  done: (d: Delivery) => boolean,
): Promise<Delivery> {
  for (let i = 0; i < 200; i++) {
    const res = await admin.call("GET", path);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (done(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} never reached the awaited state`);
}

Deno.test("each attempt of a delivery is kept: status, error, duration, answer, next retry", async () => {
  const answers = [
    () => new Response("é".repeat(1500), { status: 503 }),
    () => new Response("thanks", { status: 200 }),
  ];
  const receiver = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => (answers.shift() ?? (() => new Response("ok")))(),
  );
  try {
    await withServer(async (server) => {
      const hook = await server.admin.call("POST", "/webhooks", {
        url: `http://127.0.0.1:${receiver.addr.port}/hook`,
        events: ["created"],
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const queued = await server.admin.call("POST", `/webhooks/${hook.body.id}/test`);
      assert.equal(queued.status, 202, JSON.stringify(queued.body));
      assert.deepEqual(queued.body.attemptLog, []);
      const path = `/webhooks/${hook.body.id}/deliveries/${queued.body.id}`;
      const d = await waitFor(server.admin, path, (x) => x.status === "delivered");
      assert.equal(d.attempts, 2);
      const [second, first] = d.attemptLog;
      assert.equal(d.attemptLog.length, 2);
      assert.equal(first.status, 503);
      assert.equal(first.error, "answered 503");
      assert.ok(first.nextAttemptAt !== null && Date.parse(first.nextAttemptAt) > 0);
      // 1 KiB of the answer at most, cut on a character boundary.
      assert.ok(new TextEncoder().encode(first.response).byteLength <= 1024);
      assert.match(first.response, /^é{500,}$/);
      assert.equal(typeof first.durationMs, "number");
      assert.ok(Date.parse(first.at) <= Date.parse(second.at));
      assert.deepEqual(
        [second.status, second.error, second.response, second.nextAttemptAt],
        [200, null, "thanks", null],
      );
      // The list shows the same attempts.
      const page = await server.admin.call("GET", `/webhooks/${hook.body.id}/deliveries`);
      assert.deepEqual(page.body.items[0].attemptLog, d.attemptLog);
      const unknown = await server.admin.call(
        "GET",
        `/webhooks/${hook.body.id}/deliveries/${"0".repeat(36)}`,
      );
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error, "WEBHOOK_002");
    }, { env: ENV });
  } finally {
    await receiver.shutdown();
  }
});

Deno.test("an attempt that gets no answer records the network error and no status", async () => {
  // A port nothing listens on: bound, then closed.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await withServer(async (server) => {
    const hook = await server.admin.call("POST", "/webhooks", {
      url: `http://127.0.0.1:${port}/gone`,
      events: ["*"],
    });
    const queued = await server.admin.call("POST", `/webhooks/${hook.body.id}/test`);
    const path = `/webhooks/${hook.body.id}/deliveries/${queued.body.id}`;
    const d = await waitFor(server.admin, path, (x) => x.attemptLog.length >= 1);
    const [attempt] = d.attemptLog.slice(-1);
    assert.equal(attempt.status, null);
    assert.match(attempt.error, /could not connect/);
    assert.equal(attempt.response, null);
  }, { env: ENV });
});
