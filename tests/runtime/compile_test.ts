/**
 * The one binary (`deno task compile`, scripts/compile.ts): built, then started with a data
 * directory of its own and walked through health, the admin API, an upload and its download,
 * the console shell and a template (static/ embedded). .ci/run builds it once and names it in
 * DRIVE_BINARY; run alone, this test builds it into a temporary directory.
 *
 * `deno compile` needs its base runtime (denort), downloaded from Deno's host on first use.
 * Where that host is out of reach and no denort is cached or named by DENORT_BIN, the test is
 * ignored, saying so, rather than failing on the machine's network.
 */
import assert from "node:assert/strict";
import { BINARY_PERMISSIONS, compileArgs, DEFAULT_OUTPUT } from "../../scripts/compile.ts";
import { baseEnv, ROOT, SMOKE_ADMIN_TOKEN, smokeWalk, startService } from "./smoke.ts";

/** Where `deno compile` caches denort for this Deno, as its download code names it. */
async function cachedDenort(): Promise<string | null> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  }).output();
  const { denoDir } = JSON.parse(new TextDecoder().decode(stdout)) as { denoDir: string };
  const zip = `${denoDir}/dl/release/v${Deno.version.deno}/denort-${Deno.build.target}.zip`;
  return await Deno.stat(zip).then(() => zip, () => null);
}

const prebuilt = Deno.env.get("DRIVE_BINARY") ?? null;
const canBuild = Boolean(Deno.env.get("DENORT_BIN")) || (await cachedDenort()) !== null;
const ignore = !prebuilt && !canBuild;
if (ignore) {
  console.warn(
    "compile_test: ignored: no DRIVE_BINARY, no DENORT_BIN and no cached denort " +
      "(run `deno task compile` once where Deno's download host is reachable)",
  );
}

async function buildBinary(dir: string): Promise<string> {
  const output = `${dir}/drive`;
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["task", "compile", "--output", output],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return output;
}

/**
 * Starts `command args` from `dir` with its data in `dir/data`, walks the smoke path and
 * expects a clean stop: started from another directory, nothing may be read from the checkout.
 */
async function walkServiceIn(dir: string, command: string, args: string[]): Promise<void> {
  const service = await startService(
    command,
    args,
    { ...baseEnv(), DRIVE_DATA_DIR: `${dir}/data`, DRIVE_ADMIN_TOKEN: SMOKE_ADMIN_TOKEN },
    30_000,
    dir,
  );
  try {
    await smokeWalk(service.url);
  } finally {
    const status = await service.stop();
    assert.equal(status.code, 0, service.output());
  }
}

Deno.test({
  name:
    "compiled binary: serves from its own data dir with static/ embedded; health, admin, upload, download",
  ignore,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "drive-binary-" });
    try {
      const binary = prebuilt ?? await buildBinary(dir);
      await walkServiceIn(dir, binary, []);
      // The data lives where it was told to: the KV file and the blobs.
      assert.ok((await Deno.stat(`${dir}/data/drive.kv`)).isFile);
      assert.ok((await Deno.stat(`${dir}/data/blobs`)).isDirectory);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("main.ts under exactly the binary's permissions, from another directory, serves the same walk", async () => {
  // What the binary may do is fixed at compile time; this catches a permission it lacks even
  // where no binary can be built.
  const dir = await Deno.makeTempDir({ prefix: "drive-binary-perms-" });
  try {
    await walkServiceIn(
      dir,
      Deno.execPath(),
      ["run", `--config=${ROOT}deno.json`, ...BINARY_PERMISSIONS, `${ROOT}main.ts`],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compile task: builds to dist/drive by default, with the binary's permissions", async () => {
  assert.equal(DEFAULT_OUTPUT, "dist/drive");
  const args = await compileArgs("out/x");
  for (const flag of BINARY_PERMISSIONS) assert.ok(args.includes(flag), flag);
  assert.ok(!args.includes("-A") && !args.includes("--allow-all"));
  // static/ embedded; only reachable npm packages; main.ts is the entry.
  assert.equal(args[args.indexOf("--include") + 1], "static/");
  assert.ok(args.includes("--exclude-unused-npm"));
  assert.deepEqual(args.slice(-3), ["--output", "out/x", "main.ts"]);
});
