/** File-system blob store: one file per blob under `<dir>/<2 hex>/<id>`, written via a temp name. */
import { join } from "node:path";
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  coalesce,
  newBlobId,
  type StoredBlob,
  type WriteOptions,
} from "./store.ts";

const BLOB_ID = /^[0-9a-f]{32}$/;
const WRITE_CHUNK = 1024 * 1024;
const READ_CHUNK = 1024 * 1024;
/**
 * A temp file untouched this long is left over from a crash or a kill mid-write (a live write
 * touches its file with every piece), so opening the store removes it.
 */
const STALE_TEMP_MS = 24 * 60 * 60 * 1000;

async function writeAll(file: Deno.FsFile, piece: Uint8Array): Promise<void> {
  let off = 0;
  while (off < piece.byteLength) off += await file.write(piece.subarray(off));
}

/** Removes temp files last written before `before`; another process's live ones are newer. */
async function removeStaleTemps(tmpDir: string, before: number): Promise<number> {
  let removed = 0;
  for await (const entry of Deno.readDir(tmpDir)) {
    if (!entry.isFile || !entry.name.endsWith(".part")) continue;
    const path = join(tmpDir, entry.name);
    const mtime = (await Deno.stat(path).catch(() => null))?.mtime;
    if (mtime && mtime.getTime() < before) {
      await Deno.remove(path).then(() => removed++, () => {});
    }
  }
  return removed;
}

export async function openFsBlobStore(dir: string): Promise<BlobStore> {
  const tmpDir = join(dir, "tmp");
  await Deno.mkdir(tmpDir, { recursive: true });
  await removeStaleTemps(tmpDir, Date.now() - STALE_TEMP_MS);
  const pathOf = (blobId: string) => {
    if (!BLOB_ID.test(blobId)) throw new BlobNotFoundError(blobId);
    return join(dir, blobId.slice(0, 2), blobId);
  };

  async function place(tmp: string, blobId: string): Promise<void> {
    const final = pathOf(blobId);
    await Deno.mkdir(join(dir, blobId.slice(0, 2)), { recursive: true });
    await Deno.rename(tmp, final);
  }

  return {
    kind: "fs",

    async write(body, opts: WriteOptions = {}): Promise<BlobInfo> {
      const blobId = newBlobId();
      const tmp = join(tmpDir, `${blobId}.part`);
      const file = await Deno.open(tmp, { write: true, createNew: true });
      let info = { size: 0, sha256: "" };
      // One write stays in flight while the next piece is parsed, hashed and copied (pool 2).
      let inFlight: Promise<void> | null = null;
      try {
        for await (const piece of coalesce(body, WRITE_CHUNK, opts, (i) => (info = i), 2)) {
          await inFlight;
          inFlight = writeAll(file, piece);
        }
        await inFlight;
        file.close();
        await place(tmp, blobId);
      } catch (err) {
        await inFlight?.catch(() => {});
        try {
          file.close();
        } catch { /* already closed */ }
        await Deno.remove(tmp).catch(() => {});
        throw err;
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
            controller.error(new Error(`blob ${blobId} ended early`));
            return;
          }
          remaining -= fill;
          controller.enqueue(fill === buf.byteLength ? buf : buf.subarray(0, fill));
        },
        cancel: close,
        // One chunk read ahead: the next disk read overlaps the socket write of this one.
      }, { highWaterMark: READ_CHUNK });
    },

    async copy(blobId: string): Promise<string> {
      const copyId = newBlobId();
      const tmp = join(tmpDir, `${copyId}.part`);
      try {
        await Deno.copyFile(pathOf(blobId), tmp);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) throw new BlobNotFoundError(blobId);
        throw err;
      }
      await place(tmp, copyId);
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

    removeAbandonedWrites(before: number): Promise<number> {
      return removeStaleTemps(tmpDir, before);
    },
  };
}
