/**
 * A real `denokv` server (KV Connect, the self-hosted Deno KV) for the multi-process tests: one
 * per call, on 127.0.0.1, over a fresh SQLite file, with a test access token. `.ci/run` builds
 * the binary once (`cargo install denokv --locked`) and caches it under
 * $HOME/.cache/drive-ci/bin; `DENOKV_BIN` names another.
 *
 * `sharedKv` is what the two-process helpers use: a KV file by default, or a denokv server
 * when DRIVE_TEST_KV=denokv, so the same tests run against both (docs/scale-out.md).
 */

/** The token every test server uses: Deno reads it from DENO_KV_ACCESS_TOKEN when it connects. */
export const DENOKV_TEST_TOKEN = "drive-test-denokv-token-0123456789";
/** A fixed key every process of one test shares (a remote KV requires one: config.ts). */
const TEST_SECRETS_KEY = btoa(String.fromCharCode(...new Uint8Array(32).fill(7)));

/** Where the denokv binary is, or null when it is not installed. */
export function denokvBinary(): string | null {
  const home = Deno.env.get("HOME") ?? "/root";
  const candidates = [
    Deno.env.get("DENOKV_BIN"),
    `${home}/.cache/drive-ci/bin/denokv`,
    `${home}/.cargo/bin/denokv`,
  ];
  for (const path of candidates) {
    if (!path) continue;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not there */ }
  }
  return null;
}

/** Whether the tests are asked to run on denokv (DRIVE_TEST_KV=denokv). */
export function testsWantDenokv(): boolean {
  return Deno.env.get("DRIVE_TEST_KV") === "denokv";
}

export interface DenoKvServer {
  /** The KV Connect URL for DRIVE_KV. */
  url: string;
  /** What a server process needs beside DRIVE_KV (the token, the shared secrets key). */
  env: Record<string, string>;
  /** Its SQLite file (what `admin backup --kv-file` copies). */
  sqlitePath: string;
  stop(): Promise<void>;
}

function freePort(hostname: string): number {
  const l = Deno.listen({ hostname, port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * Starts denokv on a fresh SQLite file and waits until it answers. `host`: the address it listens
 * on (the two-host tests put it on their bridge, tests/helpers/netns.ts).
 */
export async function startDenoKv({ host = "127.0.0.1" } = {}): Promise<DenoKvServer> {
  const bin = denokvBinary();
  if (!bin) throw new Error("denokv is not installed (cargo install denokv --locked)");
  const dir = await Deno.makeTempDir({ prefix: "drive-denokv-" });
  const port = freePort(host);
  const child = new Deno.Command(bin, {
    args: [
      "--sqlite-path",
      `${dir}/denokv.sqlite`,
      "serve",
      "--access-token",
      DENOKV_TEST_TOKEN,
      "--addr",
      `${host}:${port}`,
    ],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://${host}:${port}`;
  // In-process servers (startTestServer) connect with this process's environment.
  Deno.env.set("DENO_KV_ACCESS_TOKEN", DENOKV_TEST_TOKEN);
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const kv = await Deno.openKv(url);
      await kv.get(["denokv_ready"]);
      kv.close();
      break;
    } catch (err) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await child.status;
        throw new Error(`denokv did not answer on ${url}: ${err}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    env: { DENO_KV_ACCESS_TOKEN: DENOKV_TEST_TOKEN, DRIVE_SECRETS_KEY: TEST_SECRETS_KEY },
    sqlitePath: `${dir}/denokv.sqlite`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

export interface SharedKv {
  /** DRIVE_KV for every process of the test. */
  kvPath: string;
  /** Extra environment for every process (empty for a KV file). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** One KV that several processes share: a file in `dir`, or denokv (DRIVE_TEST_KV=denokv). */
export async function sharedKv(dir: string): Promise<SharedKv> {
  if (!testsWantDenokv()) return { kvPath: `${dir}/drive.kv`, env: {}, close: async () => {} };
  const server = await startDenoKv();
  return { kvPath: server.url, env: server.env, close: () => server.stop() };
}
