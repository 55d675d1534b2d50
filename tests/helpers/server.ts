/**
 * Test harness, server side: the real app (built by boot()) on a real Deno KV (`:memory:` or a
 * temp file) served over HTTP on 127.0.0.1, with the admin client that drives it.
 */
import { boot } from "../../boot.ts";
import type { BlobStore } from "../../blobs/store.ts";
import { type Config, readConfig } from "../../config.ts";
import type { Deps } from "../../kv/deps.ts";
import { serve } from "../../serve.ts";
import { ADMIN_TOKEN, AdminClient } from "./admin.ts";
import { sharedKv } from "./denokv_server.ts";

export interface TestServer {
  url: string;
  deps: Deps;
  kv: Deno.Kv;
  blobs: BlobStore;
  config: Config;
  admin: AdminClient;
  close(): Promise<void>;
}

export interface ServerOptions {
  blobStore?: "fs" | "kv";
  /** A KV file path to share between two servers; default `:memory:`. */
  kvPath?: string;
  /** Extra environment variables for readConfig. */
  env?: Record<string, string>;
}

export async function startTestServer(opts: ServerOptions = {}): Promise<TestServer> {
  const dataDir = await Deno.makeTempDir({ prefix: "drive-test-" });
  const config = readConfig({
    DRIVE_DATA_DIR: dataDir,
    DRIVE_KV: opts.kvPath ?? ":memory:",
    DRIVE_BLOB_STORE: opts.blobStore ?? "fs",
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    ...opts.env,
  });
  const service = await boot(config);
  const { kv, blobs, app } = service;
  const deps: Deps = service;
  const ac = new AbortController();
  // Served as main.ts serves (serve.ts, with its connection limits); closing cuts at once.
  const server = serve(app, config, {
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    graceMs: 0,
  });
  service.metrics.countConnectionsWith(() => server.connections);
  service.metrics.countServedWith(() => server.counts);
  const port = server.addr.port;
  const url = `http://127.0.0.1:${port}`;
  // Links the service builds must point at this server.
  config.publicUrl = opts.env?.DRIVE_PUBLIC_URL ?? url;
  return {
    url,
    deps,
    kv,
    blobs,
    config,
    admin: new AdminClient(url),
    async close() {
      ac.abort();
      await server.finished;
      service.close();
      await Deno.remove(dataDir, { recursive: true }).catch(() => {});
    },
  };
}

/** Runs `fn` with a fresh server (fs blobs) that is closed afterwards. */
export async function withServer<T>(
  fn: (server: TestServer) => Promise<T>,
  opts: ServerOptions = {},
): Promise<T> {
  const server = await startTestServer(opts);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/**
 * Runs `fn` with two app instances on one KV, as two processes of one service would run: one
 * KV file, or one denokv server with DRIVE_TEST_KV=denokv (tests/helpers/denokv_server.ts);
 * both are closed and the KV removed afterwards.
 */
export async function withTwoServersOnOneKv(
  fn: (a: TestServer, b: TestServer) => Promise<void>,
  opts: Omit<ServerOptions, "kvPath"> = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "drive-shared-kv-" });
  const kv = await sharedKv(dir);
  try {
    const env = { ...kv.env, ...opts.env };
    const a = await startTestServer({ ...opts, env, kvPath: kv.kvPath });
    try {
      const b = await startTestServer({ ...opts, env, kvPath: kv.kvPath });
      try {
        await fn(a, b);
      } finally {
        await b.close();
      }
    } finally {
      await a.close();
    }
  } finally {
    await kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Runs `fn` against a fresh server per blob store, so both back ends are exercised. */
export function forEachBlobStore(
  name: string,
  fn: (server: TestServer) => Promise<void>,
): void {
  for (const blobStore of ["fs", "kv"] as const) {
    Deno.test(`${name} [${blobStore} blobs]`, () => withServer(fn, { blobStore }));
  }
}

/** Blob files of the fs blob store (finished ones and leftover temp parts). */
export async function fsBlobFiles(
  server: TestServer,
): Promise<{ blobs: string[]; temp: string[] }> {
  const root = `${server.config.dataDir}/blobs`;
  const out = { blobs: [] as string[], temp: [] as string[] };
  for await (const dir of Deno.readDir(root)) {
    if (!dir.isDirectory) continue;
    for await (const f of Deno.readDir(`${root}/${dir.name}`)) {
      (dir.name === "tmp" ? out.temp : out.blobs).push(f.name);
    }
  }
  return out;
}
