/**
 * Admin API: the orphan blob sweep (kv/tree/blob_sweep.ts). A dry run reports what a real run would
 * remove; neither touches a blob that any version or resource points at.
 */
import { Hono } from "hono";
import { DEFAULT_SWEEP_MIN_AGE_MS, sweepOrphanBlobs } from "../../kv/tree/blob_sweep.ts";
import type { Deps } from "../../kv/deps.ts";
import { validOptionalJson } from "../http/validate.ts";
import { type BlobSweep, SweepBody } from "./schemas.ts";

const HOUR_MS = 60 * 60 * 1000;

export function blobsAdminApi(d: Deps) {
  const app = new Hono();

  app.post("/blobs/sweep", async (c) => {
    const body = await validOptionalJson(c, SweepBody);
    const minAgeMs = body.minAgeHours === undefined
      ? DEFAULT_SWEEP_MIN_AGE_MS
      : body.minAgeHours * HOUR_MS;
    const result = await sweepOrphanBlobs(d, { minAgeMs, dryRun: body.dryRun ?? false });
    return c.json(result satisfies BlobSweep);
  });

  return app;
}
