/**
 * Stages of the file-system blob store (resumable uploads): one file per stage under
 * `<dir>/staging/<stageId>.stage`, appended to in place and renamed into place as the blob when
 * sealed, so the bytes are written once and never copied. The stage id carries its expiry, so an
 * expired stage is recognised from its name alone (`expiredStages`).
 *
 * An append is synced to disk (fdatasync) before it returns or fails with the count of bytes it
 * stored, so the upload's offset committed from that count never names bytes a crash of the
 * machine could take back. While it streams, a caller that asks (`onDurable`) is told the bytes
 * synced so far, by a sync every `SYNC_MS` that runs beside the writes: one sync per piece would
 * cost most of the throughput (measured: 240 MiB/s fell to 65 MiB/s).
 */
import { join } from "node:path";
import {
  type AbandonedWrite,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  coalesce,
  newStageId,
  parseStageId,
  StageAppendError,
  type StageAppendOptions,
  StageNotFoundError,
} from "./store.ts";

const WRITE_CHUNK = 1024 * 1024;
/** While an append streams, its bytes are synced this often (for `onDurable`). */
const SYNC_MS = 200;
const STAGE_SUFFIX = ".stage";

type StageMethods = Pick<
  BlobStore,
  "stage" | "appendStaged" | "readStaged" | "sealStaged" | "discardStaged"
>;

async function writeAll(file: Deno.FsFile, piece: Uint8Array): Promise<void> {
  let off = 0;
  while (off < piece.byteLength) off += await file.write(piece.subarray(off));
}

/**
 * The stage methods of an fs store rooted at `dir`. `placeBlob` moves a finished file to the blob
 * path of `blobId`; `readRange` streams a range of an open file.
 */
