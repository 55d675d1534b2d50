/**
 * Deno Deploy mode (docs/deploy.md): with a `:memory:` KV and the kv blob store the service
 * writes nothing to disk, so it starts and serves under exactly
 * `--allow-net --allow-env --allow-read`, as on Deploy; a generated admin token is never printed;
 * adapter secrets are sealed without a key file. A remote KV without DRIVE_SECRETS_KEY is refused
 * at start with a one-line message.
 */
import assert from "node:assert/strict";
import { baseEnv, ROOT, SMOKE_ADMIN_TOKEN, smokeWalk, startService } from "./smoke.ts";

const DEPLOY_PERMISSIONS = ["--allow-net", "--allow-env", "--allow-read"];
const MAIN = `${ROOT}main.ts`;

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

Deno.test("Deploy mode: :memory: KV and kv blobs serve under --allow-net --allow-env --allow-read, and nothing is written to disk", async () => {
  const parent = await Deno.makeTempDir({ prefix: "drive-deploy-" });
  // Named but never created: the service must not need it.
  const dataDir = `${parent}/data`;
  try {
    const service = await startService(Deno.execPath(), ["run", ...DEPLOY_PERMISSIONS, MAIN], {
      ...baseEnv(),
      DRIVE_KV: ":memory:",
      DRIVE_BLOB_STORE: "kv",
      DRIVE_DATA_DIR: dataDir,
      DRIVE_ADMIN_TOKEN: SMOKE_ADMIN_TOKEN,
    });
    try {
      await smokeWalk(service.url);
      // An adapter seals its secret: with no data directory, no secrets.key is needed.
      const res = await fetch(`${service.url}/admin/api/adapters`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${SMOKE_ADMIN_TOKEN}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ name: "office", userSeq: 1 }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      assert.equal(typeof (await res.json()).secret, "string");
    } finally {
      const status = await service.stop();
      assert.equal(status.code, 0, service.output());
    }
    assert.equal(await exists(dataDir), false, "DRIVE_DATA_DIR was created");
    assert.deepEqual([...Deno.readDirSync(parent)], [], "something was written beside it");
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("Deploy mode: a generated admin token is not printed; the start says how to get one", async () => {
  const service = await startService(Deno.execPath(), ["run", ...DEPLOY_PERMISSIONS, MAIN], {
    ...baseEnv(),
    DRIVE_KV: ":memory:",
    DRIVE_BLOB_STORE: "kv",
    DRIVE_LOG_LEVEL: "info",
  });
  await service.stop();
  const out = service.output();
  assert.doesNotMatch(out, /adm_[A-Za-z0-9_-]{20,}/, "a token was printed");
  assert.match(out, /not printed/);
  assert.match(out, /reset-admin-token/);
});

Deno.test("Deploy mode: a remote KV without DRIVE_SECRETS_KEY exits 2 with one line naming the variable", async () => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...DEPLOY_PERMISSIONS, MAIN],
    cwd: ROOT,
    clearEnv: true,
    // Refused while reading the configuration, before any connection is tried.
    env: { ...baseEnv(), DRIVE_KV: "http://127.0.0.1:9/kv", DRIVE_BLOB_STORE: "kv" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stderr) + new TextDecoder().decode(stdout);
  assert.equal(code, 2, text);
  assert.match(text, /DRIVE_SECRETS_KEY is required with a remote KV/);
  assert.doesNotMatch(text, /\n\s+at /, "a stack trace");
});
