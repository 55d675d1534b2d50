/** The admin API under /admin/api: bearer admin token, then the areas. */
import { Hono } from "hono";
import type { Deps } from "../../kv/deps.ts";
import type { AdminTokenCheck } from "../../kv/identity/admin_token.ts";
import { fail } from "../../kv/errors.ts";
import { bearerToken } from "../http/auth.ts";
import { limitBody } from "../http/body_limit.ts";
import { adminApiError } from "../http/errors.ts";
import { adaptersAdminApi } from "./adapters.ts";
import { blobsAdminApi } from "./blobs.ts";
import { identityAdminApi } from "./identity.ts";
import { locksAdminApi } from "./locks.ts";
import { shareLinksAdminApi } from "./share_links.ts";

export function adminApi(d: Deps, adminToken: AdminTokenCheck) {
  const app = new Hono();
  app.onError(adminApiError);
  // Every admin body is JSON; the cap applies before the token check reads anything.
  app.use("*", limitBody());
  app.use("*", async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (!token || !adminToken.verify(token)) {
      fail("AUTH_004", "Send the admin token as Authorization: Bearer <token>");
    }
    await next();
  });
  app.route("/", identityAdminApi(d));
  app.route("/", adaptersAdminApi(d));
  app.route("/", locksAdminApi(d));
  app.route("/", shareLinksAdminApi(d));
  app.route("/", blobsAdminApi(d));
  return app;
}
