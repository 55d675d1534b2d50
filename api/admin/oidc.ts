/**
 * Admin API of single sign-on per tenant (docs/authentication.md): read, set and remove a
 * tenant's OpenID Connect settings. The client secret goes in, sealed, and never comes out.
 */
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import {
  deleteOidcSettings,
  oidcRedirectUri,
  type OidcSettings,
  requireOidcSettings,
  setOidcSettings,
} from "../../kv/identity/oidc.ts";
import { issuerProblem } from "../../kv/identity/oidc_flow.ts";
import { jsonBody, newOpenApiApp } from "../http/openapi.ts";
import { adminAnswers, adminRoute, BODY_ERRORS, operation, serveDelete } from "./schemas/common.ts";
import { ON_TENANT, TenantParams } from "./schemas/identity.ts";
import { type OidcSettingsAnswer, OidcSettingsBody, OidcSettingsSchema } from "./schemas/oidc.ts";

const ssoOp = operation("Single sign-on");

export function oidcAdminApi(d: Deps) {
  const app = newOpenApiApp();
  const answer = (s: OidcSettings): OidcSettingsAnswer => ({
    ...s,
    redirectUri: oidcRedirectUri(d.config.publicUrl),
  });

  app.openapi(
    adminRoute(
      "get",
      "/tenants/{id}/oidc",
      ssoOp("getTenantOidc", "Read a tenant's single sign-on settings (never the secret)"),
      {
        request: { params: TenantParams },
        responses: adminAnswers(OidcSettingsSchema, "The settings", "OIDC_001"),
      },
    ),
    async (c) => c.json(answer(await requireOidcSettings(d.kv, c.req.valid("param").id)), 200),
  );

  app.openapi(
    adminRoute(
      "put",
      "/tenants/{id}/oidc",
      ssoOp(
        "setTenantOidc",
        "Set a tenant's single sign-on: issuer, client, allowed domains, claims, SSO-only",
        { action: "oidc_configured", ...ON_TENANT },
      ),
      {
        request: { params: TenantParams, body: jsonBody(OidcSettingsBody) },
        responses: adminAnswers(
          OidcSettingsSchema,
          "The settings as stored",
          ...BODY_ERRORS,
          "TENANT_001",
          "OIDC_002",
        ),
      },
    ),
    async (c) => {
      const body = c.req.valid("json");
      const problem = issuerProblem(body.issuer);
      if (problem) fail("REQUEST_001", `issuer ${problem}`, "issuer");
      const settings = await setOidcSettings(d, c.req.valid("param").id, body);
      return c.json(answer(settings), 200);
    },
  );

  serveDelete(app, {
    path: "/tenants/{id}/oidc",
    name: ssoOp(
      "deleteTenantOidc",
      "Remove a tenant's single sign-on (its users stay; passwords are on again)",
      { action: "oidc_removed", ...ON_TENANT },
    ),
    params: TenantParams,
    done: "Removed",
    missing: "OIDC_001",
  }, async ({ id }) => {
    if (!(await deleteOidcSettings(d.kv, id))) {
      fail("OIDC_001", `Tenant ${id} has no single sign-on configured`, "id");
    }
  });

  return app;
}
