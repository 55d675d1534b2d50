/**
 * Admin API: the orphan blob sweep (kv/tree/blob_sweep.ts). A dry run reports what a real run would
 * remove; neither touches a blob that any version or resource points at. The activity log names a
 * dry run blobs_checked and a real one blobs_swept (docs/changes.md "Admin actions").
 */
import { DEFAULT_SWEEP_MIN_AGE_MS, sweepOrphanBlobs } from "../../kv/tree/blob_sweep.ts";
import type { Deps } from "../../kv/deps.ts";
import { jsonBody, newOpenApiApp } from "../http/openapi.ts";
import { auditAdminAction } from "../http/admin_audit.ts";
import { adminAnswers, adminRoute, BODY_ERRORS, operation } from "./schemas/common.ts";
import { type BlobSweep, BlobSweepSchema, SweepBody } from "./schemas/storage.ts";

const HOUR_MS = 60 * 60 * 1000;

export function blobsAdminApi(d: Deps) {
  const app = newOpenApiApp();
  app.openapi(
    adminRoute(
      "post",
      "/blobs/sweep",
      operation("Blobs")(
        "sweepOrphanBlobs",
        "Delete (or, on a dry run, count) stored blobs no file version points at",
        { action: "blobs_swept", also: ["blobs_checked"] },
      ),
      {
        request: { body: jsonBody(SweepBody, false) },
        responses: adminAnswers(
          BlobSweepSchema,
          "What the sweep found and removed",
          ...BODY_ERRORS,
        ),
      },
    ),
    async (c) => {
      const body = c.req.valid("json");
      const minAgeMs = body.minAgeHours === undefined
        ? DEFAULT_SWEEP_MIN_AGE_MS
        : body.minAgeHours * HOUR_MS;
      const dryRun = body.dryRun ?? false;
      // A check deletes nothing: the log must not show it as a sweep.
      if (dryRun) auditAdminAction(c, { action: "blobs_checked" });
      const result = await sweepOrphanBlobs(d, { minAgeMs, dryRun });
      return c.json(result satisfies BlobSweep, 200);
    },
  );
  return app;
}
