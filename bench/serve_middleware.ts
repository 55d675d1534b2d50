/**
 * A server for bench/middleware.ts: the real service (boot, serve.ts) in one of four set-ups
 * that differ only in the per-request ops middleware (api/ops/request_log.ts: request id, the
 * log line, the request metrics):
 * - `none`: the baseline, createApp without that middleware (`requestLog: false`; the event
 *   log's request scope is still opened);
 * - `error`: the whole app, logging at DRIVE_LOG_LEVEL=error (request lines dropped, metrics and
 *   ids kept);
 * - `info-json` and `info-text`: the whole app logging every request, as main.ts does, in each
 *   format. The lines go to this process's stdout (the bench sends it to /dev/null).
 * Usage: deno run -A bench/serve_middleware.ts <variant> <dir> <admin token>
 * (prints "PORT <n>" on stderr when listening)
 */
import { createApp } from "../app.ts";
import { boot } from "../boot.ts";
import { readConfig } from "../config.ts";
import { serve } from "../serve.ts";
import { configureLogging } from "../api/ops/logging.ts";
import { initAdminToken } from "../kv/identity/admin_token.ts";

export const VARIANTS = ["none", "error", "info-json", "info-text"] as const;
type Variant = typeof VARIANTS[number];

const [variant, dir, adminToken] = Deno.args as [Variant, string, string];
if (!VARIANTS.includes(variant)) throw new Error(`variant must be one of ${VARIANTS}`);
const config = readConfig({
  DRIVE_DATA_DIR: dir,
  DRIVE_KV: `${dir}/drive.kv`,
  DRIVE_BLOB_STORE: "fs",
  DRIVE_ADMIN_TOKEN: adminToken,
  DRIVE_LOG_LEVEL: variant === "error" ? "error" : "info",
  DRIVE_LOG_FORMAT: variant === "info-text" ? "text" : "json",
});
if (variant !== "none") await configureLogging(config);
const service = await boot(config);

/** The app as boot builds it, without the request log (createApp's `requestLog: false`). */
async function withoutRequestLog() {
  const adminCheck = (await initAdminToken(service.kv, adminToken)).check;
  return createApp({
    ...service,
    adminToken: adminCheck,
    requestLog: false,
  });
}

serve(variant === "none" ? await withoutRequestLog() : service.app, config, {
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.error(`PORT ${port}`),
});
