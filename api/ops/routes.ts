/**
 * The operations endpoints app.ts mounts at the root: GET /metrics (Prometheus text, behind
 * DRIVE_METRICS_TOKEN when set, open otherwise: warnOfOpenMetrics says so at start) and GET
 * /readyz (readiness, 503 with the failed checks). /healthz, the liveness check, stays in app.ts.
 * Errors answer as the admin API does: `{error, message}` with a code from kv/errors.ts.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { tagRoutes } from "../http/openapi.ts";
import type { Config } from "../../config.ts";
import type { Deps } from "../../kv/deps.ts";
import { ERROR_CATALOG } from "../../kv/errors.ts";
import { driveLogger } from "../../lib/logger.ts";
import { digestsEqual, sha256Hex } from "../../lib/secrets.ts";
import { bearerToken } from "../http/auth.ts";
import type { Metrics } from "./metrics.ts";
import { readiness } from "./readiness.ts";

const route = tagRoutes("Operations");

const OpsErrorSchema = z.object({
  error: z.string().describe("Error code from the catalog (docs/errors.md)").openapi({
    example: "OPS_001",
  }),
  message: z.string().describe("What went wrong, for a person"),
}).openapi("OpsError");

const CheckSchema = z.object({
  name: z.enum(["kv", "blobStore", "disk"]).describe(
    "kv: a KV write read back; blobStore: a new blob stored and deleted; disk: free space " +
      "under DRIVE_DATA_DIR at least DRIVE_MIN_FREE_BYTES (fs blob store only)",
  ),
  ok: z.boolean().describe("Whether the check passed"),
  reason: z.string().optional().describe("Why it failed (absent when ok)").openapi({
    example: "the blob store did not take a new blob (PermissionDenied)",
  }),
}).openapi("ReadinessCheck");

const ReadySchema = z.object({
  status: z.literal("ready").describe("Every check passed"),
  checks: z.array(CheckSchema).describe("Each check and its outcome"),
}).openapi("Ready");

const NotReadySchema = z.object({
  status: z.literal("not ready").describe("At least one check failed"),
  error: z.literal("OPS_002").describe("Error code from the catalog"),
  message: z.string().describe("Which checks failed, for a person"),
  checks: z.array(CheckSchema).describe("Each check and its outcome"),
}).openapi("NotReady");

const metricsRoute = route("get", "/metrics", "getMetrics", {
  summary: "Prometheus metrics (text exposition format)",
  description: "With DRIVE_METRICS_TOKEN set, send it as Authorization: Bearer <token>.",
  request: {
    headers: z.object({
      authorization: z.string().optional().describe(
        "Bearer DRIVE_METRICS_TOKEN; required only when that variable is set",
      ).openapi({ example: "Bearer 3f9c…" }),
    }),
  },
  responses: {
    200: {
      description: "Every series (docs/operations.md lists them)",
      content: {
        "text/plain": {
          schema: z.string().describe("Prometheus text format 0.0.4").openapi({
            example: 'drive_http_requests_total{method="GET",route="/healthz",status="200"} 3',
          }),
        },
      },
    },
    401: {
      description: `OPS_001: ${ERROR_CATALOG.OPS_001.meaning}`,
      content: { "application/json": { schema: OpsErrorSchema } },
    },
  },
});

const readyRoute = route("get", "/readyz", "getReadiness", {
  summary: "Readiness: KV, blob store and free disk checked now",
  description: "For load balancers and orchestrators; /healthz stays the liveness check.",
  responses: {
    200: {
      description: "Ready to serve",
      content: { "application/json": { schema: ReadySchema } },
    },
    503: {
      description: `OPS_002: ${ERROR_CATALOG.OPS_002.meaning}`,
      content: { "application/json": { schema: NotReadySchema } },
    },
  },
});

/**
 * Says at start that GET /metrics answers anyone when DRIVE_METRICS_TOKEN is not set: open by
 * default, which an operator should learn from the log rather than from a scan
 * (docs/security.md, "In front of the service").
 */
export function warnOfOpenMetrics(config: Pick<Config, "metricsToken">): void {
  if (config.metricsToken !== null) return;
  driveLogger("metrics").warn(
    "GET /metrics is open to anyone who can reach the service (request counts by route, " +
      "stored bytes, memory): set DRIVE_METRICS_TOKEN to require it as a bearer token",
  );
}

export function opsRoutes(d: Deps, metrics: Metrics): OpenAPIHono {
  const app = new OpenAPIHono();
  // Compared as SHA-256 digests in constant time, so neither length nor content leaks.
  const tokenDigest = d.config.metricsToken === null ? null : sha256Hex(d.config.metricsToken);

  app.openapi(metricsRoute, async (c) => {
    if (tokenDigest !== null) {
      const sent = bearerToken(c.req.header("authorization"));
      if (sent === null || !digestsEqual(sha256Hex(sent), tokenDigest)) {
        c.header("WWW-Authenticate", 'Bearer realm="metrics"');
        return c.json({ error: "OPS_001", message: ERROR_CATALOG.OPS_001.meaning }, 401);
      }
    }
    const body = await metrics.registry.metrics();
    return c.text(body, 200, { "Content-Type": metrics.registry.contentType });
  });

  app.openapi(readyRoute, async (c) => {
    const result = await readiness(d);
    c.header("Cache-Control", "no-store");
    if (result.ready) return c.json({ status: "ready" as const, checks: result.checks }, 200);
    const failed = result.checks.filter((x) => !x.ok).map((x) => `${x.name}: ${x.reason}`);
    return c.json({
      status: "not ready" as const,
      error: "OPS_002" as const,
      message: `Not ready: ${failed.join("; ")}`,
      checks: result.checks,
    }, 503);
  });
  return app;
}
