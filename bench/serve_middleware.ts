/**
 * A server for bench/middleware.ts: the real service (boot, serve.ts) in one of four set-ups
 * that differ only in the per-request ops middleware (api/ops/request_log.ts: request id, the
 * log line, the request metrics):
 * - `none`: the baseline, every area mounted as app.ts mounts it but without that middleware (and
 *   with the event log's request scope, which app.ts has that middleware open);
 * - `error`: the whole app, logging at DRIVE_LOG_LEVEL=error (request lines dropped, metrics and
 *   ids kept);
 * - `info-json` and `info-text`: the whole app logging every request, as main.ts does, in each
 *   format. The lines go to this process's stdout (the bench sends it to /dev/null).
 * Usage: deno run -A bench/serve_middleware.ts <variant> <dir> <admin token>
 * (prints "PORT <n>" on stderr when listening)
 */
import { Hono } from "hono";
import { boot } from "../boot.ts";
import { readConfig } from "../config.ts";
import { serve } from "../serve.ts";
import { configureLogging } from "../api/ops/logging.ts";
import { EXTERNAL_BASE, externalApi } from "../api/external/index.ts";
import { jsonResponse } from "../api/http/json_response.ts";
import { adminApi } from "../api/admin/index.ts";
import { PUBLIC_LINKS_BASE, publicLinksApi } from "../api/public/links.ts";
import { staticRoutes } from "../api/public/static.ts";
import { opsRoutes } from "../api/ops/routes.ts";
import { providerApp } from "../provider/routes.ts";
import { initAdminToken } from "../kv/identity/admin_token.ts";
import { runInRequestScope } from "../kv/events/actor.ts";
import { actorOf } from "../lib/request_facts.ts";

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

/** app.ts's createApp without its first middleware (requestLog); kept in step with it by hand. */
async function withoutRequestLog(): Promise<Hono> {
  const app = new Hono();
  app.use("*", (c, next) => runInRequestScope(() => actorOf(c), next));
  app.get("/healthz", (c) => jsonResponse(c, { status: "ok" }, 200));
  app.route("/", opsRoutes(service, service.metrics));
  app.route(EXTERNAL_BASE, externalApi(service));
  app.route("/admin/api", adminApi(service, (await initAdminToken(service.kv, adminToken)).check));
  app.route(PUBLIC_LINKS_BASE, publicLinksApi(service));
  app.route("/doc-storage/v1", providerApp(service));
  app.route("/", staticRoutes());
  return app;
}

serve(variant === "none" ? await withoutRequestLog() : service.app, config, {
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.error(`PORT ${port}`),
});
