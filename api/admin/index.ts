/** The admin API under /admin/api: bearer admin token, then the areas. */
import { Hono } from "hono";
import type { Deps } from "../../kv/deps.ts";
import type { AdminTokenCheck } from "../../kv/admin_token.ts";
import { fail } from "../../kv/errors.ts";
import { bearerToken } from "../auth.ts";
import { adminApiError } from "../errors.ts";
import { identityAdminApi } from "./identity.ts";

export function adminApi(d: Deps, adminToken: AdminTokenCheck) {
  const app = new Hono();
  app.onError(adminApiError);
  app.notFound(() => fail("ADMIN_001"));
  app.use("*", async (c, next) => {
    const token = bearerToken(c.req.header("authorization"));
    if (!token || !adminToken.verify(token)) {
      fail("AUTH_004", "Send the admin token as Authorization: Bearer <token>");
    }
    await next();
  });
  app.route("/", identityAdminApi(d));
  return app;
}
