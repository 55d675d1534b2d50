import assert from "node:assert/strict";
import { ConfigError, effectiveConfig, kvLocation, readConfig, usesDataDir } from "./config.ts";
import { withConfigTable } from "./scripts/gen_config_docs.ts";

Deno.test("every variable has a working default", () => {
  const c = readConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.host, "0.0.0.0");
  assert.equal(c.dataDir, "./data");
  assert.equal(c.kvPath, "./data/drive.kv");
  assert.equal(c.blobStore, "fs");
  assert.equal(c.adminToken, null);
  assert.equal(c.publicUrl, "http://localhost:8000");
  assert.equal(c.providerMaxDocBytes, 314_572_800);
  assert.equal(c.defaultQuotaBytes, 10_737_418_240);
  assert.equal(c.officeLockTtlSeconds, 1800);
  assert.equal(c.officeStrictUser, false);
  assert.equal(c.headerTimeoutMs, 10_000);
  assert.equal(c.bodyIdleTimeoutMs, 30_000);
  assert.equal(c.keepAliveTimeoutMs, 60_000);
  assert.equal(c.maxConnections, 4096);
});

Deno.test("Deno Deploy defaults: managed KV and the kv blob store", () => {
  const c = readConfig({ DENO_DEPLOYMENT_ID: "abc", DRIVE_SECRETS_KEY: btoa("k".repeat(32)) });
  assert.equal(c.kvPath, "");
  assert.equal(c.blobStore, "kv");
  assert.equal(usesDataDir(c), false);
});

Deno.test("a remote KV requires DRIVE_SECRETS_KEY; a local or in-memory one does not", () => {
  for (const env of [{ DENO_DEPLOYMENT_ID: "abc" }, { DRIVE_KV: "https://kv.example/connect" }]) {
    assert.throws(() => readConfig(env), /DRIVE_SECRETS_KEY is required with a remote KV/);
  }
  assert.equal(readConfig({ DRIVE_KV: ":memory:" }).secretsKey, null);
  assert.equal(readConfig({}).secretsKey, null);
});

Deno.test("usesDataDir: Deploy mode is a remote or in-memory KV with the kv blob store", () => {
  assert.equal(kvLocation(""), "remote");
  assert.equal(kvLocation("https://api.deno.com/databases/x/connect"), "remote");
  assert.equal(kvLocation(":memory:"), "memory");
  assert.equal(kvLocation("./data/drive.kv"), "file");
  assert.equal(usesDataDir({ kvPath: ":memory:", blobStore: "kv" }), false);
  assert.equal(usesDataDir({ kvPath: "", blobStore: "kv" }), false);
  assert.equal(usesDataDir({ kvPath: ":memory:", blobStore: "fs" }), true);
  assert.equal(usesDataDir({ kvPath: "./data/drive.kv", blobStore: "kv" }), true);
});

Deno.test("derived defaults follow PORT and DRIVE_DATA_DIR", () => {
  const c = readConfig({
    PORT: "9100",
    DRIVE_DATA_DIR: "/srv/drive",
    DRIVE_PUBLIC_URL: "https://drive.example.com/",
  });
  assert.equal(c.kvPath, "/srv/drive/drive.kv");
  assert.equal(c.publicUrl, "https://drive.example.com");
  assert.equal(readConfig({ PORT: "9100" }).publicUrl, "http://localhost:9100");
});

