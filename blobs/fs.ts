/**
 * File-system blob store: one file per blob under `<dir>/<2 hex>/<id>`, written under
 * `<dir>/tmp/<writerId>.<id>.part` and renamed into place. The writer id names the lease of the
 * process writing it (blobs/leases.ts): a temp file whose writer's lease lapsed was left by a
 * process that died mid-write. A write costs no KV call of its own: the process renews one lease
 * for all its writes.
 */
import { join } from "node:path";
import { openFsStaging } from "./fs_staging.ts";
import { LeaseLostError, type WriteLeases, WRITER_ID } from "./leases.ts";
import {
  type AbandonedWrite,
  asOutOfSpace,
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  coalesce,
  newBlobId,
  type StoredBlob,
  type WriteOptions,
} from "./store.ts";
import { guardedStaging, spaceGuard } from "./reserve.ts";

const BLOB_ID = /^[0-9a-f]{32}$/;
const WRITE_CHUNK = 1024 * 1024;
const READ_CHUNK = 1024 * 1024;
const TEMP_SUFFIX = ".part";

/** What a write needs of an open file (tests hand in one whose disk is full). */
type WritableFile = Pick<Deno.FsFile, "write" | "close">;

async function writeAll(file: WritableFile, piece: Uint8Array): Promise<void> {
  let off = 0;
  while (off < piece.byteLength) off += await file.write(piece.subarray(off));
}

/** Streams the inclusive `range` of an open file, closing it at the end. */
async function readRange(file: Deno.FsFile, range: ByteRange): Promise<ReadableStream<Uint8Array>> {
  await file.seek(range.start, Deno.SeekMode.Start);
  let remaining = range.end - range.start + 1;
  const close = () => {
    try {
      file.close();
    } catch { /* already closed */ }
  };
  return new ReadableStream<Uint8Array>({
    type: "bytes",
    async pull(controller) {
      if (remaining <= 0) {
        close();
        controller.close();
        return;
      }
      const buf = new Uint8Array(Math.min(READ_CHUNK, remaining));
      let fill = 0;
      while (fill < buf.byteLength) {
        const n = await file.read(buf.subarray(fill));
        if (n === null) break;
        fill += n;
      }
      if (fill === 0) {
        close();
        controller.error(new Error("the file ended before the range"));
        return;
      }
      remaining -= fill;
      controller.enqueue(fill === buf.byteLength ? buf : buf.subarray(0, fill));
    },
    cancel: close,
    // One chunk read ahead: the next disk read overlaps the socket write of this one.
  }, { highWaterMark: READ_CHUNK });
}

/** Removes a file; true when it was there. */
function removeFile(path: string): Promise<boolean> {
  return Deno.remove(path).then(() => true, () => false);
}

export interface FsStoreOptions {
  /**
   * Bytes of free disk kept for KV (DRIVE_KV_RESERVE_BYTES): a write that would leave less fails
   * with OutOfSpaceError, so the commits that free space still find room. 0: no reserve.
   */
  reserveBytes?: number;
  /** How free space is measured (statfs by default). */
  freeBytes?: (path: string) => Promise<number>;
  /** How a temp file is opened for writing (Deno.open by default). */
  openFile?: (path: string, options: Deno.OpenOptions) => Promise<WritableFile>;
}

/**
 * `dir` holds the blobs; `leases` (on the service's KV, shared by every process that shares
 * `dir`) tells live writes from abandoned ones.
 */
