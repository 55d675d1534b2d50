/**
 * Admin API: current document locks (editor leases and storage-provider locks alike) and the
 * administrator's force-release, which is recorded with who released it.
 */
import { Hono } from "hono";
import { z } from "zod";
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
import { seqFromPath, validOptionalJson, validQuery } from "../http/validate.ts";
import {
  type DocumentLock,
  type LockRelease as LockReleaseView,
  ReleaseLockBody,
} from "./schemas.ts";

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
  const app = new Hono();

  app.get("/locks", async (c) => {
    const locks = await listLocks(d.kv);
    return c.json({ items: await Promise.all(locks.map((l) => lockView(d.kv, l))) });
  });

  app.get("/locks/releases", async (c) => {
    const q = validQuery(
      c,
      z.object({ limit: z.coerce.number().int().min(1).max(1000).optional() }),
    );
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

  return app;
}
