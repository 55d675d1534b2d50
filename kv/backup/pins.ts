/**
 * Holding the fs blob store's bytes for the length of a backup. Blobs are immutable and named by
 * id, but a purge or an overwrite deletes a replaced blob at once (kv/tree/content.ts,
 * kv/tree/trash.ts), and the orphan sweep deletes what no live record references; neither waits
 * for a running backup, so the sweep's age grace alone would not protect a snapshot. A hard link
 * made right after the snapshot keeps each referenced blob's bytes whatever happens to its name
 * in the store: deleting the store's name only drops one link. A blob already gone when its link
 * is made was deleted after the snapshot; the writer then takes a fresh snapshot.
 *
 * The pin folder sits inside the blob directory (same file system, so links work) under a name
 * the store never lists (`.backup-<uuid>`: not a two-hex shard, not `tmp`).
 */
import { join } from "node:path";

/** Where the fs store keeps a blob: `<dir>/<first two hex>/<id>` (blobs/fs.ts). */
export function fsBlobPath(blobDir: string, blobId: string): string {
  return join(blobDir, blobId.slice(0, 2), blobId);
}

export interface BlobPins {
  readonly dir: string;
  /** Links the blobs not pinned yet; returns the ids whose blob is gone from the store. */
  pin(blobIds: Iterable<string>): Promise<string[]>;
  /** The pinned copy of a blob. */
  path(blobId: string): string;
  /** Removes the pin folder (and with it the last link of blobs deleted meanwhile). */
  release(): Promise<void>;
}

export async function openBlobPins(blobDir: string): Promise<BlobPins> {
  const dir = join(blobDir, `.backup-${crypto.randomUUID()}`);
  await Deno.mkdir(dir, { mode: 0o700 });
  const pinned = new Set<string>();
  return {
    dir,
    async pin(blobIds) {
      const missing: string[] = [];
      for (const id of blobIds) {
        if (pinned.has(id)) continue;
        const from = fsBlobPath(blobDir, id);
        const to = join(dir, id);
        try {
          await Deno.link(from, to);
        } catch (err) {
          if (err instanceof Deno.errors.NotFound) {
            missing.push(id);
            continue;
          }
          if (err instanceof Deno.errors.AlreadyExists) {
            // Left by this run's earlier attempt: the same immutable blob.
          } else {
            // A file system without hard links: a copy holds the bytes just as well, slower.
            await Deno.copyFile(from, to).catch((copyErr) => {
              if (copyErr instanceof Deno.errors.NotFound) missing.push(id);
              else throw copyErr;
            });
            if (missing.at(-1) === id) continue;
          }
        }
        pinned.add(id);
      }
      return missing;
    },
    path: (blobId) => join(dir, blobId),
    release: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}
