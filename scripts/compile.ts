/**
 * `deno task compile [--output PATH]`: builds the one self-contained executable (default
 * dist/drive) that serves the service and runs the admin CLI (`drive admin <command>`), with
 * static/ (the browser build and the document templates) embedded: the modules that
 * read them resolve paths against import.meta.url, which in the binary points into the embedded
 * file system. See docs/deploy.md.
 *
 * `deno compile` fetches its base runtime (denort) from Deno's download host on first use and
 * caches it; DENORT_BIN names a local one instead (machines without that host).
 */

/**
 * What the binary may do; the same set tests/runtime/compile_test.ts starts main.ts under, so a
 * missing permission shows in a test. write: the data directory and the CLI's backup files.
 */
export const BINARY_PERMISSIONS = [
  "--allow-net",
  "--allow-env",
  "--allow-read",
  "--allow-write",
  // statfs: the free space behind DRIVE_KV_RESERVE_BYTES and /readyz's DRIVE_MIN_FREE_BYTES.
  "--allow-sys=statfs",
] as const;

/**
 * Files of npm packages left out of the binary, relative to the npm cache. Deno 2.9's compile
 * overflows its stack on bintrees' 200,000-line test data (reached through prom-client → tdigest;
 * denoland/deno#36746 is the open report of that regression); the package never reads it.
 */
const NPM_EXCLUDES = ["registry.npmjs.org/bintrees/1.0.2/test"];

export const DEFAULT_OUTPUT = "dist/drive";

async function npmCacheDir(): Promise<string> {
  const { stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const info = JSON.parse(new TextDecoder().decode(stdout)) as { npmCache?: string };
  if (!info.npmCache) throw new Error("deno info --json named no npm cache");
  return info.npmCache;
}

/** The `deno compile` arguments for `output`, run from the repository root. */
export async function compileArgs(output: string): Promise<string[]> {
  const npmCache = await npmCacheDir();
  return [
    "compile",
    ...BINARY_PERMISSIONS,
    // Only the npm packages main.ts reaches: test-only packages in the lockfile stay out.
    "--exclude-unused-npm",
    "--include",
    "static/",
    // Started as a Worker by URL (provider/list_pool.ts), so not reached through an import.
    "--include",
    "provider/list_worker.ts",
    ...NPM_EXCLUDES.flatMap((rel) => ["--exclude", `${npmCache}/${rel}`]),
    "--output",
    output,
    "main.ts",
  ];
}

function outputArg(args: string[]): string {
  const at = args.indexOf("--output");
  if (at === -1) return DEFAULT_OUTPUT;
  const value = args[at + 1];
  if (!value) {
    console.error("usage: deno task compile [--output PATH]");
    Deno.exit(2);
  }
  return value;
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url).pathname;
  const output = outputArg(Deno.args);
  const started = performance.now();
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: await compileArgs(output),
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) Deno.exit(code);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`compiled ${output} in ${seconds} s`);
}
