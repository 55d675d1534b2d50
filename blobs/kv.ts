/**
 * KV blob store (for Deno Deploy, where there is no disk): bytes in chunks under
 * ["blob_chunk", id, n]; the ["blob", id] record is written last, so a blob exists only once
 * every chunk is in place. A write marks itself first with ["blob_pending", id] naming its writer
 * (blobs/leases.ts); the commit that writes the record deletes the marker. A marker whose
 * writer's lease lapsed was left, with its chunks, by a process that died mid-write.
 */
import { deleteListed, kvStaging } from "./kv_staging.ts";
import { type LeaseKeyOf, LeaseLostError, openWriteLeases, type WriteLeases } from "./leases.ts";
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
} from "./store.ts";
import { guardedStaging } from "./reserve.ts";

/** Below KV's 64 KiB value limit with room for the serializer's header. */
export const KV_CHUNK = 63 * 1024;
/** Chunks per atomic commit, under KV's 800 KB per-commit limit. */
const CHUNKS_PER_COMMIT = 12;
/**
 * Versions before leases stored only the start time (a number) as the marker, and never renewed
 * anything; such a write that old was abandoned (the rule those versions applied).
 */
const LEGACY_PENDING_MS = 24 * 60 * 60 * 1000;

/** The marker of a running write: ["blob_pending", id]. */
interface PendingWrite {
  /** The writer whose lease vouches for it. */
  writer: string;
  startedAt: number;
  /** A sweep took it for abandoned and is removing its chunks; the writer can no longer finish. */
  taken?: true;
  /**
   * A stage of a resumable upload (blobs/kv_staging.ts), kept until then (ms) whatever the
   * writer; `writer` is "" then.
   */
  stagedUntil?: number;
}

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
  lease: LeaseKeyOf;
}

export interface KvStoreOptions {
  /**
   * Asked before bytes are stored (throws OutOfSpaceError when they would eat into the reserve
   * kept for the rest of KV): a KV file on a local disk (blobs/reserve.ts spaceGuard). None: KV
   * itself says when it is full.
   */
  room?: (bytes: number) => Promise<void>;
}

