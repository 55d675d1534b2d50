/**
 * Admin API: current document locks (editor leases and storage-provider locks alike) and the
 * administrator's force-release, which is recorded with who released it.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import {
  forceReleaseLock,
  listLockReleases,
  listLocks,
  type Lock,
  type LockRelease,
} from "../../kv/tree/locks.ts";
import { getResource, toIso } from "../../kv/tree/resources.ts";
import { jsonBody, newOpenApiApp, queryParam, seqParam } from "../http/openapi.ts";
import { seqFromPath, validOptionalJson, validQuery } from "../http/validate.ts";
import {
  adminErrors,
  type DocumentLock,
  DocumentLockSchema,
  type LockRelease as LockReleaseView,
  LockReleaseSchema,
  ReleaseLockBody,
} from "./schemas.ts";

const ReleasesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional().openapi({
    ...queryParam("limit"),
    description: "How many of the latest releases, 1 to 1000 (default 100)",
    example: 100,
  }),
});

// The handlers validate by hand (validQuery, seqFromPath, validOptionalJson) with these schemas;
// the declarations document them.
const listLocksRoute = createRoute({
  method: "get",
  path: "/locks",
  tags: ["Locks"],
  operationId: "listLocks",
  summary: "List every live document lock (editor leases and storage provider locks)",
  responses: {
    200: {
      description: "The live locks",
      content: {
        "application/json": {
          schema: z.object({ items: z.array(DocumentLockSchema).describe("The locks") }),
        },
      },
    },
    ...adminErrors(),
  },
});

const listLockReleasesRoute = createRoute({
  method: "get",
  path: "/locks/releases",
  tags: ["Locks"],
  operationId: "listLockReleases",
  summary: "List the latest forced lock releases, newest first, with who released them",
  request: { query: ReleasesQuery },
  responses: {
    200: {
      description: "The releases",
      content: {
        "application/json": {
          schema: z.object({ items: z.array(LockReleaseSchema).describe("The releases") }),
        },
      },
    },
    ...adminErrors(),
  },
});

const releaseLockRoute = createRoute({
  method: "delete",
  path: "/locks/{resourceSeq}",
  tags: ["Locks"],
  operationId: "releaseLock",
  summary: "Force-release a document's lock (recorded with who released it)",
  request: {
    params: z.object({ resourceSeq: seqParam("resourceSeq").describe("The locked document") }),
    body: jsonBody(ReleaseLockBody, false),
  },
  responses: {
    200: {
      description: "The release, with the lock it ended",
      content: { "application/json": { schema: LockReleaseSchema } },
    },
    ...adminErrors("LOCK_001", "REQUEST_003", "REQUEST_005"),
  },
});

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

  app.get("/locks", async (c) => {
    const locks = await listLocks(d.kv);
    return c.json({ items: await Promise.all(locks.map((l) => lockView(d.kv, l))) });
  });

  app.get("/locks/releases", async (c) => {
    const q = validQuery(c, ReleasesQuery);
    const releases = await listLockReleases(d.kv, q.limit ?? 100);
    return c.json({ items: await Promise.all(releases.map((r) => releaseView(d.kv, r))) });
  });

  app.delete("/locks/:resourceSeq", async (c) => {
    const rs = seqFromPath(c, "resourceSeq");
    // The body is optional: a bare DELETE releases as "admin".
    const body = await validOptionalJson(c, ReleaseLockBody);
    const release = await forceReleaseLock(d.kv, rs, body.releasedBy ?? "admin");
    if (!release) fail("LOCK_001", `Document ${rs} has no live lock`, "resourceSeq");
    return c.json(await releaseView(d.kv, release));
  });

  for (const route of [listLocksRoute, listLockReleasesRoute, releaseLockRoute]) {
    app.openAPIRegistry.registerPath(route);
  }
  return app;
}
