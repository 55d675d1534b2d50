/** Builds the whole HTTP application from its dependencies; main.ts and the tests both call this. */
import { Hono } from "hono";
import { adminApi } from "./api/admin/index.ts";
import { EXTERNAL_BASE, externalApi } from "./api/external.ts";
import type { AdminTokenCheck } from "./kv/admin_token.ts";
import type { Deps } from "./kv/deps.ts";

export interface AppOptions extends Deps {
  adminToken: AdminTokenCheck;
}

export function createApp(opts: AppOptions): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.route(EXTERNAL_BASE, externalApi(opts));
  app.route("/admin/api", adminApi(opts, opts.adminToken));
  return app;
}