/** `leases` defaults to this store's leases on `kv` with the default timing. */
export function openKvBlobStore(
  kv: Deno.Kv,
  blobKeys: BlobKeys,
  leases: WriteLeases = openWriteLeases(kv, blobKeys.lease, "kv"),
  opts: KvStoreOptions = {},
): BlobStore {
  const room = opts.room ?? (() => Promise.resolve());
  async function record(blobId: string): Promise<BlobRecord> {
    const rec = await kv.get<BlobRecord>(blobKeys.blob(blobId));
    if (!rec.value) throw new BlobNotFoundError(blobId);
    return rec.value;
  }

  /** Streams the inclusive byte range `start..end` (empty when end < start) of a blob's chunks. */
  function readChunks(blobId: string, chunkSize: number, range: ByteRange) {
    const { start, end } = range;
    let next = Math.floor(start / chunkSize);
    const last = end < start ? -1 : Math.floor(end / chunkSize);
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
          const base = i * chunkSize;
          const from = Math.max(start - base, 0);
          const to = Math.min(end - base + 1, entry.value.byteLength);
          controller.enqueue(entry.value.subarray(from, to));
        }
        next += keys.length;
      },
    });
  }

  // Stages (resumable uploads): chunks under the blob id they become, kept by a marker.
  const staging = kvStaging({
    kv,
    keys: blobKeys,
    chunkSize: KV_CHUNK,
    marker: (expiresAt): PendingWrite => ({
      writer: "",
      startedAt: Date.now(),
      stagedUntil: expiresAt,
    }),
    record: (info): BlobRecord => ({ ...info, chunkSize: KV_CHUNK, storedAt: Date.now() }),
    readChunks: (blobId, range) => readChunks(blobId, KV_CHUNK, range),
    deleteListed: (selector) => deleteListed(kv, selector),
  });

  return {
    kind: "kv",
    ...staging,
    ...guardedStaging(staging, room),

    async write(body, opts = {}): Promise<BlobInfo> {
      const blobId = newBlobId();
      let info = { size: 0, sha256: "" };
      let n = 0;
      let batch = kv.atomic();
      let pending = 0;
      const term = await leases.begin();
      const marker = blobKeys.pending(blobId);
      let markedAt: string | null = null;
      try {
        await room(0);
        const value: PendingWrite = { writer: term.writerId, startedAt: Date.now() };
        const marked = await kv.atomic().check({ key: marker, versionstamp: null })
          .set(marker, value).commit();
        if (!marked.ok) throw new Error(`blob id ${blobId} is already in use`);
        markedAt = marked.versionstamp;
        for await (const piece of coalesce(body, KV_CHUNK, opts, (i) => (info = i))) {
          term.check();
          batch.set(blobKeys.chunk(blobId, n++), piece.slice());
          if (++pending === CHUNKS_PER_COMMIT) {
            await room(pending * KV_CHUNK);
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
        );
        // The record commits only while the marker is untouched: a sweep that took the write for
        // abandoned may have deleted chunks already, and a record over missing chunks would be a
        // corrupt blob.
        batch.check({ key: marker, versionstamp: markedAt }).delete(marker);
        if (!(await batch.commit()).ok) throw new LeaseLostError(`blob ${blobId}`);
      } catch (err) {
        await deleteListed(kv, { prefix: blobKeys.chunk(blobId) }).catch(() => {});
        // Unless a sweep took it (then the sweep removes it).
        if (markedAt) {
          await kv.atomic().check({ key: marker, versionstamp: markedAt }).delete(marker).commit()
            .catch(() => {});
        }
        throw asOutOfSpace(err);
      } finally {
        await term.done();
      }
      return { blobId, ...info };
    },

    async read(blobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
      const rec = await record(blobId);
      const start = range?.start ?? 0;
      const end = range?.end ?? rec.size - 1;
      return readChunks(blobId, rec.chunkSize, { start, end });
    },

    async copy(blobId: string): Promise<string> {
      const rec = await record(blobId);
      const info = await this.write(await this.read(blobId));
      if (info.sha256 !== rec.sha256) throw new Error(`blob ${blobId} changed while copying`);
      return info.blobId;
    },

    async delete(blobId: string): Promise<void> {
      await kv.delete(blobKeys.blob(blobId));
      await deleteListed(kv, { prefix: blobKeys.chunk(blobId) });
    },

    async *list(): AsyncIterable<StoredBlob> {
      for await (const e of kv.list<BlobRecord>({ prefix: blobKeys.blob() })) {
        yield { blobId: e.key[1] as string, size: e.value.size, storedAt: e.value.storedAt ?? 0 };
      }
    },

    async *abandonedWrites(): AsyncIterable<AbandonedWrite> {
      const live = leases.liveness();
      const legacyBefore = Date.now() - LEGACY_PENDING_MS;
      for await (const e of kv.list<PendingWrite | number>({ prefix: blobKeys.pending() })) {
        const blobId = e.key[1] as string;
        const mark = e.value;
        if (typeof mark === "number") {
          if (mark >= legacyBefore) continue;
        } else if (mark.stagedUntil !== undefined) {
          // A stage goes by its expiry, not by a writer: it outlives the requests appending to it.
          if (!mark.taken && mark.stagedUntil > Date.now()) continue;
        } else if (!mark.taken && await live(mark.writer)) {
          continue;
        }
        yield {
          writeId: blobId,
          async remove() {
            // The marker first: a writer that was only paused can no longer commit a record over
            // the chunks removed here. A sweep that dies half-way leaves it taken, for the next.
            const taken: PendingWrite = typeof mark === "number"
              ? { writer: "", startedAt: mark, taken: true }
              : { ...mark, taken: true };
            const res = await kv.atomic().check(e).set(e.key, taken).commit();
            if (!res.ok) return false;
            await deleteListed(kv, { prefix: blobKeys.chunk(blobId) });
            await kv.atomic().check({ key: e.key, versionstamp: res.versionstamp }).delete(e.key)
              .commit();
            return true;
          },
        };
      }
    },
  };
}
