/**
 * The reserve kept free for KV (DRIVE_KV_RESERVE_BYTES): how free space is measured, the guard a
 * store asks before each piece it writes, and a body or a stage with that guard on it.
 */
import { statfs } from "node:fs/promises";
import { asOutOfSpace, type BlobStore, OutOfSpaceError, StageAppendError } from "./store.ts";

/** Bytes free for unprivileged writers on the file system holding `path`. */
export async function freeBytesAt(path: string): Promise<number> {
  const fs = await statfs(path);
  return fs.bavail * fs.bsize;
}

/**
 * Refuses bytes that would leave less than `reserveBytes` free under `path`: asks before each
 * piece a store writes (throws OutOfSpaceError), so blobs stop while KV, on the same disk, still
 * has room for the commits that free space (trash, purge) and the audit of reads. `freeBytes`
 * is how free space is measured (tests give their own).
 */
export function spaceGuard(
  path: string,
  reserveBytes: number,
  freeBytes: (path: string) => Promise<number> = freeBytesAt,
): (bytes: number) => Promise<void> {
  return async (bytes) => {
    if (reserveBytes <= 0) return;
    let free: number;
    try {
      free = await freeBytes(path);
    } catch (err) {
      // Not allowed to look (run without --allow-sys=statfs): the reserve cannot be kept, and
      // the disk's own ENOSPC still answers 507; refusing every write would be worse.
      if (err instanceof Deno.errors.NotCapable) return;
      throw err;
    }
    if (free - bytes < reserveBytes) {
      throw new OutOfSpaceError(
        `${free} bytes free, and ${reserveBytes} are kept for KV (DRIVE_KV_RESERVE_BYTES)`,
      );
    }
  };
}

/** How many bytes one look at the free space lets through (a statfs per network chunk is dear). */
export const SPACE_STEP = 1024 * 1024;

/**
 * `body` with room asked for every SPACE_STEP bytes before they pass on: a body that would eat
 * into the reserve fails with OutOfSpaceError, at most one step past the last look. With `full`,
 * it ends instead (as if the body were complete) and the error is left there: a stage's caller
 * then reports it with the count of bytes stored (guardedStaging).
 */
export async function* guardedBody(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  room: (bytes: number) => Promise<void>,
  full?: { error?: unknown },
): AsyncGenerator<Uint8Array> {
  let budget = 0;
  for await (const chunk of body as AsyncIterable<Uint8Array>) {
    while (budget < chunk.byteLength) {
      try {
        await room(SPACE_STEP);
      } catch (err) {
        if (!full) throw err;
        full.error = err;
        return;
      }
      budget += SPACE_STEP;
    }
    budget -= chunk.byteLength;
    yield chunk;
  }
}

/** The staging half of a BlobStore: what guardedStaging puts the reserve on. */
type Staging = Pick<BlobStore, "stage" | "appendStaged">;

/**
 * A store's stage and appendStaged with the reserve: staged bytes count against it like any
 * other, and a full disk is an OutOfSpaceError. No append starts below the reserve; one that
 * reaches it rejects with StageAppendError (bytes stored, OutOfSpaceError). The body ends there
 * rather than fails, so a full disk never takes the append's path for a body breaking while a
 * write is in flight.
 */
export function guardedStaging(
  staging: Staging,
  room: (bytes: number) => Promise<void>,
): Staging {
  return {
    async stage(expiresAt) {
      await room(0);
      return await staging.stage(expiresAt).catch((err) => Promise.reject(asOutOfSpace(err)));
    },
    async appendStaged(stageId, offset, body, opts) {
      await room(0);
      const full: { error?: unknown } = {};
      const stored = await staging.appendStaged(
        stageId,
        offset,
        guardedBody(body, room, full),
        opts,
      ).catch((err) => Promise.reject(asOutOfSpace(err)));
      if (full.error !== undefined) throw new StageAppendError(stored, full.error);
      return stored;
    },
  };
}
