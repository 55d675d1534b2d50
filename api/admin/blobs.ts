/**
 * Admin API: the orphan blob sweep (kv/blob_sweep.ts). A dry run reports what a real run would
 * remove; neither touches a blob that any version or resource points at.
 */
import { Hono } from "hono";
import { z } from "zod";
import { DEFAULT_SWEEP_MIN_AGE_MS, sweepOrphanBlobs } from "../../kv/tree/blob_sweep.ts";
import type { Deps } from "../../kv/deps.ts";
import { validOptionalJson } from "../http/validate.ts";

const HOUR_MS = 60 * 60 * 1000;

const SweepBody = z.object({
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  minAgeHours: z.number({ error: "minAgeHours must be a number of hours" }).int(
    "minAgeHours must be a whole number of hours",
  ).min(1, "minAgeHours must be at least 1 (younger blobs may be uploads about to commit)")
    .max(8760, "minAgeHours must be at most 8760 (a year)").optional(),
}).strict();

export function blobsAdminApi(d: Deps) {
  const app = new Hono();

  app.post("/blobs/sweep", async (c) => {
    const body = await validOptionalJson(c, SweepBody);
    const minAgeMs = body.minAgeHours === undefined
      ? DEFAULT_SWEEP_MIN_AGE_MS
      : body.minAgeHours * HOUR_MS;
    return c.json(await sweepOrphanBlobs(d, { minAgeMs, dryRun: body.dryRun ?? false }));
  });

  return app;
}