Deno.test("invalid values are refused with the variable named", () => {
  const cases: Record<string, string>[] = [
    { PORT: "eighty" },
    { PORT: "70000" },
    // Bug: an invalid HOST reached Deno.listen, whose URIError was a stack trace (exit 1).
    { HOST: "not a host" },
    { HOST: "drive.example.com:8000" },
    { DRIVE_BLOB_STORE: "s4" },
    // s3 without its endpoint, bucket or credentials.
    { DRIVE_BLOB_STORE: "s3" },
    { DRIVE_BLOB_STORE: "s3", DRIVE_S3_ENDPOINT: "http://127.0.0.1:9000" },
    { DRIVE_S3_ENDPOINT: "ftp://x", DRIVE_BLOB_STORE: "s3", DRIVE_S3_BUCKET: "b" },
    { DRIVE_PROVIDER_MAX_DOC_BYTES: "314572801" },
    { DRIVE_OFFICE_STRICT_USER: "maybe" },
    { DRIVE_PUBLIC_URL: "not a url" },
    { DRIVE_HEADER_TIMEOUT_MS: "0" },
    { DRIVE_BODY_IDLE_TIMEOUT_MS: "10s" },
    { DRIVE_KEEPALIVE_TIMEOUT_MS: "-1" },
    { DRIVE_MAX_CONNECTIONS: "0" },
    { DRIVE_WRITE_LEASE_RENEW_MS: "0" },
    // A lease must reach at least three renewals ahead.
    { DRIVE_WRITE_LEASE_EXPIRY_MS: "20000" },
  ];
  for (const env of cases) {
    const name = Object.keys(env)[0];
    assert.throws(
      () => readConfig(env),
      (err) => err instanceof ConfigError && err.message.includes(name),
      name,
    );
  }
  assert.equal(readConfig({ DRIVE_PROVIDER_MAX_DOC_BYTES: "1000" }).providerMaxDocBytes, 1000);
});

Deno.test("DRIVE_TRUSTED_PROXIES: empty by default, addresses and CIDR ranges of both families", () => {
  assert.deepEqual(readConfig({}).trustedProxies, []);
  assert.deepEqual(readConfig({ DRIVE_TRUSTED_PROXIES: " " }).trustedProxies, []);
  const ranges = readConfig({ DRIVE_TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.7,::1,2001:db8::/32" })
    .trustedProxies;
  // Address bits / prefix of each range.
  const shapes = ranges.map((r) => `${r.bytes.length * 8}/${r.prefix}`);
  assert.deepEqual(shapes, ["32/8", "32/32", "128/128", "128/32"]);
  for (const bad of ["10.0.0.0/33", "proxy.internal", "10.0.0.1,", "10.0.0.0/8;10.1.0.0/16"]) {
    assert.throws(
      () => readConfig({ DRIVE_TRUSTED_PROXIES: bad }),
      (err) => err instanceof ConfigError && err.message.includes("DRIVE_TRUSTED_PROXIES"),
      bad,
    );
  }
});

Deno.test("HOST: an IPv4 or IPv6 address (bracketed or not) or a host name", () => {
  for (const host of ["127.0.0.1", "::1", "[::1]", "localhost", "drive-1.internal", "0.0.0.0"]) {
    assert.equal(readConfig({ HOST: host }).host, host);
  }
});

Deno.test("the README's configuration table is the one config.ts generates (deno task docs)", async () => {
  const readme = await Deno.readTextFile(new URL("./README.md", import.meta.url));
  assert.equal(readme, withConfigTable(readme), "stale: run `deno task docs`");
});

Deno.test("effectiveConfig: every variable with its source; secrets are never shown", () => {
  const rows = effectiveConfig({
    PORT: "9000",
    DRIVE_ADMIN_TOKEN: "adm_secret",
    DRIVE_SECRETS_KEY: btoa("k".repeat(32)),
  });
  const byName = new Map(rows.map((r) => [r.name, r]));
  assert.deepEqual(byName.get("PORT"), {
    name: "PORT",
    value: "9000",
    from: "environment",
    secret: false,
  });
  assert.equal(byName.get("DRIVE_PUBLIC_URL")?.value, "http://localhost:9000");
  assert.equal(byName.get("DRIVE_PUBLIC_URL")?.from, "default");
  assert.equal(byName.get("DRIVE_ADMIN_TOKEN")?.value, "(set, not shown)");
  assert.equal(byName.get("DRIVE_METRICS_TOKEN")?.value, undefined);
  assert.ok(!JSON.stringify(rows).includes("adm_secret"));
  assert.ok(!JSON.stringify(rows).includes(btoa("k".repeat(32))));
  // A bad value is a ConfigError, as for readConfig.
  assert.throws(() => effectiveConfig({ PORT: "x" }), ConfigError);
});
