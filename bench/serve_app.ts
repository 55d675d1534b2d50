/**
 * The real app (fs blob store, KV file) for bench/upload_download.ts, started by boot() and
 * served by serve() (with the connection limits) as main.ts does.
 * Usage: deno run -A bench/serve_app.ts <dir> <admin token> (prints "PORT <n>" when listening)
 */
import { boot } from "../boot.ts";
import { readConfig } from "../config.ts";
import { serve } from "../serve.ts";

const [dir, adminTokenValue] = Deno.args;
const service = await boot(readConfig({
  DRIVE_DATA_DIR: dir,
  DRIVE_KV: `${dir}/drive.kv`,
  DRIVE_BLOB_STORE: "fs",
  DRIVE_LIST_WORKERS: Deno.env.get("DRIVE_LIST_WORKERS"),
  DRIVE_ADMIN_TOKEN: adminTokenValue,
}));

serve(service.app, service.config, {
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`PORT ${port}`),
});
