/** Builds the whole HTTP application from its dependencies; main.ts and the tests both call this. */
import { Hono } from "hono";
import { adminApi } from "./api/admin/index.ts";
import { errorEnvelope } from "./api/http/envelope.ts";
import { jsonResponse } from "./api/http/json_response.ts";
import { EXTERNAL_BASE, externalApi } from "./api/external/index.ts";
import { ACCOUNT_BASE, accountApi } from "./api/account/index.ts";
import { PUBLIC_LINKS_BASE, publicLinksApi } from "./api/public/index.ts";
import { staticRoutes } from "./api/public/static.ts";
import { AUTH_BASE, oidcSignInApi } from "./api/public/oidc.ts";
import type { AdminTokenCheck } from "./kv/identity/admin_token.ts";
import type { Deps } from "./kv/deps.ts";
import { providerApp } from "./provider/routes.ts";
import { DAV_BASE } from "./dav/context.ts";
import { davApp } from "./dav/routes.ts";
import type { ListPool } from "./provider/list_pool.ts";
import { driveLogger } from "./lib/logger.ts";
import type { Metrics } from "./api/ops/metrics.ts";
import { requestLog } from "./api/ops/request_log.ts";
import { opsRoutes } from "./api/ops/routes.ts";
import { actorOf, markUnmatched } from "./lib/request_facts.ts";
import { withRequestScope } from "./lib/request_scope.ts";

interface AppOptions extends Deps {
  adminToken: AdminTokenCheck;
  /** The service's metrics (api/ops/metrics.ts), made by boot(). */
  metrics: Metrics;
  /** The provider's listing worker, when there is one (provider/list_pool.ts), made by boot(). */
  lists?: ListPool | null;
  /**
   * false leaves out the request log (id, log line, request metrics) and opens only the request
   * scope the event log needs: bench/middleware.ts measures what the log costs. Default true.
   */
  requestLog?: boolean;
}

export function createApp(opts: AppOptions): Hono {
  const app = new Hono();
  // First: the request id, the log line and the request metrics cover everything below. It also
  // opens the request scope (lib/request_scope.ts), so events name how the request authenticated
  // (kv/events/actor.ts) and commit races reach the metrics.
  if (opts.requestLog === false) {
    app.use("*", (c, next) => withRequestScope({ actorOf: () => actorOf(c) }, next));
  } else app.use("*", requestLog(opts.metrics));
  app.get("/healthz", (c) => jsonResponse(c, { status: "ok" }, 200));
  app.route("/", opsRoutes(opts, opts.metrics));
  app.route(EXTERNAL_BASE, externalApi(opts));
  app.route("/admin/api", adminApi(opts, opts.adminToken));
  app.route(ACCOUNT_BASE, accountApi(opts));
  app.route(PUBLIC_LINKS_BASE, publicLinksApi(opts));
  app.route(AUTH_BASE, oidcSignInApi(opts));
  app.route("/doc-storage/v1", providerApp(opts, opts.lists ?? null));
  app.route(DAV_BASE, davApp(opts));
  // After the admin API, so /admin/api/* never falls through to the console shell.
  app.route("/", staticRoutes());
  // Hono consults only the root app's notFound, so each area's format is chosen here.
  app.notFound((c) => {
    // The log and the metrics label it "(unmatched)": its raw path could be anything.
    markUnmatched(c);
    const what = `No endpoint ${c.req.method} ${c.req.path}`;
    if (
      c.req.path.startsWith(`${EXTERNAL_BASE}/`) ||
      c.req.path.startsWith(`${PUBLIC_LINKS_BASE}/`) ||
      c.req.path.startsWith(`${AUTH_BASE}/`)
    ) {
      return jsonResponse(c, errorEnvelope("REQUEST_004", what), 404);
    }
    if (c.req.path.startsWith("/admin/api/") || c.req.path.startsWith(`${ACCOUNT_BASE}/`)) {
      return jsonResponse(c, { error: "ADMIN_001", message: what }, 404);
    }
    return c.text(what, 404);
  });
  // Areas answer their own errors; this catches what escapes them (static routes, middleware).
  app.onError((err, c) => {
    driveLogger("http").error("unexpected error", {
      error: String(err),
      stack: err instanceof Error ? err.stack : undefined,
    });
    return c.text("Internal Server Error", 500);
  });
  return app;
}
