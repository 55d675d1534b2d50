/**
 * The admin API's shapes of share links, document locks and the orphan blob sweep
 * (api/admin/share_links.ts, locks.ts, blobs.ts).
 */
import { z } from "@hono/zod-openapi";
import { ShareTypeSchema } from "../../http/schemas.ts";
import { Name } from "./common.ts";

// ---------------------------------------------------------------- share links

export const ShareLinkSchema = z.object({
  shareSeq: z.number().int().describe("The share's seq").openapi({ example: 7 }),
  resourceSeq: z.number().int().describe("The shared file or folder").openapi({ example: 12 }),
  /** null when the resource is gone. */
  resourceName: z.string().nullable().describe("Its name; null when it is gone"),
  ownerSeq: z.number().int().describe("The owner of the shared resource"),
  ownerAccountId: z.string().nullable().describe("The owner's accountId; null when gone")
    .openapi({ example: "alice" }),
  shareType: ShareTypeSchema.describe("ORG_LINK or PUBLIC_LINK"),
  url: z.string().describe("The link"),
  expireDate: z.string().nullable().describe("When it stops working; null: never"),
  isPasswordEnabled: z.boolean().describe("Whether the link asks for a password"),
  createdAt: z.string().describe("When it was created, ISO 8601"),
});
export type ShareLink = z.infer<typeof ShareLinkSchema>;

// ---------------------------------------------------------------- locks

export const DocumentLockSchema = z.object({
  resourceSeq: z.number().int().describe("The locked document").openapi({ example: 12 }),
  /** null when the document is gone. */
  resourceName: z.string().nullable().describe("Its name; null when the document is gone"),
  ownerSeq: z.number().int().nullable().describe("The document's owner; null when it is gone"),
  owner: z.string().describe("Who holds the lock, as the holder named itself"),
  source: z.enum(["provider", "office", "webdav"]).describe(
    "The surface that took it. provider: a storage provider lock; office: an editor lease; " +
      "webdav: WebDAV lock(s), one exclusive or several shared",
  ),
  /** Adapter name (provider), user seq (office) or account id (webdav). */
  holder: z.string().describe("Adapter name (provider), user seq (office) or account id (webdav)"),
  /** WebDAV only: how many locks the record holds and their scope and depth. */
  webdav: z.object({
    scope: z.enum(["exclusive", "shared"]).describe("exclusive, or shared (then possibly several)"),
    depth: z.enum(["0", "infinity"]).describe("infinity: a folder with everything below it"),
    count: z.number().int().describe("How many WebDAV locks (shared ones may be several)"),
  }).nullable().optional().describe("WebDAV locks only: scope, depth and count"),
  lockedAt: z.string().describe("When it was taken, ISO 8601"),
  /** null: no lease (provider locks). */
  expiresAt: z.string().nullable().describe("When the lease ends; null: no lease (provider locks)"),
});
export type DocumentLock = z.infer<typeof DocumentLockSchema>;

export const LockReleaseSchema = z.object({
  resourceSeq: z.number().int().describe("The document released"),
  releasedBy: z.string().describe("Who released it"),
  releasedAt: z.string().describe("When, ISO 8601"),
  lock: DocumentLockSchema.describe("The lock that was released"),
});
export type LockRelease = z.infer<typeof LockReleaseSchema>;

export const ReleaseLockBody = z.object({
  releasedBy: Name.optional().describe('Who releases it, for the record; default "admin"')
    .openapi({ example: "ops on call" }),
}).strict();

// ---------------------------------------------------------------- blobs

export const SweepBody = z.object({
  dryRun: z.boolean({ error: "dryRun must be true or false" }).optional().describe(
    "Count only, delete nothing; default false",
  ).openapi({ example: true }),
  minAgeHours: z.number({ error: "minAgeHours must be a number of hours" }).int(
    "minAgeHours must be a whole number of hours",
  ).min(1, "minAgeHours must be at least 1 (younger blobs may be uploads about to commit)")
    .max(8760, "minAgeHours must be at most 8760 (a year)").optional()
    .describe("Leave blobs younger than this alone, 1 to 8760 hours (default 24)"),
}).strict();

/** POST /blobs/sweep's answer (docs/api.md, orphan blob sweep). */
export const BlobSweepSchema = z.object({
  dryRun: z.boolean().describe("Whether this was a dry run"),
  /** Blobs in the store. */
  blobs: z.number().int().describe("Blobs in the store"),
  /** Of those, younger than the minimum age and so left alone. */
  tooYoung: z.number().int().describe("Of those, younger than the minimum age and so left alone"),
  /** Old blobs nothing points at. */
  orphans: z.number().int().describe("Old blobs nothing points at"),
  orphanBytes: z.number().int().describe("Their bytes"),
  /** Orphans deleted (0 on a dry run). */
  removed: z.number().int().describe("Orphans deleted (0 on a dry run)"),
  /** Unfinished writes of dead processes cleared (on a dry run: that a real run would clear). */
  abandonedWrites: z.number().int().describe(
    "Unfinished writes of dead processes cleared (on a dry run: that a real run would clear)",
  ),
});
export type BlobSweep = z.infer<typeof BlobSweepSchema>;
