/** The drive external API under /api/external/v1: authentication, the areas, and the OpenAPI document. */
import type { Deps } from "../kv/deps.ts";
import { fail } from "../kv/errors.ts";
import { type ApiEnv, requireApiKey } from "./auth.ts";
import { externalApiError } from "./errors.ts";
import { foldersApi } from "./folders.ts";
import { newOpenApiApp } from "./openapi.ts";
import { API_DOCS_HTML } from "./docs_page.ts";

export const EXTERNAL_BASE = "/api/external/v1";

/** Paths reachable without an API key (the second request of a download-token flow, the docs). */
const PUBLIC_PATHS = new Set(["/openapi.json", "/docs", "/files/download", "/folders/download"]);

export function externalApi(d: Deps) {
  const app = newOpenApiApp<ApiEnv>();
  app.onError(externalApiError);
  app.notFound(() => fail("REQUEST_004"));

  const auth = requireApiKey(d.kv);
  app.use("*", async (c, next) => {
    const sub = c.req.path.slice(EXTERNAL_BASE.length);
    if (PUBLIC_PATHS.has(sub)) return await next();
    return await auth(c, next);
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "API key issued by the admin API (POST /admin/api/keys)",
  });

  app.route("/", foldersApi(d));

  app.get("/docs", (c) => c.html(API_DOCS_HTML));
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Drive external API", version: "v1" },
    servers: [{ url: EXTERNAL_BASE }],
    security: [{ apiKey: [] }],
  });
  return app;
}
