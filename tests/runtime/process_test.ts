import assert from "node:assert/strict";
import { withServer, withTwoServersOnOneKv } from "../helpers/server.ts";
import { newApiUser } from "../helpers/api.ts";
import { MAIN, startMain } from "../helpers/process.ts";

Deno.test("first start prints the admin token once; later starts reuse its stored hash; SIGTERM exits 0", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-main-" });
  try {
    const first = await startMain({ DRIVE_DATA_DIR: dir });
    const token = /"adminToken":"([^"]+)"/.exec(first.out)?.[1];
    assert.ok(token, `no token in: ${first.out}`);
    const health = await fetch(`${first.url}/healthz`);
    assert.deepEqual(await health.json(), { status: "ok" });
    const ok = await fetch(`${first.url}/admin/api/tenants`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(ok.status, 200);
    await ok.body?.cancel();
    assert.equal((await first.stop()).code, 0);

    // The KV file holds only the token's hash, never the token.
    const kvBytes = await Deno.readFile(`${dir}/drive.kv`);
    assert.equal(new TextDecoder("latin1").decode(kvBytes).includes(token), false);

    const second = await startMain({ DRIVE_DATA_DIR: dir });
    assert.doesNotMatch(second.out, /admin token/);
    const again = await fetch(`${second.url}/admin/api/tenants`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(again.status, 200);
    await again.body?.cancel();
    const wrong = await fetch(`${second.url}/admin/api/tenants`, {
      headers: { authorization: "Bearer nope" },
    });
    assert.equal(wrong.status, 401);
    assert.equal((await wrong.json()).error, "AUTH_004");
    assert.equal((await second.stop()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** main.ts run to its end on `env` (in-memory KV, any port): its exit code and stderr. */
async function runMainToExit(env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env: { PORT: "0", DRIVE_KV: ":memory:", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

Deno.test("a bad configuration value stops start-up with a message naming the variable", async () => {
  const out = await runMainToExit({ DRIVE_BLOB_STORE: "s3" });
  assert.equal(out.code, 2);
  assert.match(out.stderr, /DRIVE_BLOB_STORE/);
});

Deno.test("an invalid HOST is a configuration error (exit 2, one line), not a stack trace", async () => {
  const out = await runMainToExit({ HOST: "not a host" });
  // It reached Deno.listen, whose URIError ended the process with a stack trace (exit 1).
  assert.equal(out.code, 2);
  assert.equal(
    out.stderr.trim(),
    'configuration error: HOST must be an IP address or a host name, got "not a host"',
  );
});

Deno.test("a HOST name that does not resolve is one line and exit 3, not a stack trace", async () => {
  const out = await runMainToExit({ HOST: "no-such-host.invalid" });
  assert.equal(out.code, 3);
  assert.match(out.stderr, /cannot listen on no-such-host\.invalid: .* \(HOST\)/);
  assert.doesNotMatch(out.stderr, /\bat .*\.ts:\d+/, "no stack trace");
});

Deno.test("SIGTERM to `deno task start` stops the server too (what a service file should run)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "drive-task-" });
  try {
    const main = await startMain({ DRIVE_DATA_DIR: dir }, { task: "start" });
    const res = await fetch(`${main.url}/healthz`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
    // The task runner passes the signal on; `npx -y deno@... task start` does not (npm's own
    // process takes it and exits, leaving the server running: docs/deploy.md).
    assert.equal((await main.stop()).code, 0);
    await assert.rejects(fetch(`${main.url}/healthz`), TypeError, "the server still answers");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("admin API: tenants, users, keys; bad bodies name the field; keys are shown once and revocable", async () => {
  await withServer(async (server) => {
    const { admin } = server;
    const anon = await fetch(`${server.url}/admin/api/tenants`);
    assert.equal(anon.status, 401);
    await anon.body?.cancel();

    const tenant = await admin.createTenant("Acme");
    assert.ok(Number.isInteger(tenant.id) && tenant.id > 0);
    assert.equal((await admin.call("GET", "/tenants")).body.items.length, 1);

    const noName = await admin.call("POST", "/tenants", {});
    assert.equal(noName.status, 400);
    assert.equal(noName.body.error, "REQUEST_001");
    assert.equal(noName.body.field, "name");

    const user = await admin.createUser(tenant.id, "alice");
    assert.equal(user.quotaBytes, server.config.defaultQuotaBytes);
    const refusedUsers: [string, Record<string, unknown>, number, string?][] = [
      ["accountId taken, in any case", { accountId: "ALICE", email: "other@example.com" }, 409],
      ["email taken", { accountId: "bob", email: "alice@example.com" }, 409],
      ["email invalid", { accountId: "carol", email: "nope" }, 400, "email"],
      ["no such tenant", { tenantId: 999, accountId: "dan", email: "d@example.com" }, 404],
    ];
    for (const [what, body, status, field] of refusedUsers) {
      const res = await admin.call("POST", "/users", { tenantId: tenant.id, name: "x", ...body });
      assert.equal(res.status, status, what);
      if (field) assert.equal(res.body.field, field, what);
    }

    const patched = await admin.call("PATCH", `/users/${user.userSeq}`, { quotaBytes: 1234 });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.quotaBytes, 1234);
    assert.equal(patched.body.usedBytes, 0);
    const listed = await admin.call("GET", `/users?tenantId=${tenant.id}`);
    assert.deepEqual(listed.body.items.map((u: { accountId: string }) => u.accountId), ["alice"]);

    const created = await admin.call("POST", "/keys", {
      userSeq: user.userSeq,
      scopes: ["api:write"],
      label: "ci",
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.scopes, ["api:read", "api:write"], "write implies read");
    const keys = await admin.call("GET", `/keys?userSeq=${user.userSeq}`);
    assert.equal(keys.body.items.length, 1);
    assert.equal(
      // The whole secret: it may hold "_", so a split would keep only a short fragment.
      JSON.stringify(keys.body).includes(
        created.body.apiKey.slice(`drv_${created.body.keyId}_`.length),
      ),
      false,
      "no secret in listings",
    );
    const badScope = await admin.call("POST", "/keys", {
      userSeq: user.userSeq,
      scopes: ["api:admin"],
    });
    assert.equal(badScope.status, 400);

    const apiKey = created.body.apiKey as string;
    const before = await fetch(`${server.url}/api/external/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ fn: "x" }),
    });
    assert.equal(before.status, 201);
    await before.body?.cancel();
    assert.equal((await admin.call("DELETE", `/keys/${created.body.keyId}`)).status, 204);
    const after = await fetch(`${server.url}/api/external/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ fn: "y" }),
    });
    assert.equal(after.status, 401);
    assert.equal((await after.json()).errorCode, "AUTH_002");
  });
});

Deno.test("two app instances on one KV file behave as one service", async () => {
  await withTwoServersOnOneKv(async (a, b) => {
    const alice = await newApiUser(a, "alice");
    // The key issued through A authenticates on B, and B sees A's folder name as taken.
    const viaA = await alice.call("POST", "/folders", { fn: "Shared" });
    assert.equal(viaA.status, 201);
    const onB = await fetch(`${b.url}/api/external/v1/folders`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ fn: "shared" }),
    });
    assert.equal(onB.status, 409);
    await onB.body?.cancel();

    // Racing creations of one name through both instances: exactly one wins.
    const tenant = alice.tenantId;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).admin.call("POST", "/users", {
          tenantId: tenant,
          accountId: "racer",
          email: `racer${i}@example.com`,
          name: "r",
        })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    assert.ok(results.every((r) => r.status === 201 || r.status === 409));
  });
});

Deno.test("unknown paths answer 404 in each area's own error format", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const ext = await alice.call("GET", "/no-such-endpoint");
    assert.equal(ext.status, 404);
    assert.equal(ext.body.errorCode, "REQUEST_004");
    assert.equal(ext.body.result, false);
    const adm = await server.admin.call("GET", "/no-such-endpoint");
    assert.equal(adm.status, 404);
    assert.equal(adm.body.error, "ADMIN_001");
  });
});
