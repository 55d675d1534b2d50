/**
 * Two hosts as one service, for real (issue 26, item 4): main.ts in two network namespaces, each
 * on its own IP, both on one denokv and one SeaweedFS bucket (tests/scale/two_hosts.ts). What one
 * host does, the other sees at once and honours: reads, JWT replay, locks, quota, the change
 * feed, webhook deliveries and tus uploads.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { testBytes } from "../helpers/bytes.ts";
import { fetchFrom } from "../helpers/netns.ts";
import { newProviderAdapter, providerRawRequest } from "../helpers/provider.ts";
import { tusUpload } from "../helpers/tus.ts";
import { until } from "../helpers/wait.ts";
import { ProviderHostClient } from "../../provider/host/client.ts";
import { getUsage } from "../../kv/tree/usage.ts";
import { webhookOutboxKey } from "../../kv/keys.ts";
import { LOCKINFO } from "../dav/locks_helpers.ts";
import { basicOf } from "../dav/client.ts";
import { deliveryCounter, type Host, PORT_A, withTwoHosts } from "./two_hosts.ts";

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

Deno.test("two hosts in two network namespaces are one service", async (t) => {
  await withTwoHosts(async (c) => {
    const { a, b } = c;
    await t.step("host A is reachable by its IP from B, by loopback only inside A", async () => {
      const seen = {
        viaLoopbackInA: await fetchFrom(c.net.a, `http://127.0.0.1:${PORT_A}/healthz`),
        viaIpFromB: await fetchFrom(c.net.b, `${a.url}/healthz`),
        viaLoopbackFromB: await fetchFrom(c.net.b, `http://127.0.0.1:${PORT_A}/healthz`),
      };
      assert.deepEqual(seen, {
        viaLoopbackInA: "200",
        viaIpFromB: "200",
        viaLoopbackFromB: "refused",
      });
    });

    await t.step("read-after-write: a file written on A reads on B at once", async () => {
      const { onA, onB } = await c.newUser("raw");
      const bytes = testBytes(300_000, 3);
      const rs = await onA.newFile("at-once.bin", bytes);
      const res = await onB.fetch(`/files/${rs}/download`);
      assert.equal(res.status, 200);
      assert.equal(sha(new Uint8Array(await res.arrayBuffer())), sha(bytes));
    });

    await t.step("a provider JWT is accepted once across both hosts, then refused", async () => {
      const ad = await newProviderAdapter(a, "twin");
      const jwt = ad.client.signedHeaders("info", [], { bytes: null })["x-doc-storage-request-jwt"];
      const send = (h: Host) =>
        providerRawRequest(h.url, ad, { method: "GET", target: "/doc-storage/v1/info", jwt });
      // Four copies on each host at once: one answer in eight is 200.
      const answers = await Promise.all([a, b, a, b, a, b, a, b].map(send));
      assert.deepEqual(answers.map((r) => r!.status).sort(), [
        200,
        401,
        401,
        401,
        401,
        401,
        401,
        401,
      ]);
      assert.equal((await send(b))!.status, 401, "and B refuses it afterwards");
      const fresh = await providerRawRequest(b.url, ad, {
        method: "GET",
        target: "/doc-storage/v1/info",
      });
      assert.equal(fresh!.status, 200, "B serves a fresh JWT of the adapter A created");
    });

    await t.step("a provider lock taken on A refuses a conflicting lock on B", async () => {
      const ad = await newProviderAdapter(a, "locker");
      const onB = new ProviderHostClient({ baseUrl: b.url, adapter: ad.name, secret: ad.secret });
      assert.equal((await ad.client.put(["doc.docx"], new TextEncoder().encode("x"))).ok, true);
      assert.equal((await ad.client.lock(["doc.docx"], "session-A")).status, 204);
      assert.equal((await onB.lock(["doc.docx"], "session-B")).status, 409);
      assert.equal((await onB.unlock(["doc.docx"], "session-A")).status, 204, "its owner on B");
      assert.equal((await onB.lock(["doc.docx"], "session-B")).status, 204);
    });

    await t.step("a WebDAV LOCK on A refuses a PUT on B without its token", async () => {
      const { onA, onB } = await c.newUser("davlock");
      await onA.newFile("locked.txt", "v1");
      const dav = (u: typeof onA, method: string, headers: Record<string, string>, body?: string) =>
        fetch(`${u.url}/dav/files/${u.accountId}/locked.txt`, {
          method,
          headers: { authorization: basicOf(u.accountId, u.apiKey), ...headers },
          body,
        });
      const lock = await dav(onA, "LOCK", {
        depth: "0",
        timeout: "Second-600",
        "content-type": "application/xml",
      }, LOCKINFO);
      await lock.body?.cancel();
      assert.equal(lock.status, 200);
      const token = lock.headers.get("lock-token")!;
      const refused = await dav(onB, "PUT", {}, "from B");
      await refused.body?.cancel();
      assert.equal(refused.status, 423);
      const withToken = await dav(onB, "PUT", { if: `(${token})` }, "from B");
      await withToken.body?.cancel();
      assert.equal(withToken.status, 204);
    });

    await t.step("an editor lock taken on A refuses a WebDAV write on B", async () => {
      const { onA, onB } = await c.newUser("editor");
      const rs = await onA.newFile("report.docx", "v1");
      const params = new URLSearchParams({
        docId: `${onA.userSeq}-${rs}`,
        app: "WORD_EDITOR",
        user_id: onA.accountId,
        lang: "en",
      });
      const lock = await onA.fetch(`/web-office/${onA.userSeq}/lock?${params}`, { method: "POST" });
      assert.equal(lock.status, 200, await lock.text());
      const put = await fetch(`${onB.url}/dav/files/${onB.accountId}/report.docx`, {
        method: "PUT",
        headers: { authorization: basicOf(onB.accountId, onB.apiKey) },
        body: "from B",
      });
      await put.body?.cancel();
      assert.equal(put.status, 423);
    });

    await t.step("quota is exact under concurrent uploads from both hosts", async () => {
      const size = 40_000;
      const { onA, onB } = await c.newUser("quota", 4 * size + size / 2); // room for four
      const results = await Promise.all(
        Array.from(
          { length: 10 },
          (_, i) => (i % 2 ? onB : onA).upload(`f${i}.bin`, testBytes(size, i + 1)),
        ),
      );
      const ok = results.filter((r) => r.status === 201);
      assert.deepEqual(
        results.filter((r) => r.status !== 201).map((r) => r.body.errorCode),
        Array(6).fill("RESOURCE_015"),
      );
      assert.equal(ok.length, 4, "exactly the uploads that fit succeed");
      const kv = await c.store.openKv();
      assert.equal(await getUsage(kv, onA.userSeq), 4 * size);
    });

    await t.step("a change-feed long-poll on B wakes for a change made on A", async () => {
      const { onA, onB } = await c.newUser("poll");
      const cursor = (await onB.call("GET", "/changes/cursor")).body.data.cursor;
      const answered = { yet: false };
      const waiting = onB.call("GET", `/changes/wait?cursor=${cursor}&timeout=20`)
        .then((r) => ({ r, at: performance.now() }))
        .finally(() => (answered.yet = true));
      // A round trip to B sent after the wait: B has the wait in hand by then (no fixed sleep),
      // and nothing has changed for it to answer.
      await onB.call("GET", "/changes/cursor");
      assert.equal(answered.yet, false, "the long-poll waits while nothing changed");
      await onA.newFolder("wake up");
      const committed = performance.now();
      const { r, at } = await waiting;
      assert.equal(r.status, 200);
      assert.equal(r.body.data.changes, true);
      // The requirement (issue 26): within 2 s of the commit, plus a margin for a busy machine.
      assert.ok(at - committed < 4000, `answered ${Math.round(at - committed)} ms after`);
    });

    await t.step("each webhook event made on either host is delivered once", async () => {
      const { onA, onB } = await c.newUser("hooks");
      const receiver = deliveryCounter(c.net.rootIp);
      try {
        const hook = await a.admin.call("POST", "/webhooks", {
          url: receiver.url,
          events: ["created"],
          tenantId: onA.tenantId,
        });
        assert.equal(hook.status, 201, JSON.stringify(hook.body));
        const events = 20;
        await Promise.all(
          Array.from({ length: events }, (_, i) => (i % 2 ? onB : onA).newFolder(`e${i}`)),
        );
        const kv = await c.store.openKv();
        // Done once every event arrived and no message is left in the outbox to send again.
        await until("every event delivered and the outbox empty", async () => {
          const left = await Array.fromAsync(kv.list({ prefix: webhookOutboxKey() }));
          return receiver.counts.size >= events && left.length === 0;
        }, 60_000);
        assert.equal(receiver.counts.size, events);
        assert.deepEqual([...new Set(receiver.counts.values())], [1], "each exactly once");
      } finally {
        await receiver.close();
      }
    });

    await t.step("a tus upload started on A is finished on B", async () => {
      const { onA, onB } = await c.newUser("tus");
      const bytes = testBytes(3 * 1024 * 1024 + 7, 9);
      const first = await tusUpload(onA, bytes, {
        chunkSize: 512 * 1024,
        metadata: { filename: "moved.bin" },
        abortAfter: 1024 * 1024,
      });
      assert.equal(first.outcome, "aborted", String(first.outcome));
      const onBUrl = `${b.url}${new URL(first.url!).pathname}`;
      const second = await tusUpload(onB, bytes, {
        uploadUrl: onBUrl,
        chunkSize: 512 * 1024,
        retryDelays: [100, 200, 400, 800],
      });
      assert.equal(second.outcome, "success", String(second.outcome));
      const done = await onB.fetch(new URL(onBUrl).pathname.replace("/api/external/v1", ""));
      const file = (await done.json()).data.file;
      const download = await onA.fetch(`/files/${file.resourceSeq}/download`);
      assert.equal(sha(new Uint8Array(await download.arrayBuffer())), sha(bytes));
      const meta = await onA.call("GET", `/resources/${file.resourceSeq}`);
      assert.equal(meta.body.data.sha256, sha(bytes));
    });
  });
});
