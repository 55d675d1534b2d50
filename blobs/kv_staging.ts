/**
 * Stages of the KV blob store (resumable uploads): the bytes are chunks under the blob id the
 * stage will become (`["blob_chunk", id, n]`, the same 63 KiB chunks as a blob), marked by a
 * `["blob_pending", id]` marker that carries the stage's expiry instead of a writer lease.
 * Sealing writes the blob record and deletes the marker in one commit, so no byte is copied. An
 * append commits its chunks checked against the marker, so once a sweep took an expired stage,
 * no late append can write into it. Its bytes are durable per commit (`onDurable`).
 */
import {
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  newStageId,
  parseStageId,
  StageAppendError,
  type StageAppendOptions,
  StageNotFoundError,
} from "./store.ts";

/** Chunks per atomic commit, under KV's 800 KB per-commit limit. */
const CHUNKS_PER_COMMIT = 12;

type StageMethods = Pick<
  BlobStore,
  "stage" | "appendStaged" | "readStaged" | "sealStaged" | "discardStaged"
>;

/** The kv store's key builders a stage uses (blobs/kv.ts's BlobKeys, without its leases). */
interface StageKeys {
  blob(blobId?: string): Deno.KvKey;
  chunk(blobId: string, n?: number): Deno.KvKey;
  pending(blobId?: string): Deno.KvKey;
}

/** What the kv store shares with its stages: its chunk size, record shape and helpers. */
export interface KvStageContext {
  kv: Deno.Kv;
  keys: StageKeys;
  chunkSize: number;
  /** The marker a stage is kept under (blobs/kv.ts's PendingWrite with `stagedUntil`). */
  marker(expiresAt: number): unknown;
  /** The record that makes the chunks a blob. */
  record(info: { size: number; sha256: string; chunks: number }): unknown;
  /** Streams the inclusive `range` of the bytes in a blob id's chunks. */
  readChunks(blobId: string, range: ByteRange): ReadableStream<Uint8Array>;
  /** Deletes every key `selector` lists, in commits within KV's limits. */
  deleteListed(selector: Deno.KvListSelector): Promise<void>;
}