export async function openFsStaging(
  dir: string,
  placeBlob: (path: string, blobId: string) => Promise<void>,
  readRange: (file: Deno.FsFile, range: ByteRange) => Promise<ReadableStream<Uint8Array>>,
): Promise<StageMethods & { expiredStages(): AsyncIterable<AbandonedWrite> }> {
  const stagingDir = join(dir, "staging");
  await Deno.mkdir(stagingDir, { recursive: true });
  const pathOf = (stageId: string) => {
    parseStageId(stageId);
    return join(stagingDir, stageId + STAGE_SUFFIX);
  };
  async function open(stageId: string, options: Deno.OpenOptions): Promise<Deno.FsFile> {
    try {
      return await Deno.open(pathOf(stageId), options);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) throw new StageNotFoundError(stageId);
      throw err;
    }
  }

  // Write buffers reused by the appends (two each); many small PATCHes stay off the allocator.
  const spare: Uint8Array[][] = [];

  return {
    async stage(expiresAt: number): Promise<string> {
      const stageId = newStageId(expiresAt);
      (await Deno.open(pathOf(stageId), { write: true, createNew: true })).close();
      return stageId;
    },

    async appendStaged(stageId, offset, body, opts: StageAppendOptions = {}): Promise<number> {
      const file = await open(stageId, { read: true, write: true });
      const buffers = spare.pop() ?? [];
      let stored = 0;
      // Bytes synced so far, the sync running beside the writes (if any), and when it began.
      let synced = 0;
      // (A field, not a variable: it changes in callbacks, which narrowing would not see.)
      const bg = { syncing: null as Promise<void> | null };
      let syncedAt = Date.now();
      const sync = async () => {
        // What was written before the sync began is on disk once it ends.
        const upto = stored;
        await file.syncData();
        synced = upto;
        opts.onDurable?.(upto);
      };
      /** Every byte stored, synced: before the count is returned or reported. */
      const syncAll = async () => {
        await bg.syncing?.catch(() => {});
        if (synced < stored) await sync();
      };
      // One write in flight while the next piece fills (coalesce's pool of 2).
      let inFlight: Promise<void> | null = null;
      let last: Uint8Array | null = null;
      const settle = async () => {
        await inFlight;
        inFlight = null;
        if (last) {
          opts.onStored?.(last);
          stored += last.byteLength;
          last = null;
        }
        if (opts.onDurable && !bg.syncing && Date.now() - syncedAt >= SYNC_MS) {
          syncedAt = Date.now();
          bg.syncing = sync().finally(() => (bg.syncing = null));
          bg.syncing.catch(() => {}); // a failed sync shows in the last one (syncAll)
        }
      };
      const pieces = coalesce(body, WRITE_CHUNK, {}, () => {}, 2, {
        hash: false,
        flushOnError: true,
        buffers,
      })[Symbol.asyncIterator]();
      // The first piece is read (and hashed by the caller) while the caller's claim is taken.
      let next: Promise<IteratorResult<Uint8Array>> | null = pieces.next();
      try {
        await opts.ready;
        // A stage known to end at the offset needs no look (stat) nor cut (truncate).
        if (opts.size !== offset) {
          const size = (await file.stat()).size;
          if (size < offset) {
            throw new Error(`stage ${stageId} has ${size} bytes, fewer than offset ${offset}`);
          }
          if (size > offset) await file.truncate(offset);
        }
        await file.seek(offset, Deno.SeekMode.Start);
        for (;;) {
          const reading = next!;
          next = null;
          const read = await reading;
          if (read.done) break;
          // A failed check stops before this piece: only the write in flight completes.
          opts.check?.();
          await settle();
          last = read.value;
          inFlight = writeAll(file, read.value);
          // Observed now: a write that fails (ENOSPC) while the next piece is awaited must not be
          // an unhandled rejection, which ends the process; settle() reports it.
          inFlight.catch(() => {});
          // Only now: the piece asked for next fills the buffer whose write just settled.
          next = pieces.next();
          next.catch(() => {}); // likewise for a body that fails while a write is awaited
        }
        await settle();
        await syncAll();
        return stored;
      } catch (err) {
        // What was read is stored before the failure is reported, unless storing failed.
        const flushed = await settle().then(syncAll).then(() => true, () => false);
        if (err instanceof StageNotFoundError || !flushed) throw err;
        throw new StageAppendError(stored, err);
      } finally {
        await bg.syncing?.catch(() => {});
        file.close();
        if (next) {
          // A piece is still being read (the append failed before taking it): the body is
          // dropped, and its buffers, still being filled, are not reused.
          next.catch(() => {});
          pieces.return(undefined).catch(() => {});
        } else {
          await pieces.return(undefined);
          if (spare.length < 4) spare.push(buffers);
        }
      }
    },

    async readStaged(stageId: string, range: ByteRange): Promise<ReadableStream<Uint8Array>> {
      return readRange(await open(stageId, { read: true }), range);
    },

    async sealStaged(stageId, info): Promise<BlobInfo> {
      const { blobId } = parseStageId(stageId);
      const path = pathOf(stageId);
      const file = await open(stageId, { read: true, write: true });
      try {
        const size = (await file.stat()).size;
        if (size < info.size) throw new Error(`stage ${stageId} has ${size} of ${info.size} bytes`);
        await file.truncate(info.size);
        // The orphan sweep ages a blob by its mtime: a sealed blob is new.
        const now = new Date();
        await file.utime(now, now);
      } finally {
        file.close();
      }
      await placeBlob(path, blobId);
      return { blobId, size: info.size, sha256: info.sha256 };
    },

    async discardStaged(stageId: string): Promise<void> {
      await Deno.remove(pathOf(stageId)).catch((err) => {
        if (!(err instanceof Deno.errors.NotFound)) throw err;
      });
    },

    async *expiredStages(): AsyncIterable<AbandonedWrite> {
      const now = Date.now();
      for await (const entry of Deno.readDir(stagingDir)) {
        if (!entry.isFile || !entry.name.endsWith(STAGE_SUFFIX)) continue;
        const stageId = entry.name.slice(0, -STAGE_SUFFIX.length);
        let expiresAt: number;
        try {
          expiresAt = parseStageId(stageId).expiresAt;
        } catch {
          continue;
        }
        if (expiresAt > now) continue;
        const path = join(stagingDir, entry.name);
        yield {
          writeId: stageId,
          remove: () => Deno.remove(path).then(() => true, () => false),
        };
      }
    },
  };
}
