/**
 * Adapters in the admin API (runtime-and-admin.md): create with a generated or given secret
 * (shown once), list without secrets, delete, rotate, validation errors, secrets encrypted at
 * rest, and the connection test against this server and against a misbehaving provider.
 */
import assert from "node:assert/strict";
import { OPTIONAL_OPERATIONS } from "../../kv/adapters/operations.ts";
import { withServer } from "../helpers/server.ts";
import { newProviderAdapter, providerRawRequest } from "../helpers/provider.ts";

Deno.test("POST /admin/api/adapters: generated secret of 32 random bytes shown once, list and get without secrets", async () => {
  await withServer(async (server) => {
    const tenant = await server.admin.createTenant("t");
    const user = await server.admin.createUser(tenant.id, "owner");
    const created = await server.admin.call("POST", "/adapters", {
      name: "office-1",
      userSeq: user.userSeq,
    });
    assert.equal(created.status, 201);
    assert.equal(created.body.name, "office-1");
    assert.equal(created.body.folderSeq, null);
    assert.equal(created.body.readOnly, false);
    // No `operations` given: all optional ones, in canonical order (the list itself is pinned
    // against the protocol by the 501 test in tests/provider/drive_test.ts).
    assert.deepEqual(created.body.operations, [...OPTIONAL_OPERATIONS]);
    assert.match(created.body.secret, /^[A-Za-z0-9_-]{43}$/, "base64url of 32 bytes");
    const second = await server.admin.call("POST", "/adapters", {
      name: "office-2",
      userSeq: user.userSeq,
    });
    assert.notEqual(second.body.secret, created.body.secret);
    const list = await server.admin.call("GET", "/adapters");
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items.map((a: { name: string }) => a.name).sort(), [
      "office-1",
      "office-2",
    ]);
    assert.ok(list.body.items.every((a: Record<string, unknown>) => !("secret" in a)));
    const one = await server.admin.call("GET", "/adapters/office-1");
    assert.equal(one.status, 200);
    assert.equal("secret" in one.body, false);
    // A given secret is used as is.
    const given = "g".repeat(32);
    const withSecret = await server.admin.call("POST", "/adapters", {
      name: "given",
      userSeq: user.userSeq,
      secret: given,
      operations: ["list"],
      readOnly: true,
    });
    assert.equal(withSecret.status, 201);
    assert.equal(withSecret.body.secret, given);
    assert.deepEqual(withSecret.body.operations, ["list"]);
  });
});

Deno.test("Adapter secrets are encrypted at rest: no KV value holds the secret, and the key file is mode 0600", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "sealed");
    for await (const entry of server.kv.list({ prefix: [] })) {
      assert.equal(
        JSON.stringify(entry.value).includes(ad.secret),
        false,
        JSON.stringify(entry.key),
      );
    }
    const stat = await Deno.stat(`${server.config.dataDir}/secrets.key`);
    assert.equal(stat.mode! & 0o777, 0o600);
    // And the sealed secret still verifies requests.
    assert.equal((await ad.client.info([])).ok, true);
  });
});

