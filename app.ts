/** Builds the whole HTTP application from its dependencies; main.ts and the tests both call this. */
import { Hono } from "hono";
import { adminApi } from "./api/admin/index.ts";
import { errorEnvelope } from "./api/http/envelope.ts";
import { EXTERNAL_BASE, externalApi } from "./api/external/index.ts";
import { PUBLIC_LINKS_BASE, publicLinksApi } from "./api/public/links.ts";
import { staticRoutes } from "./api/public/static.ts";
import type { AdminTokenCheck } from "./kv/identity/admin_token.ts";
import type { Deps } from "./kv/deps.ts";
import { providerApp } from "./provider/routes.ts";

export interface AppOptions extends Deps {
  adminToken: AdminTokenCheck;
}

export function createApp(opts: AppOptions): Hono {
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.route(EXTERNAL_BASE, externalApi(opts));
  app.route("/admin/api", adminApi(opts, opts.adminToken));
  app.route(PUBLIC_LINKS_BASE, publicLinksApi(opts));
  app.route("/doc-storage/v1", providerApp(opts));
  // After the admin API, so /admin/api/* never falls through to the console shell.
  app.route("/", staticRoutes());
  // Hono consults only the root app's notFound, so each area's format is chosen here.
  app.notFound((c) => {
    const what = `No endpoint ${c.req.method} ${c.req.path}`;
    if (
      c.req.path.startsWith(`${EXTERNAL_BASE}/`) || c.req.path.startsWith(`${PUBLIC_LINKS_BASE}/`)
    ) {
      return c.json(errorEnvelope("REQUEST_004", what), 404);
    }
    if (c.req.path.startsWith("/admin/api/")) {
      return c.json({ error: "ADMIN_001", message: what }, 404);
    }
    return c.text(what, 404);
  });
  return app;
}
