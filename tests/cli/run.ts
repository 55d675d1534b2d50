/**
 * Runs the admin CLI as its own process (`deno run -A cli/main.ts ...`, what `deno task admin`
 * runs) against the KV and data directory a test names, and captures what it printed.
 */
import { startTestServer, type TestServer } from "../helpers/server.ts";

export const CLI_MAIN = new URL("../../cli/main.ts", import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  // deno-lint-ignore no-explicit-any
  json(): any;
}

/** The environment of a CLI (or server) on a KV file and data directory of its own. */
export interface CliEnv {
  DRIVE_DATA_DIR: string;
  DRIVE_KV: string;
  DRIVE_BLOB_STORE?: string;
  [name: string]: string | undefined;
}

/** A fresh data directory with its KV file inside; remove it with `Deno.remove(dir, {recursive})`. */
export async function freshEnv(blobStore: "fs" | "kv" = "fs"): Promise<CliEnv> {
  const dir = await Deno.makeTempDir({ prefix: "drive-cli-test-" });
  return { DRIVE_DATA_DIR: dir, DRIVE_KV: `${dir}/kv.sqlite3`, DRIVE_BLOB_STORE: blobStore };
}

export async function runCli(env: CliEnv, ...args: string[]): Promise<CliRun> {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) vars[k] = v;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, ...args],
    env: { NO_COLOR: "1", ...vars },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  return {
    code: out.code,
    stdout,
    stderr,
    json() {
      try {
        return JSON.parse(stdout);
      } catch {
        throw new Error(`not JSON (exit ${out.code}): ${stdout}\n${stderr}`);
      }
    },
  };
}

/** Runs the CLI and fails unless it exited with `code`; returns the run. */
export async function expectCli(env: CliEnv, code: number, ...args: string[]): Promise<CliRun> {
  const run = await runCli(env, ...args);
  if (run.code !== code) {
    throw new Error(
      `admin ${args.join(" ")}: exit ${run.code}, expected ${code}\n${run.stdout}\n${run.stderr}`,
    );
  }
  return run;
}

/**
 * Runs `fn` with a server serving the KV file and data directory of a fresh CLI environment (the
 * CLI then works on the data the server serves); both are removed afterwards.
 */
export async function withCliServer(
  fn: (env: CliEnv, server: TestServer) => Promise<void>,
): Promise<void> {
  const env = await freshEnv();
  const server = await startTestServer({
    kvPath: env.DRIVE_KV,
    env: { DRIVE_DATA_DIR: env.DRIVE_DATA_DIR },
  });
  try {
    await fn(env, server);
  } finally {
    await server.close();
    await Deno.remove(env.DRIVE_DATA_DIR, { recursive: true }).catch(() => {});
  }
}