Deno.test("Adapter validation: duplicate name 409, short secret, lock/unlock split, foreign or missing folder, bad name and unknown user", async () => {
  await withServer(async (server) => {
    const a = await newProviderAdapter(server, "dup");
    const other = await newProviderAdapter(server, "other");
    assert.equal((await other.client.mkdir([], "theirs")).ok, true);
    assert.equal((await a.client.put(["file.txt"], new Uint8Array(1))).ok, true);
    const { findChildByName } = await import("../../kv/tree/resources.ts");
    const theirs = (await findChildByName(server.kv, other.userSeq, null, "theirs"))!;
    const file = (await findChildByName(server.kv, a.userSeq, null, "file.txt"))!;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ name: "dup", userSeq: a.userSeq }, 409, "ADAPTER_002"],
      [{ name: "short", userSeq: a.userSeq, secret: "s".repeat(31) }, 400, "ADAPTER_004"],
      [{ name: "short2", userSeq: a.userSeq, secret: "é".repeat(15) }, 400, "ADAPTER_004"],
      [{ name: "split", userSeq: a.userSeq, operations: ["lock", "put"] }, 400, "ADAPTER_003"],
      [{ name: "foreign", userSeq: a.userSeq, folderSeq: theirs.rs }, 400, "ADAPTER_005"],
      [{ name: "afile", userSeq: a.userSeq, folderSeq: file.rs }, 400, "ADAPTER_005"],
      [{ name: "missing", userSeq: a.userSeq, folderSeq: 999_999 }, 400, "ADAPTER_005"],
      [{ name: "-bad", userSeq: a.userSeq }, 400, "REQUEST_001"],
      [{ name: "a".repeat(129), userSeq: a.userSeq }, 400, "REQUEST_001"],
      [{ name: "ok", userSeq: a.userSeq, operations: ["info"] }, 400, "REQUEST_001"],
      [{ name: "ok", userSeq: a.userSeq, extra: 1 }, 400, "REQUEST_001"],
      [{ name: "ok", userSeq: 999_999 }, 404, "USER_001"],
    ];
    for (const [body, status, code] of cases) {
      const r = await server.admin.call("POST", "/adapters", body);
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.error, code, JSON.stringify(body));
    }
    // 128 characters is the longest name allowed.
    const longest = await server.admin.call("POST", "/adapters", {
      name: "a".repeat(128),
      userSeq: a.userSeq,
    });
    assert.equal(longest.status, 201);
  });
});

Deno.test("DELETE and rotate-secret: a deleted adapter is 401, the old secret stops working at once, the new one is shown once", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "rot");
    assert.equal((await ad.client.info([])).ok, true);
    const rotated = await server.admin.call("POST", "/adapters/rot/rotate-secret");
    assert.equal(rotated.status, 200);
    assert.equal(rotated.body.name, "rot");
    assert.notEqual(rotated.body.secret, ad.secret);
    const old = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/info",
    });
    assert.equal(old!.status, 401);
    const fresh = await providerRawRequest(
      server.url,
      { name: "rot", secret: rotated.body.secret },
      {
        method: "GET",
        target: "/doc-storage/v1/info",
      },
    );
    assert.equal(fresh!.status, 200);
    const given = await server.admin.call("POST", "/adapters/rot/rotate-secret", {
      secret: "k".repeat(40),
    });
    assert.equal(given.body.secret, "k".repeat(40));
    assert.equal(
      (await server.admin.call("POST", "/adapters/rot/rotate-secret", { secret: "k" })).body.error,
      "ADAPTER_004",
    );
    assert.equal((await server.admin.call("POST", "/adapters/nope/rotate-secret")).status, 404);

    assert.equal((await server.admin.call("DELETE", "/adapters/rot")).status, 204);
    assert.equal((await server.admin.call("DELETE", "/adapters/rot")).body.error, "ADAPTER_001");
    const gone = await providerRawRequest(server.url, { name: "rot", secret: "k".repeat(40) }, {
      method: "GET",
      target: "/doc-storage/v1/info",
    });
    assert.equal(gone!.status, 401);
    assert.equal((await server.admin.call("GET", "/adapters")).body.items.length, 0);
  });
});

Deno.test("POST /admin/api/adapters/{name}/test: lists the root through the host client against this server", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "conn");
    assert.equal((await ad.client.mkdir([], "Docs")).ok, true);
    const r = await server.admin.call("POST", "/adapters/conn/test", {});
    assert.equal(r.status, 200);
    assert.equal(r.body.ok, true);
    assert.equal(r.body.status, 200);
    assert.equal(typeof r.body.durationMs, "number");
    assert.deepEqual(r.body.problems, []);
    assert.deepEqual(r.body.entries.map((e: { path: string }) => e.path), ["Docs"]);
    // An adapter without list: a valid unsupported declaration, reported as such.
    await newProviderAdapter(server, "nolist", { userSeq: ad.userSeq, operations: ["put"] });
    const nolist = await server.admin.call("POST", "/adapters/nolist/test");
    assert.equal(nolist.body.ok, true);
    assert.equal(nolist.body.status, 501);
    assert.equal(nolist.body.unsupported, true);
    assert.equal((await server.admin.call("POST", "/adapters/none/test", {})).status, 404);
    const badUrl = await server.admin.call("POST", "/adapters/conn/test", {
      baseUrl: "http://u:p@host/x",
    });
    assert.equal(badUrl.status, 400);
    assert.equal(badUrl.body.error, "REQUEST_001");
  });
});

