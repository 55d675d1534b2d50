/**
 * The account API under /api/account/v1: what a person does for themselves, signed in with the
 * session cookie (docs/authentication.md). Errors answer {error, message, field?} with a code of
 * docs/errors.md; the OpenAPI document is at /api/account/v1/openapi.json.
 */
import type { Deps } from "../../kv/deps.ts";
import { limitBody } from "../http/body_limit.ts";
import { adminApiError } from "../http/errors.ts";
import { newOpenApiApp } from "../http/openapi.ts";
import { SECURE_COOKIE_NAME, sessionIdOf } from "../http/session_cookie.ts";
import { fail } from "../../kv/errors.ts";
import { credentialsApi } from "./credentials.ts";
import { signInApi } from "./sign_in.ts";

export const ACCOUNT_BASE = "/api/account/v1";

const DESCRIPTION = [
  "Signing in with a password, the session, the password itself, invitation and reset links, " +
  "your sessions and your app passwords (API keys you make for WebDAV, sync tools and scripts).",
  "**Session**: `POST /sign-in` sets the session cookie (`__Host-drive_session`; " +
  "`drive_session` when the service runs on plain http). Any request that changes something " +
  "(every method but GET) needs the answer's `csrfToken` as `X-CSRF-Token` and an `Origin` " +
  "of the service. The same cookie works on the drive API (/api/external/v1) as your " +
  "read-write key, and on the admin API when you hold the admin role.",
  "**Examples**: user 1 `alice` signs in with the password of the sign-in example; " +
  "tests/account/openapi_examples_test.ts replays them.",
].join("\n\n");

export function accountApi(d: Deps) {
  const app = newOpenApiApp();
  app.onError(adminApiError);
  app.use("*", limitBody());
  // Before any body is validated, a caller without a session cookie hears that first. The
  // operations anyone may call are those whose declaration says `security: []`.
  let open: Set<string> | undefined;
  app.use("*", async (c, next) => {
    open ??= anonymousPaths(app);
    const sub = c.req.path.slice(ACCOUNT_BASE.length);
    if (!open.has(sub) && sessionIdOf(c, d.config) === null) fail("AUTH_009", "Sign in first");
    await next();
  });
  app.route("/", signInApi(d));
  app.route("/", credentialsApi(d));
  app.openAPIRegistry.registerComponent("securitySchemes", "session", {
    type: "apiKey",
    in: "cookie",
    name: SECURE_COOKIE_NAME,
    description: "The session cookie set by POST /sign-in (drive_session over plain http)",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Drive account API", version: "v1", description: DESCRIPTION },
    servers: [{ url: ACCOUNT_BASE }],
    security: [{ session: [] }],
  });
  return app;
}

/** The paths of the operations declared with `security: []`, and the document itself. */
function anonymousPaths(app: ReturnType<typeof newOpenApiApp>): Set<string> {
  const open = new Set(["/openapi.json"]);
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type === "route" && def.route.security?.length === 0) open.add(def.route.path);
  }
  return open;
}
