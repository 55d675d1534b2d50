/**
 * The admin CLI's identity commands, run as processes on the KV file a server is serving:
 * tenants, users and keys created, listed, disabled and enabled; a disabled key, user or tenant
 * stops its API keys and share links (AUTH_005, AUTH_006, LINK_005) and enabling brings them
 * back; the admin API's disable/enable routes; reset-admin-token on a running main.ts; usage
 * errors and exit codes.
 */
import assert from "node:assert/strict";
import { ApiUser, shareFlags } from "../helpers/api.ts";
import { AdminClient } from "../helpers/admin.ts";
import { startMain } from "../helpers/process.ts";
import { expectCli, freshEnv, runCli, withCliServer } from "./run.ts";

const publicLink = (url: string, token: string) =>
  fetch(`${url}/public/v1/links/${token}`).then(async (r) => ({
    status: r.status,
    body: await r.json(),
  }));

Deno.test("CLI identities: create and list; disabling a key, user or tenant stops its keys and links until enabled", async () => {
  await withCliServer(async (env, { url, admin }) => {
    const tenant = (await expectCli(env, 0, "tenants", "create", "--name", "Acme", "--json"))
      .json();
    const user = (await expectCli(
      env,
      0,
      ...["users", "create", "--tenant", String(tenant.id), "--account", "carol"],
      ...["--email", "carol@example.com", "--name", "Carol", "--json"],
    )).json();
    assert.equal(user.tenantId, tenant.id);
    assert.equal(user.disabledAt, null);
    const key = (await expectCli(
      env,
      0,
      ..."keys create --write --label sync --json --user".split(" "),
      String(user.userSeq),
    )).json();
    assert.deepEqual(key.scopes, ["api:read", "api:write"]);
    assert.match(key.apiKey, /^drv_/);

    // The listings see what the server sees, in JSON for scripts and as a table for people.
    const tenants = (await expectCli(env, 0, "tenants", "list", "--json")).json();
    assert.deepEqual(tenants.items.map((t: { id: number }) => t.id), [tenant.id]);
    const users =
      (await expectCli(env, 0, "users", "list", "--tenant", String(tenant.id), "--json"))
        .json();
    assert.deepEqual(users.items.map((u: { accountId: string }) => u.accountId), ["carol"]);
    const keys = (await expectCli(env, 0, "keys", "list", "--user", String(user.userSeq), "--json"))
      .json();
    assert.deepEqual(keys.items.map((k: { keyId: string }) => k.keyId), [key.keyId]);
    // drv_<keyId>_<secret>, where the secret may itself hold "_" (a split would keep a fragment
    // short enough to turn up anywhere).
    const secret = key.apiKey.slice(`drv_${key.keyId}_`.length);
    assert.equal(secret.length, 43);
    assert.ok(!JSON.stringify(keys).includes(secret), "a listing shows a secret");
    const table = (await expectCli(env, 0, "users", "list")).stdout;
    assert.match(table, /carol@example\.com\s+enabled/);
    assert.equal((await admin.call("GET", `/users/${user.userSeq}`)).body.accountId, "carol");

    // The key works on the server, and so does a public link of the user's file.
    const carol = new ApiUser(url, user.userSeq, tenant.id, key.apiKey, "carol");
    const file = await carol.newFile("notes.txt", "hello");
    const share = await carol.newShare({ rs: file, st: "PUBLIC_LINK", ...shareFlags("cd") });
    const token = share.linkUrl.split("/s/")[1];
    const works = async () => {
      assert.equal((await carol.call("GET", "/resources")).status, 200);
      assert.equal((await publicLink(url, token)).status, 200);
    };
    await works();

    // A disabled key: refused with its own code; the link (not the key's) still opens.
    assert.match((await expectCli(env, 0, "keys", "disable", key.keyId)).stdout, /disabled/);
    const keyOff = await carol.call("GET", "/resources");
    assert.equal(keyOff.status, 401);
    assert.equal(keyOff.body.errorCode, "AUTH_005");
    assert.equal((await publicLink(url, token)).status, 200);
    await expectCli(env, 0, "keys", "enable", key.keyId);
    await works();

    // A disabled user: keys and links stop; the data stays.
    const off = (await expectCli(env, 0, "users", "disable", String(user.userSeq), "--json"))
      .json();
    assert.ok(off.disabledAt);
    const userOff = await carol.call("GET", "/resources");
    assert.equal(userOff.status, 403);
    assert.equal(userOff.body.errorCode, "AUTH_006");
    const linkOff = await publicLink(url, token);
    assert.equal(linkOff.status, 403);
    assert.equal(linkOff.body.errorCode, "LINK_005");
    assert.ok((await admin.call("GET", `/users/${user.userSeq}`)).body.disabledAt);
    await expectCli(env, 0, "users", "enable", String(user.userSeq));
    await works();

    // A disabled tenant: the same for every user of it.
    await expectCli(env, 0, "tenants", "disable", String(tenant.id));
    assert.equal((await carol.call("GET", "/resources")).body.errorCode, "AUTH_006");
    assert.equal((await publicLink(url, token)).body.errorCode, "LINK_005");
    assert.match((await expectCli(env, 0, "tenants", "list")).stdout, /Acme\s+disabled/);
    await expectCli(env, 0, "tenants", "enable", String(tenant.id));
    await works();
    const items = (await carol.call("GET", "/resources")).body.data.items;
    assert.deepEqual(items.map((i: { name: string }) => i.name), ["notes.txt"]);
  });
});

