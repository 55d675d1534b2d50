/** Composition root: config, KV, blob store, app, serve. Nothing else belongs here. */
import { createApp } from "./app.ts";
import { openFsBlobStore } from "./blobs/fs.ts";
import { openKvBlobStore } from "./blobs/kv.ts";
import { ConfigError, readConfig } from "./config.ts";
import { initAdminToken } from "./kv/admin_token.ts";
import { indexLocksByOwner } from "./kv/locks.ts";

let config;
try {
  config = readConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    Deno.exit(2);
  }
  throw err;
}

if (config.blobStore === "fs" || (config.kvPath !== "" && !config.kvPath.includes("://"))) {
  await Deno.mkdir(config.dataDir, { recursive: true });
}
const kv = await Deno.openKv(config.kvPath || undefined);
const blobs = config.blobStore === "fs"
  ? await openFsBlobStore(`${config.dataDir}/blobs`)
  : openKvBlobStore(kv);
const adminToken = await initAdminToken(kv, config.adminToken);
await indexLocksByOwner(kv);
const app = createApp({ kv, blobs, config, adminToken: adminToken.check });

const controller = new AbortController();
const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  signal: controller.signal,
  onListen: ({ hostname, port }) => {
    const shown = hostname === "0.0.0.0" ? "localhost" : hostname;
    console.log(`drive listening on http://${shown}:${port}`);
    if (adminToken.generated) {
      console.log(`admin token (shown once, store it now): ${adminToken.generated}`);
    }
  },
}, app.fetch);

async function shutdown(signal: string) {
  console.log(`${signal}: stopping`);
  controller.abort();
  // Requests in flight get 10 s to finish.
  await Promise.race([server.finished, new Promise((r) => setTimeout(r, 10_000))]);
  kv.close();
  Deno.exit(0);
}
for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => shutdown(sig));
