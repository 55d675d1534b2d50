/**
 * Admin API: current document locks (editor leases, storage-provider and WebDAV locks alike, each
 * with the surface that took it) and the administrator's force-release, which is recorded with
 * who released it (a WebDAV record's shared locks are released together).
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import {
  forceReleaseLock,
  listLockReleases,
  listLocks,
  liveDavLocks,
  type Lock,
  type LockRelease,
} from "../../kv/tree/locks.ts";
import { getResource, toIso } from "../../kv/tree/resources.ts";
import { jsonBody, newOpenApiApp, queryParam, seqParam } from "../http/openapi.ts";
import { adminAnswers, adminRoute, operation } from "./schemas/common.ts";
import {
  type DocumentLock,
  DocumentLockSchema,
  type LockRelease as LockReleaseView,
  LockReleaseSchema,
  ReleaseLockBody,
} from "./schemas/storage.ts";

const ReleasesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({
    ...queryParam("limit"),
    description: "How many of the latest releases, 1 to 1000 (default 100)",
    example: 100,
  }),
});

const lockOp = operation("Locks");

async function lockView(kv: Deno.Kv, lock: Lock): Promise<DocumentLock> {
  const resource = await getResource(kv, lock.rs);
  return {
    resourceSeq: lock.rs,
    resourceName: resource?.name ?? null,
    ownerSeq: resource?.ownerSeq ?? null,
    owner: lock.owner,
    source: lock.source,
    holder: lock.holder,
    lockedAt: toIso(lock.lockedAt),
    expiresAt: lock.expiresAt === null ? null : toIso(lock.expiresAt),
    webdav: davSummary(lock),
  };
}

/** Scope, depth and count of a WebDAV record's live locks (null for the other surfaces). */
function davSummary(lock: Lock): DocumentLock["webdav"] {
  const dav = liveDavLocks(lock);
  if (lock.source !== "webdav" || dav.length === 0) return null;
  return {
    scope: dav[0].scope,
    depth: dav.some((l) => l.depth === "infinity") ? "infinity" : "0",
    count: dav.length,
  };
}

async function releaseView(kv: Deno.Kv, release: LockRelease): Promise<LockReleaseView> {
  return {
    resourceSeq: release.lock.rs,
    releasedBy: release.releasedBy,
    releasedAt: toIso(release.releasedAt),
    lock: await lockView(kv, release.lock),
  };
}

export function locksAdminApi(d: Deps) {
  const app = newOpenApiApp();

  app.openapi(
    adminRoute(
      "get",
      "/locks",
      lockOp(
        "listLocks",
        "List every live document lock (editor leases, storage provider and WebDAV locks)",
      ),
      {
        responses: adminAnswers(
          z.object({ items: z.array(DocumentLockSchema).describe("The locks") }),
          "The live locks",
        ),
      },
    ),
    async (c) => {
      const locks = await listLocks(d.kv);
      return c.json({ items: await Promise.all(locks.map((l) => lockView(d.kv, l))) }, 200);
    },
  );

  app.openapi(
    adminRoute(
      "get",
      "/locks/releases",
      lockOp(
        "listLockReleases",
        "List the latest forced lock releases, newest first, with who released them",
      ),
      {
        request: { query: ReleasesQuery },
        responses: adminAnswers(
          z.object({ items: z.array(LockReleaseSchema).describe("The releases") }),
          "The releases",
        ),
      },
    ),
    async (c) => {
      const releases = await listLockReleases(d.kv, c.req.valid("query").limit ?? 100);
      return c.json({ items: await Promise.all(releases.map((r) => releaseView(d.kv, r))) }, 200);
    },
  );

  app.openapi(
    adminRoute(
      "delete",
      "/locks/{resourceSeq}",
      lockOp("releaseLock", "Force-release a document's lock (recorded with who released it)", {
        action: "lock_released",
        targets: { resourceSeq: "rs" },
      }),
      {
        request: {
          params: z.object({
            resourceSeq: seqParam("resourceSeq").describe("The locked document"),
          }),
          body: jsonBody(ReleaseLockBody, false),
        },
        responses: adminAnswers(
          LockReleaseSchema,
          "The release, with the lock it ended",
          "LOCK_001",
          "REQUEST_003",
          "REQUEST_005",
        ),
      },
    ),
    async (c) => {
      const rs = c.req.valid("param").resourceSeq;
      // The body is optional: a bare DELETE releases as "admin".
      const release = await forceReleaseLock(d.kv, rs, c.req.valid("json").releasedBy ?? "admin");
      if (!release) fail("LOCK_001", `Document ${rs} has no live lock`, "resourceSeq");
      return c.json(await releaseView(d.kv, release), 200);
    },
  );
  return app;
}
