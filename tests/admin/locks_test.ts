import assert from "node:assert/strict";
import { acquireLock } from "../../kv/tree/locks.ts";
import { withServer } from "../helpers/server.ts";
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { type ApiUser, newApiUser, uploadAs } from "../helpers/api.ts";

function editorCall(user: ApiUser, op: "lock" | "unlock" | "put", rs: number, body?: string) {
  const qs = new URLSearchParams({
    docId: `${user.userSeq}-${rs}`,
    app: "WORD_EDITOR",
    user_id: user.accountId,
    ...(body !== undefined ? { size: String(new TextEncoder().encode(body).byteLength) } : {}),
  });
  return user.fetch(`/web-office/${user.userSeq}/${op}?${qs}`, {
    method: op === "put" ? "PUT" : "POST",
    body,
  });
}

Deno.test("admin lists editor and provider locks, force-releases one and records who did", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rsA = await uploadAs(server, alice, "report.docx", "content");
    const rsB = await uploadAs(server, alice, "budget.xlsx", "content");
    const lockRes = await editorCall(alice, "lock", rsA);
    assert.equal(lockRes.status, 200);
    await lockRes.body?.cancel();
    await acquireLock(server.kv, {
      rs: rsB,
      owner: "provider:host1:someone",
      source: "provider",
      holder: "host1",
      ttlMs: null,
    });

    const list = await server.admin.call("GET", "/locks");
    assert.equal(list.status, 200);
    interface LockItem {
      resourceSeq: number;
      resourceName: string;
      ownerSeq: number;
      owner: string;
      source: string;
      holder: string;
      lockedAt: string;
      expiresAt: string | null;
    }
    const items: LockItem[] = list.body.items;
    const bySeq = new Map(items.map((l) => [l.resourceSeq, l]));
    assert.equal(bySeq.size, 2);
    const a = bySeq.get(rsA)!;
    assert.equal(a.resourceName, "report.docx");
    assert.equal(a.ownerSeq, alice.userSeq);
    assert.equal(a.owner, `office:${alice.userSeq}`);
    assert.equal(a.source, "office");
    assert.equal(a.holder, "alice");
    assert.ok(Date.parse(a.expiresAt!) > Date.parse(a.lockedAt));
    const b = bySeq.get(rsB)!;
    assert.equal(b.source, "provider");
    assert.equal(b.holder, "host1");
    assert.equal(b.expiresAt, null);

    const released = await server.admin.call("DELETE", `/locks/${rsA}`, {
      releasedBy: "ops@example.com",
    });
    assert.equal(released.status, 200);
    assert.equal(released.body.resourceSeq, rsA);
    assert.equal(released.body.releasedBy, "ops@example.com");
    assert.ok(Date.parse(released.body.releasedAt) > 0);
    assert.equal(released.body.lock.owner, `office:${alice.userSeq}`);

    // A bare DELETE is recorded as "admin".
    const bare = await fetch(`${server.url}/admin/api/locks/${rsB}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(bare.status, 200);
    assert.equal((await bare.json()).releasedBy, "admin");

    assert.deepEqual((await server.admin.call("GET", "/locks")).body.items, []);
    const releases = await server.admin.call("GET", "/locks/releases");
    assert.equal(releases.status, 200);
    const who = new Map(
      releases.body.items.map((r: { resourceSeq: number; releasedBy: string }) => [
        r.resourceSeq,
        r.releasedBy,
      ]),
    );
    assert.equal(who.get(rsA), "ops@example.com");
    assert.equal(who.get(rsB), "admin");

    // The released document can be saved and locked again by anyone with access.
    const put = await editorCall(alice, "put", rsB, "after release");
    assert.equal(put.status, 200);
    await put.body?.cancel();
    const again = await editorCall(alice, "lock", rsB);
    assert.equal(again.status, 200);
    await again.body?.cancel();
  });
});

Deno.test("force-release failures: no live lock, bad seq, bad body, no admin token", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await uploadAs(server, alice, "a.docx", "content");
    const none = await server.admin.call("DELETE", `/locks/${rs}`);
    assert.equal(none.status, 404);
    assert.equal(none.body.error, "LOCK_001");
    const bad = await server.admin.call("DELETE", "/locks/abc");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.field, "resourceSeq");
    const lockRes = await editorCall(alice, "lock", rs);
    assert.equal(lockRes.status, 200);
    await lockRes.body?.cancel();
    const empty = await server.admin.call("DELETE", `/locks/${rs}`, { releasedBy: "" });
    assert.equal(empty.status, 400);
    assert.match(empty.body.message, /releasedBy/);
    const extra = await server.admin.call("DELETE", `/locks/${rs}`, { force: true });
    assert.equal(extra.status, 400);
    const anon = await fetch(`${server.url}/admin/api/locks`);
    assert.equal(anon.status, 401);
    await anon.body?.cancel();
    // None of the failures released the lock.
    assert.equal((await server.admin.call("GET", "/locks")).body.items.length, 1);
  });
});

Deno.test("expired editor leases are not listed and cannot be force-released", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await uploadAs(server, alice, "a.docx", "content");
    const lockRes = await editorCall(alice, "lock", rs);
    assert.equal(lockRes.status, 200);
    await lockRes.body?.cancel();
    assert.equal((await server.admin.call("GET", "/locks")).body.items.length, 1);
    // The lease (3 s, so a loaded machine cannot end it before the listing above) runs out by
    // itself: wait for that, bounded, rather than for a fixed time.
    const deadline = Date.now() + 15_000;
    while ((await server.admin.call("GET", "/locks")).body.items.length > 0) {
      assert.ok(Date.now() < deadline, "the expired lease is still listed after 15 s");
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await server.admin.call("DELETE", `/locks/${rs}`)).status, 404);
  }, { env: { DRIVE_OFFICE_LOCK_TTL_S: "3" } });
});