export async function openFsBlobStore(
  dir: string,
  leases: WriteLeases,
  opts: FsStoreOptions = {},
): Promise<BlobStore> {
  const tmpDir = join(dir, "tmp");
  await Deno.mkdir(tmpDir, { recursive: true });
  const room = spaceGuard(dir, opts.reserveBytes ?? 0, opts.freeBytes);
  const openFile = opts.openFile ?? Deno.open;
  const pathOf = (blobId: string) => {
    if (!BLOB_ID.test(blobId)) throw new BlobNotFoundError(blobId);
    return join(dir, blobId.slice(0, 2), blobId);
  };

  async function place(tmp: string, blobId: string): Promise<void> {
    const final = pathOf(blobId);
    await Deno.mkdir(join(dir, blobId.slice(0, 2)), { recursive: true });
    await Deno.rename(tmp, final).catch((err) => {
      // Our temp file is gone: a sweep took this write for abandoned (its lease had lapsed).
      throw err instanceof Deno.errors.NotFound ? new LeaseLostError(`blob ${blobId}`) : err;
    });
  }

  // Stages (resumable uploads) live beside tmp/ and become blobs by the same rename.
  const { expiredStages, ...staging } = await openFsStaging(dir, place, readRange);

  return {
    kind: "fs",
    ...staging,
    ...guardedStaging(staging, room),

    async write(body, opts: WriteOptions = {}): Promise<BlobInfo> {
      const blobId = newBlobId();
      const term = await leases.begin();
      const tmp = join(tmpDir, `${term.writerId}.${blobId}${TEMP_SUFFIX}`);
      let file: WritableFile | null = null;
      let info = { size: 0, sha256: "" };
      // One write stays in flight while the next piece is parsed, hashed and copied (pool 2).
      let inFlight: Promise<void> | null = null;
      try {
        await room(0);
        file = await openFile(tmp, { write: true, createNew: true });
        for await (const piece of coalesce(body, WRITE_CHUNK, opts, (i) => (info = i), 2)) {
          term.check();
          await inFlight;
          await room(piece.byteLength);
          inFlight = writeAll(file, piece);
          // Observed at once: while the next piece is awaited (a slow client), a failed write
          // (ENOSPC) must not be an unhandled rejection, which ends the process. It is thrown
          // where it is awaited, above or below.
          inFlight.catch(() => {});
        }
        await inFlight;
        file.close();
        file = null;
        term.check();
        await place(tmp, blobId);
      } catch (err) {
        await inFlight?.catch(() => {});
        try {
          file?.close();
        } catch { /* already closed */ }
        await Deno.remove(tmp).catch(() => {});
        throw asOutOfSpace(err);
      } finally {
        await term.done();
      }
      return { blobId, ...info };
    },

    async read(blobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
      let file: Deno.FsFile;
      try {
        file = await Deno.open(pathOf(blobId), { read: true });
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) throw new BlobNotFoundError(blobId);
        throw err;
      }
      // A whole file streams natively (in Rust): as fast as our chunked reads and with no
      // JS-side buffers left for the garbage collector (docs/benchmarks.md).
      if (!range) return file.readable;
      return await readRange(file, range);
    },

    async copy(blobId: string): Promise<string> {
      const source = pathOf(blobId);
      const copyId = newBlobId();
      const term = await leases.begin();
      const tmp = join(tmpDir, `${term.writerId}.${copyId}${TEMP_SUFFIX}`);
      try {
        const size = (await Deno.stat(source).catch(() => null))?.size ?? 0;
        await room(size);
        await Deno.copyFile(source, tmp).catch((err) => {
          throw err instanceof Deno.errors.NotFound ? new BlobNotFoundError(blobId) : err;
        });
        term.check();
        await place(tmp, copyId);
      } catch (err) {
        await Deno.remove(tmp).catch(() => {});
        throw asOutOfSpace(err);
      } finally {
        await term.done();
      }
      return copyId;
    },

    async delete(blobId: string): Promise<void> {
      await Deno.remove(pathOf(blobId)).catch((err) => {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      });
    },

    async *list(): AsyncIterable<StoredBlob> {
      for await (const shard of Deno.readDir(dir)) {
        if (!shard.isDirectory || !/^[0-9a-f]{2}$/.test(shard.name)) continue;
        for await (const entry of Deno.readDir(join(dir, shard.name))) {
          if (!entry.isFile || !BLOB_ID.test(entry.name)) continue;
          // Gone since the directory was read: deleted meanwhile, not a blob any more.
          const info = await Deno.stat(join(dir, shard.name, entry.name)).catch(() => null);
          if (!info) continue;
          yield { blobId: entry.name, size: info.size, storedAt: info.mtime?.getTime() ?? 0 };
        }
      }
    },

    async *abandonedWrites(): AsyncIterable<AbandonedWrite> {
      yield* expiredStages();
      const live = leases.liveness();
      const untaggedBefore = Date.now() - leases.timing.expiryMs;
      for await (const entry of Deno.readDir(tmpDir)) {
        if (!entry.isFile || !entry.name.endsWith(TEMP_SUFFIX)) continue;
        const writeId = entry.name.slice(0, -TEMP_SUFFIX.length);
        const path = join(tmpDir, entry.name);
        const writerId = writeId.split(".")[0];
        if (writeId.includes(".") && WRITER_ID.test(writerId)) {
          if (await live(writerId)) continue;
        } else {
          // No writer id: a temp file of a version before leases. Its age is all there is to go
          // by, and such writes touched their file with every piece.
          const mtime = (await Deno.stat(path).catch(() => null))?.mtime?.getTime();
          if (mtime === undefined || mtime >= untaggedBefore) continue;
        }
        // Removing it is safe even if its writer was only paused: its rename then fails
        // (LeaseLostError), and a file already renamed is not here to remove.
        yield { writeId, remove: () => removeFile(path) };
      }
    },
  };
}
