/**
 * The real app (fs blob store, KV file) for bench/upload_download.ts, wired like main.ts.
 * Usage: deno run -A bench/serve_app.ts <dir> <admin token>   (prints "PORT <n>" when listening)
 */
import { createApp } from "../app.ts";
import { openFsBlobStore } from "../blobs/fs.ts";
import { readConfig } from "../config.ts";
import { initAdminToken } from "../kv/admin_token.ts";

const [dir, adminTokenValue] = Deno.args;
const config = readConfig({
  DRIVE_DATA_DIR: dir,
  DRIVE_KV: `${dir}/drive.kv`,
  DRIVE_BLOB_STORE: "fs",
  DRIVE_ADMIN_TOKEN: adminTokenValue,
});
const kv = await Deno.openKv(config.kvPath);
const blobs = await openFsBlobStore(`${dir}/blobs`);
const adminToken = await initAdminToken(kv, config.adminToken);
const app = createApp({ kv, blobs, config, adminToken: adminToken.check });

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`PORT ${port}`),
}, app.fetch);
