/**
 * Admin API: the orphan blob sweep (kv/tree/blob_sweep.ts). A dry run reports what a real run would
 * remove; neither touches a blob that any version or resource points at.
 */
import { createRoute } from "@hono/zod-openapi";
import { DEFAULT_SWEEP_MIN_AGE_MS, sweepOrphanBlobs } from "../../kv/tree/blob_sweep.ts";
import type { Deps } from "../../kv/deps.ts";
import { jsonBody, newOpenApiApp } from "../http/openapi.ts";
import { validOptionalJson } from "../http/validate.ts";
import { adminErrors, type BlobSweep, BlobSweepSchema, SweepBody } from "./schemas.ts";

const HOUR_MS = 60 * 60 * 1000;

// The handler validates by hand (the body is optional: validOptionalJson); this documents it.
const sweepRoute = createRoute({
  method: "post",
  path: "/blobs/sweep",
  tags: ["Blobs"],
  operationId: "sweepOrphanBlobs",
  summary: "Delete (or, on a dry run, count) stored blobs no file version points at",
  request: { body: jsonBody(SweepBody, false) },
  responses: {
    200: {
      description: "What the sweep found and removed",
      content: { "application/json": { schema: BlobSweepSchema } },
    },
    ...adminErrors("REQUEST_003", "REQUEST_005"),
  },
});

export function blobsAdminApi(d: Deps) {
  const app = newOpenApiApp();

  app.post("/blobs/sweep", async (c) => {
    const body = await validOptionalJson(c, SweepBody);
    const minAgeMs = body.minAgeHours === undefined
      ? DEFAULT_SWEEP_MIN_AGE_MS
      : body.minAgeHours * HOUR_MS;
    const result = await sweepOrphanBlobs(d, { minAgeMs, dryRun: body.dryRun ?? false });
    return c.json(result satisfies BlobSweep);
  });

  app.openAPIRegistry.registerPath(sweepRoute);
  return app;
}
