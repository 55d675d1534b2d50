/**
 * The S3 settings: what DRIVE_BLOB_STORE=s3 requires, and credentials from the environment or a
 * file, whose content no error ever quotes.
 */
import assert from "node:assert/strict";
import { ConfigError, effectiveConfig, readConfig } from "../config.ts";
import { S3CredentialsError, s3Settings } from "./storage.ts";

const BASE = {
  DRIVE_BLOB_STORE: "s3",
  DRIVE_S3_ENDPOINT: "http://127.0.0.1:8333/",
  DRIVE_S3_BUCKET: "drive",
};

Deno.test("s3 settings from the environment; the keys are masked by admin config", async () => {
  const env = {
    ...BASE,
    DRIVE_S3_ACCESS_KEY_ID: "AKID",
    DRIVE_S3_SECRET_ACCESS_KEY: "s3cr3t-value",
  };
  const c = readConfig(env);
  assert.deepEqual(await s3Settings(c), {
    endpoint: "http://127.0.0.1:8333",
    bucket: "drive",
    region: "us-east-1",
    pathStyle: true,
    accessKeyId: "AKID",
    secretAccessKey: "s3cr3t-value",
  });
  const shown = JSON.stringify(effectiveConfig(env));
  assert.ok(!shown.includes("s3cr3t-value") && !shown.includes("AKID"), shown);
});

Deno.test("s3 credentials from a file; a bad file is named without its content", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/s3.json`;
    const env = { ...BASE, DRIVE_S3_CREDENTIALS_FILE: file };
    await Deno.writeTextFile(file, JSON.stringify({ accessKeyId: "A", secretAccessKey: "B" }));
    const got = await s3Settings(readConfig(env));
    assert.equal(got.accessKeyId, "A");
    assert.equal(got.secretAccessKey, "B");
    for (const content of ['{"accessKeyId": "leak-me"', '{"accessKeyId": "leak-me"}']) {
      await Deno.writeTextFile(file, content);
      // Found by readConfig, so main.ts stops the start with one line (exit 2).
      assert.throws(
        () => readConfig(env),
        (err) =>
          err instanceof ConfigError && /DRIVE_S3_CREDENTIALS_FILE/.test(err.message) &&
          !err.message.includes("leak-me"),
      );
      // A file broken after readConfig checked it fails the store's opening the same way.
      const keys = { DRIVE_S3_ACCESS_KEY_ID: "x", DRIVE_S3_SECRET_ACCESS_KEY: "y" };
      const checked = readConfig({ ...env, ...keys, DRIVE_S3_CREDENTIALS_FILE: "" });
      const later = { ...checked, s3AccessKeyId: null, s3SecretAccessKey: null };
      await assert.rejects(
        () => s3Settings({ ...later, s3CredentialsFile: file }),
        (err) => err instanceof S3CredentialsError && !err.message.includes("leak-me"),
      );
    }
    // Both ways at once is refused at start, not resolved by a silent preference.
    assert.throws(
      () => readConfig({ ...env, DRIVE_S3_ACCESS_KEY_ID: "A" }),
      (err) => err instanceof ConfigError && /either/.test(err.message),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
