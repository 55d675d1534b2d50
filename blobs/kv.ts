/**
 * KV blob store (for Deno Deploy, where there is no disk): bytes in chunks under
 * ["blob_chunk", id, n]; the ["blob", id] record is written last, so a blob exists only once
 * every chunk is in place. ["blob_pending", id] -> start time marks a write in progress, so the
 * chunks of one that never finished can be told from a live one's and removed.
 */
import {
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  coalesce,
  newBlobId,
  type StoredBlob,
} from "./store.ts";

/** Below KV's 64 KiB value limit with room for the serializer's header. */
export const KV_CHUNK = 63 * 1024;
/** Chunks per atomic commit, under KV's 800 KB per-commit limit. */
const CHUNKS_PER_COMMIT = 12;

interface BlobRecord {
  size: number;
  sha256: string;
  chunkSize: number;
  chunks: number;
  /** When the blob was complete (ms); absent on blobs stored before it was recorded. */
  storedAt?: number;
}

/**
 * Where the store keeps its records. The caller hands them in (boot() passes kv/keys.ts's
 * blobStoreKeys), so the byte store imports nothing from the data model above it.
 */
export interface BlobKeys {
  blob(blobId?: string): Deno.KvKey;
  chunk(blobId: string, n?: number): Deno.KvKey;
  pending(blobId?: string): Deno.KvKey;
}

export function openKvBlobStore(kv: Deno.Kv, blobKeys: BlobKeys): BlobStore {
  async function record(blobId: string): Promise<BlobRecord> {
    const rec = await kv.get<BlobRecord>(blobKeys.blob(blobId));
    if (!rec.value) throw new BlobNotFoundError(blobId);
    return rec.value;
  }

  return {
    kind: "kv",

    async write(body, opts = {}): Promise<BlobInfo> {
      const blobId = newBlobId();
      let info = { size: 0, sha256: "" };
      let n = 0;
      let batch = kv.atomic();
      let pending = 0;
      await kv.set(blobKeys.pending(blobId), Date.now());
      try {
        for await (const piece of coalesce(body, KV_CHUNK, opts, (i) => (info = i))) {
          batch.set(blobKeys.chunk(blobId, n++), piece.slice());
          if (++pending === CHUNKS_PER_COMMIT) {
            await batch.commit();
            batch = kv.atomic();
            pending = 0;
          }
        }
        batch.set(
          blobKeys.blob(blobId),
          {
            size: info.size,
            sha256: info.sha256,
            chunkSize: KV_CHUNK,
            chunks: n,
            storedAt: Date.now(),
          } satisfies BlobRecord,
        ).delete(blobKeys.pending(blobId));
        await batch.commit();
      } catch (err) {
        await deletePrefix(kv, blobKeys.chunk(blobId)).catch(() => {});
        await kv.delete(blobKeys.pending(blobId)).catch(() => {});
        throw err;
      }
      return { blobId, ...info };
    },

    async read(blobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
      const rec = await record(blobId);
      const start = range?.start ?? 0;
      const end = range?.end ?? rec.size - 1;
      let next = Math.floor(start / rec.chunkSize);
      const last = rec.size === 0 ? -1 : Math.floor(end / rec.chunkSize);
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (next > last) {
            controller.close();
            return;
          }
          const keys = [];
          for (let i = next; i <= Math.min(last, next + 9); i++) {
            keys.push(blobKeys.chunk(blobId, i));
          }
          const entries = await kv.getMany<Uint8Array[]>(keys);
          for (const entry of entries) {
            const i = entry.key[2] as number;
            if (!entry.value) {
              controller.error(new BlobNotFoundError(blobId));
              return;
            }
            const base = i * rec.chunkSize;
            const from = Math.max(start - base, 0);
            const to = Math.min(end - base + 1, entry.value.byteLength);
            controller.enqueue(entry.value.subarray(from, to));
          }
          next += keys.length;
        },
      });
    },

    async copy(blobId: string): Promise<string> {
      const rec = await record(blobId);
      const info = await this.write(await this.read(blobId));
      if (info.sha256 !== rec.sha256) throw new Error(`blob ${blobId} changed while copying`);
      return info.blobId;
    },

    async delete(blobId: string): Promise<void> {
      await kv.delete(blobKeys.blob(blobId));
      await deletePrefix(kv, blobKeys.chunk(blobId));
    },

    async *list(): AsyncIterable<StoredBlob> {
      for await (const e of kv.list<BlobRecord>({ prefix: blobKeys.blob() })) {
        yield { blobId: e.key[1] as string, size: e.value.size, storedAt: e.value.storedAt ?? 0 };
      }
    },

    async removeAbandonedWrites(before: number): Promise<number> {
      let removed = 0;
      for await (const e of kv.list<number>({ prefix: blobKeys.pending() })) {
        if (e.value >= before) continue;
        const blobId = e.key[1] as string;
        await deletePrefix(kv, blobKeys.chunk(blobId));
        if ((await kv.atomic().check(e).delete(e.key).commit()).ok) removed++;
      }
      return removed;
    },
  };
}

/** Deletes every key under `prefix`, in commits that stay below KV's per-commit limits. */
async function deletePrefix(kv: Deno.Kv, prefix: Deno.KvKey): Promise<void> {
  let batch = kv.atomic();
  let n = 0;
  for await (const entry of kv.list({ prefix })) {
    batch.delete(entry.key);
    if (++n === 500) {
      await batch.commit();
      batch = kv.atomic();
      n = 0;
    }
  }
  if (n > 0) await batch.commit();
}