export function kvStaging(ctx: KvStageContext): StageMethods {
  const { kv, keys, chunkSize } = ctx;

  async function liveMarker(stageId: string) {
    const { blobId } = parseStageId(stageId);
    const entry = await kv.get<{ taken?: true }>(keys.pending(blobId));
    if (!entry.value || entry.value.taken) throw new StageNotFoundError(stageId);
    return { blobId, entry };
  }

  /** Deletes the chunks from index `from` on (what a failed append left past the offset). */
  function dropChunksFrom(blobId: string, from: number): Promise<void> {
    return ctx.deleteListed({ prefix: keys.chunk(blobId), start: keys.chunk(blobId, from) });
  }

  return {
    async stage(expiresAt: number): Promise<string> {
      const stageId = newStageId(expiresAt);
      const key = keys.pending(parseStageId(stageId).blobId);
      const res = await kv.atomic().check({ key, versionstamp: null })
        .set(key, ctx.marker(expiresAt)).commit();
      if (!res.ok) throw new Error(`stage id ${stageId} is already in use`);
      return stageId;
    },

    async appendStaged(stageId, offset, body, opts: StageAppendOptions = {}): Promise<number> {
      await opts.ready;
      const { blobId, entry } = await liveMarker(stageId);
      let n = Math.floor(offset / chunkSize);
      // The bytes of chunk n before `offset` stay: they are rewritten with the first new chunk.
      const buf = new Uint8Array(chunkSize);
      let kept = offset % chunkSize;
      if (kept > 0) {
        const first = await kv.get<Uint8Array>(keys.chunk(blobId, n));
        if (!first.value || first.value.byteLength < kept) {
          throw new Error(`stage ${stageId} has fewer bytes than offset ${offset}`);
        }
        buf.set(first.value.subarray(0, kept));
      }
      // A size known to end at the offset leaves no chunk past it to look for.
      if (opts.size !== offset) await dropChunksFrom(blobId, kept > 0 ? n + 1 : n);
      let fill = kept;
      let stored = 0;
      let batch = kv.atomic();
      let pending: Uint8Array[] = [];
      // A failed check (the caller's claim lapsed) means: write nothing more, not even the rest.
      let refused = false;
      const check = () => {
        try {
          opts.check?.();
        } catch (err) {
          refused = true;
          throw err;
        }
      };
      const push = () => {
        const chunk = buf.slice(0, fill);
        batch.set(keys.chunk(blobId, n++), chunk);
        pending.push(chunk.subarray(kept));
        kept = 0;
        fill = 0;
      };
      const flush = async () => {
        if (pending.length === 0) return;
        const res = await batch.check(entry).commit();
        if (!res.ok) throw new StageNotFoundError(stageId);
        for (const piece of pending) {
          opts.onStored?.(piece);
          stored += piece.byteLength;
        }
        // Committed: these bytes are as durable as KV is.
        opts.onDurable?.(stored);
        batch = kv.atomic();
        pending = [];
      };
      try {
        for await (const data of body as AsyncIterable<Uint8Array>) {
          let off = 0;
          while (off < data.byteLength) {
            const k = Math.min(chunkSize - fill, data.byteLength - off);
            buf.set(data.subarray(off, off + k), fill);
            fill += k;
            off += k;
            if (fill === chunkSize) {
              check();
              push();
              if (pending.length === CHUNKS_PER_COMMIT) await flush();
            }
          }
        }
        if (fill > kept) {
          check();
          push();
        }
        await flush();
        return stored;
      } catch (err) {
        // What was read is stored before the failure is reported, unless storing failed.
        if (err instanceof StageNotFoundError) throw err;
        if (refused) throw new StageAppendError(stored, err);
        try {
          if (fill > kept) push();
          await flush();
        } catch {
          throw err;
        }
        throw new StageAppendError(stored, err);
      }
    },

    async readStaged(stageId: string, range: ByteRange): Promise<ReadableStream<Uint8Array>> {
      const { blobId } = await liveMarker(stageId);
      return ctx.readChunks(blobId, range);
    },

    async sealStaged(stageId, info): Promise<BlobInfo> {
      const { blobId, entry } = await liveMarker(stageId);
      const chunks = Math.ceil(info.size / chunkSize);
      await dropChunksFrom(blobId, chunks);
      if (info.size % chunkSize > 0) {
        // The last chunk may carry bytes a failed append left past the end.
        const last = await kv.get<Uint8Array>(keys.chunk(blobId, chunks - 1));
        const keep = info.size % chunkSize;
        if (!last.value || last.value.byteLength < keep) {
          throw new Error(`stage ${stageId} has fewer than ${info.size} bytes`);
        }
        if (last.value.byteLength > keep) {
          await kv.set(keys.chunk(blobId, chunks - 1), last.value.slice(0, keep));
        }
      }
      const res = await kv.atomic().check(entry)
        .set(keys.blob(blobId), ctx.record({ size: info.size, sha256: info.sha256, chunks }))
        .delete(entry.key).commit();
      if (!res.ok) throw new StageNotFoundError(stageId);
      return { blobId, size: info.size, sha256: info.sha256 };
    },

    async discardStaged(stageId: string): Promise<void> {
      const { blobId } = parseStageId(stageId);
      // The marker first: a late append then fails its checked commit instead of writing chunks.
      await kv.delete(keys.pending(blobId));
      await ctx.deleteListed({ prefix: keys.chunk(blobId) });
    },
  };
}

/** Deletes every key `selector` lists, in commits that stay below KV's per-commit limits. */
export async function deleteListed(kv: Deno.Kv, selector: Deno.KvListSelector): Promise<void> {
  let batch = kv.atomic();
  let n = 0;
  for await (const entry of kv.list(selector)) {
    batch.delete(entry.key);
    if (++n === 500) {
      await batch.commit();
      batch = kv.atomic();
      n = 0;
    }
  }
  if (n > 0) await batch.commit();
}