Deno.test("admin API: disable and enable tenants, users and keys; unknown ids and bad paths", async () => {
  await withCliServer(async (_env, { url, admin }) => {
    const tenant = await admin.createTenant("Beta");
    const user = await admin.createUser(tenant.id, "dave");
    const apiKey = await admin.createKey(user.userSeq);
    const keyId = apiKey.split("_")[1];
    const dave = new ApiUser(url, user.userSeq, tenant.id, apiKey, "dave");

    for (
      const [path, code] of [
        [`/keys/${keyId}`, "AUTH_005"],
        [`/users/${user.userSeq}`, "AUTH_006"],
        [`/tenants/${tenant.id}`, "AUTH_006"],
      ] as const
    ) {
      const off = await admin.call("POST", `${path}/disable`);
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.equal(typeof off.body.disabledAt, "string");
      assert.equal((await dave.call("GET", "/resources")).body.errorCode, code);
      const on = await admin.call("POST", `${path}/enable`);
      assert.equal(on.status, 200);
      assert.equal(on.body.disabledAt, null);
      assert.equal((await dave.call("GET", "/resources")).status, 200);
    }
    const missing = await admin.call("POST", "/users/999999/disable");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error, "USER_001");
    assert.equal((await admin.call("POST", "/tenants/999999/enable")).body.error, "TENANT_001");
    assert.equal((await admin.call("POST", "/keys/NoSuchKey/disable")).body.error, "KEY_001");
    const bad = await admin.call("POST", "/users/abc/disable");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, "REQUEST_001");
    const badKey = await admin.call("POST", "/keys/not-a-key-id!/disable");
    assert.equal(badKey.status, 400);
  });
});

Deno.test("CLI usage errors exit 2, refusals by the data 4, --help 0 on every level", async () => {
  const env = await freshEnv();
  try {
    const help = await expectCli(env, 0, "--help");
    assert.match(help.stdout, /Exit codes/);
    for (const cmd of ["tenants", "users", "keys"]) {
      assert.match((await expectCli(env, 0, cmd, "--help")).stdout, /disable/);
    }
    assert.match((await expectCli(env, 0, "fsck", "--help")).stdout, /--repair/);
    assert.match((await expectCli(env, 0, "users", "enable", "--help")).stdout, /userSeq/);

    assert.match((await expectCli(env, 2, "no-such-command")).stderr, /unknown command/);
    assert.match((await expectCli(env, 2, "users", "create", "--tenant", "1")).stderr, /--account/);
    assert.match((await expectCli(env, 2, "users", "disable", "abc")).stderr, /positive integer/);
    assert.match((await expectCli(env, 2, "keys", "disable", "no/such")).stderr, /keyId/);
    await expectCli(env, 0, "tenants", "create", "--name", "T");
    const badMail = await expectCli(
      env,
      2,
      ..."users create --tenant 1 --account x --email not-a-mail --name X".split(" "),
    );
    assert.match(badMail.stderr, /email/);

    const missing = await expectCli(env, 4, "users", "disable", "424242");
    assert.match(missing.stderr, /USER_001/);
    const noTenant = await expectCli(
      env,
      4,
      ..."users create --tenant 99 --account x --email x@example.com --name X".split(" "),
    );
    assert.match(noTenant.stderr, /TENANT_001/);
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true });
  }
});

Deno.test("reset-admin-token: a running server takes the new token at once, the old one stops", async () => {
  const env = await freshEnv();
  const server = await startMain({
    DRIVE_DATA_DIR: env.DRIVE_DATA_DIR,
    DRIVE_KV: env.DRIVE_KV,
    DRIVE_LOG_FORMAT: "text",
  });
  try {
    const first = /admin token generated \(shown once, store it now\) adminToken=(\S+)/.exec(
      server.out,
    )?.[1];
    assert.ok(first, `no generated token in: ${server.out}`);
    assert.equal((await new AdminClient(server.url, first).call("GET", "/tenants")).status, 200);

    const reset = (await expectCli(env, 0, "reset-admin-token", "--json")).json();
    assert.match(reset.adminToken, /^adm_/);
    assert.notEqual(reset.adminToken, first);
    const old = await new AdminClient(server.url, first).call("GET", "/tenants");
    assert.equal(old.status, 401);
    const now = await new AdminClient(server.url, reset.adminToken).call("GET", "/tenants");
    assert.equal(now.status, 200);

    // With DRIVE_ADMIN_TOKEN the variable is the token: nothing to reset.
    const refused = await runCli(
      { ...env, DRIVE_ADMIN_TOKEN: "configured-token-0123456789" },
      "reset-admin-token",
    );
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, /DRIVE_ADMIN_TOKEN/);
  } finally {
    await server.stop();
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true });
  }
});

Deno.test("users create --quota takes the console's units (5GiB, 512MiB, 2.5TiB) or bytes", async () => {
  const env = await freshEnv();
  try {
    const tenant = (await expectCli(env, 0, "tenants", "create", "--name", "Q", "--json")).json();
    const create = (account: string, quota: string) =>
      runCli(
        env,
        "users",
        "create",
        "--tenant",
        String(tenant.id),
        "--account",
        account,
        "--email",
        `${account}@example.com`,
        "--name",
        account,
        "--quota",
        quota,
        "--json",
      );
    // `--quota 5GiB` was Number("5GiB"): NaN, refused as not a number (bug 8).
    for (
      const [account, quota, bytes] of [
        ["gib", "5GiB", 5 * 1024 ** 3],
        ["mib", "512 MiB", 512 * 1024 ** 2],
        ["tib", "2.5TiB", 2.5 * 1024 ** 4],
        ["bytes", "1000", 1000],
      ] as const
    ) {
      const run = await create(account, quota);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.json().quotaBytes, bytes, quota);
    }
    const bad = await create("bad", "5GB");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /MiB, GiB, TiB/);
  } finally {
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true });
  }
});
