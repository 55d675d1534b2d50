import assert from "node:assert/strict";
import { ConfigError, readConfig } from "./config.ts";

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
});

Deno.test("Deno Deploy defaults: managed KV and the kv blob store", () => {
  const c = readConfig({ DENO_DEPLOYMENT_ID: "abc" });
  assert.equal(c.kvPath, "");
  assert.equal(c.blobStore, "kv");
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
    { DRIVE_BLOB_STORE: "s3" },
    { DRIVE_PROVIDER_MAX_DOC_BYTES: "314572801" },
    { DRIVE_OFFICE_STRICT_USER: "maybe" },
    { DRIVE_PUBLIC_URL: "not a url" },
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