Deno.test("Connection test against a misbehaving provider reports status and every problem", async () => {
  const bad = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    const body = JSON.stringify({
      entries: [
        {
          path: "a",
          name: "a",
          type: "file",
          size: -1,
          readable: true,
          writable: true,
          locked: false,
          extra: 1,
        },
        {
          path: "x/b",
          name: "b",
          type: "folder",
          size: 0,
          readable: "yes",
          writable: true,
          locked: false,
        },
      ],
    });
    return new Response(body, { headers: { "content-type": "text/html" } });
  });
  try {
    await withServer(async (server) => {
      await newProviderAdapter(server, "remote");
      const r = await server.admin.call("POST", "/adapters/remote/test", {
        baseUrl: `http://127.0.0.1:${bad.addr.port}/prefix/`,
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.ok, false);
      assert.equal(r.body.status, 200);
      assert.ok(
        r.body.problems.some((p: string) => /Content-Type "text\/html"/.test(p)),
        r.body.problems,
      );
      // With the media type right, the schema problems are all listed.
      const unreachable = await server.admin.call("POST", "/adapters/remote/test", {
        baseUrl: "http://127.0.0.1:1",
      });
      assert.equal(unreachable.body.ok, false);
      assert.equal(unreachable.body.status, null);
      assert.match(unreachable.body.problems[0], /request failed/);
    });
  } finally {
    await bad.shutdown();
  }
});

Deno.test("DRIVE_SECRETS_KEY: must be 32 bytes of base64; when set, no key file is written and secrets still work", async () => {
  const { ConfigError, readConfig } = await import("../../config.ts");
  for (const bad of ["short", btoa("x".repeat(31)), btoa("x".repeat(33)), "!!!"]) {
    assert.throws(() => readConfig({ DRIVE_SECRETS_KEY: bad }), ConfigError, bad);
  }
  const key = btoa("k".repeat(32));
  assert.equal(readConfig({ DRIVE_SECRETS_KEY: key }).secretsKey?.byteLength, 32);
  assert.equal(readConfig({}).secretsKey, null);
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "envkey");
    assert.equal((await ad.client.list([])).ok, true);
    await assert.rejects(Deno.stat(`${server.config.dataDir}/secrets.key`), Deno.errors.NotFound);
  }, { env: { DRIVE_SECRETS_KEY: key } });
});

Deno.test("Deleting an adapter releases the locks it held (provider locks have no lease)", async () => {
  await withServer(async (server) => {
    const keep = await newProviderAdapter(server, "keep");
    const gone = await newProviderAdapter(server, "gone", { userSeq: keep.userSeq });
    for (const [c, name] of [[keep.client, "a.txt"], [gone.client, "b.txt"]] as const) {
      assert.equal((await c.put([name], new TextEncoder().encode(name))).ok, true);
    }
    assert.equal((await keep.client.lock(["a.txt"], "s1")).ok, true);
    assert.equal((await gone.client.lock(["b.txt"], "s2")).ok, true);
    assert.equal((await server.admin.call("GET", "/locks")).body.items.length, 2);

    assert.equal((await server.admin.call("DELETE", "/adapters/gone")).status, 204);
    const left = (await server.admin.call("GET", "/locks")).body.items;
    assert.deepEqual(left.map((l: { holder: string }) => l.holder), ["s1"]);
  });
});
