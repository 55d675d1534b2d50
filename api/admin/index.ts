/**
 * The admin API under /admin/api: bearer admin token, then the areas, and the OpenAPI document
 * of them all (GET /admin/api/openapi.json, readable without the token like the drive API's).
 */
import type { Deps } from "../../kv/deps.ts";
import type { AdminTokenCheck } from "../../kv/identity/admin_token.ts";
import { fail } from "../../kv/errors.ts";
import { setActor } from "../../lib/request_facts.ts";
import { recordAdminAction } from "../../kv/events/log.ts";
import { adminActions, auditLookup, describeAdminAction } from "../http/admin_audit.ts";
import { bearerToken } from "../http/auth.ts";
import { sessionOf } from "../http/session_auth.ts";
import { isAdmin } from "../../kv/identity/users.ts";
import { accountsAdminApi } from "./accounts.ts";
import { limitBody } from "../http/body_limit.ts";
import { adminApiError } from "../http/errors.ts";
import { newOpenApiApp } from "../http/openapi.ts";
import { adaptersAdminApi } from "./adapters.ts";
import { blobsAdminApi } from "./blobs.ts";
import { identityAdminApi } from "./identity.ts";
import { keysAdminApi } from "./keys.ts";
import { lifecycleAdminApi } from "./lifecycle.ts";
import { locksAdminApi } from "./locks.ts";
import { shareLinksAdminApi } from "./share_links.ts";
import { activityAdminApi } from "./activity.ts";
import { webhooksAdminApi } from "./webhooks.ts";
import { oidcAdminApi } from "./oidc.ts";

/** Where app.ts mounts the admin API, and its document under it. */
const ADMIN_DOCUMENT_PATH = "/admin/api/openapi.json";

export function adminApi(d: Deps, adminToken: AdminTokenCheck) {
  const app = newOpenApiApp();
  app.onError(adminApiError);
  // Every admin body is JSON; the cap applies before the token check reads anything.
  app.use("*", limitBody());
  app.use("*", async (c, next) => {
    // The document describes the API, it grants nothing: no token needed.
    if (c.req.method === "GET" && c.req.path === ADMIN_DOCUMENT_PATH) return await next();
    const header = c.req.header("authorization");
    // An administrator by name: a session cookie of a user with the admin role (CSRF rule on
    // changes, api/http/session_auth.ts). The activity log names them (actor.adminSeq).
    const signedIn = header === undefined ? await sessionOf(c, d) : null;
    if (signedIn) {
      if (!isAdmin(signedIn.user)) fail("AUTH_011", "Your account does not hold the admin role");
      setActor(c, { kind: "admin", userSeq: signedIn.user.userSeq });
      return await next();
    }
    const token = bearerToken(header);
    if (!token || !(await adminToken.verify(token))) {
      fail("AUTH_004", "Send the admin token as Authorization: Bearer <token>, or sign in");
    }
    setActor(c, { kind: "admin" }); // for the request log (api/ops/)
    await next();
  });
  // Every admin action that succeeded goes into the activity log (docs/changes.md): keys issued
  // and revoked, adapters, quotas, ... by the name its route declares (`x-audit`, read below
  // once every route is mounted; api/http/admin_audit.ts), with the tenant it concerns and its
  // targets; never a body or a secret.
  const audits = { lookup: auditLookup({ definitions: [] }) };
  app.use("*", async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return await next();
    const draft = await describeAdminAction(d.kv, c, audits.lookup);
    await next();
    if (c.res.status >= 400) return;
    const { action, tenantId, detail } = await draft.finish(c);
    await recordAdminAction(d.kv, action, { tenantId, detail });
  });
  app.route("/", identityAdminApi(d));
  app.route("/", keysAdminApi(d));
  app.route("/", lifecycleAdminApi(d));
  app.route("/", adaptersAdminApi(d));
  app.route("/", locksAdminApi(d));
  app.route("/", shareLinksAdminApi(d));
  app.route("/", blobsAdminApi(d));
  app.route("/", webhooksAdminApi(d));
  app.route("/", accountsAdminApi(d));
  app.route("/", oidcAdminApi(d));
  audits.lookup = auditLookup(app.openAPIRegistry);
  app.route("/", activityAdminApi(d, adminActions(audits.lookup)));
  app.openAPIRegistry.registerComponent("securitySchemes", "adminSession", {
    type: "apiKey",
    in: "cookie",
    name: "__Host-drive_session",
    description: "The session cookie of a user holding the admin role (POST " +
      "/api/account/v1/sign-in); changes need X-CSRF-Token and the service's Origin",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "The admin token (DRIVE_ADMIN_TOKEN, or `deno task admin reset-admin-token`)",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Drive admin API",
      version: "v1",
      description: "Tenants, users, API keys, storage provider adapters, locks, share links, " +
        "blob sweep, activity and webhooks. Errors answer {error, message, field?} with a code " +
        "of docs/errors.md.",
    },
    servers: [{ url: "/admin/api" }],
    security: [{ adminToken: [] }, { adminSession: [] }],
  });
  return app;
}
