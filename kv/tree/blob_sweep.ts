/**
 * The orphan blob sweep: removes stored bytes no version or resource record points at. They
 * are left when a process dies between storing a file's bytes and committing its record, or
 * when deleting a purged or replaced file's blob fails (that failure is only logged).
 *
 * Only blobs older than `minAgeMs` are candidates. A blob is written before the commit that
 * references it, so a young unreferenced blob may belong to an upload that this process or
 * another one on the same KV is about to commit. An old blob never gains a reference (every new
 * reference is to a freshly written blob), so "old and unreferenced" stays true: the candidates
 * are listed first and the references read after, and nothing in between can save a candidate.
 *
 * It also clears the writes that never finished because their process died: those go by their
 * writer's lease (blobs/leases.ts), not by `minAgeMs`, so a killed upload's leftovers are found
 * within the lease expiry (2 minutes by default), and a live write on any process never is.
 */
import { clearAbandonedWrites } from "../../blobs/store.ts";
import type { Deps } from "../deps.ts";
import { iterateReferencedBlobIds } from "./content_versions.ts";
import { iterateRenditionBlobIds, pruneRenditions } from "../previews/renditions.ts";

/** Far longer than any upload or save takes between writing its bytes and committing them. */
export const DEFAULT_SWEEP_MIN_AGE_MS = 24 * 60 * 60 * 1000;

interface BlobSweepResult {
  dryRun: boolean;
  /** Blobs in the store. */
  blobs: number;
  /** Of those, younger than the minimum age and so left alone. */
  tooYoung: number;
  /** Old blobs nothing points at. */
  orphans: number;
  orphanBytes: number;
  /** Orphans deleted (0 on a dry run). */
  removed: number;
  /**
   * Unfinished writes of dead processes (temp files, chunks without a record): cleared, or on a
   * dry run the ones a real run would clear.
   */
  abandonedWrites: number;
}

export async function sweepOrphanBlobs(
  d: Deps,
  opts: { minAgeMs: number; dryRun: boolean },
): Promise<BlobSweepResult> {
  const before = Date.now() - opts.minAgeMs;
  // Blob id -> size. One entry per old blob: ~100 bytes each while the sweep runs.
  const candidates = new Map<string, number>();
  let blobs = 0;
  let tooYoung = 0;
  for await (const blob of d.blobs.list()) {
    blobs++;
    if (blob.storedAt < before) candidates.set(blob.blobId, blob.size);
    else tooYoung++;
  }
  // Previews of content nothing holds any more go first; the others are references.
  await pruneRenditions(d, opts.dryRun);
  for await (const blobId of iterateReferencedBlobIds(d.kv)) candidates.delete(blobId);
  for await (const blobId of iterateRenditionBlobIds(d.kv)) candidates.delete(blobId);
  let orphanBytes = 0;
  for (const size of candidates.values()) orphanBytes += size;
  let removed = 0;
  if (!opts.dryRun) {
    for (const blobId of candidates.keys()) {
      await d.blobs.delete(blobId);
      removed++;
    }
  }
  // One selection for both: the dry run only skips the removal.
  const abandonedWrites = await clearAbandonedWrites(d.blobs, { dryRun: opts.dryRun });
  return {
    dryRun: opts.dryRun,
    blobs,
    tooYoung,
    orphans: candidates.size,
    orphanBytes,
    removed,
    abandonedWrites,
  };
}
