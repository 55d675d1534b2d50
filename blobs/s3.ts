/**
 * S3 blob store: one object per blob, `blobs/<blobId>` in one bucket, written once under a fresh
 * random id and never overwritten. Several processes on several hosts share the bucket and one
 * KV, so everything a write leaves half-done is findable from KV by any of them:
 *
 * - Before the first byte goes out, a write records `["s3_pending", blobId]` naming its writer
 *   (blobs/leases.ts) and, for a multipart upload, its upload id. The marker is deleted by a
 *   commit checked against its versionstamp once the object is complete. A marker whose writer's
 *   lease lapsed is an abandoned write: the sweep aborts its upload, deletes its object if it got
 *   that far, then the marker (the `KV -> bucket` direction of the orphan search).
 * - An object no resource or version points at (`bucket -> KV`) is found by the orphan blob sweep
 *   (kv/tree/blob_sweep.ts) through `list`, which leaves out objects whose write still runs.
 *
 * Large bodies go up as multipart uploads of PART_SIZE parts filled into a rotation of
 * PART_POOL buffers: at most PART_POOL - 1 parts in flight while the next one fills, so a write
 * holds at most PART_POOL * PART_SIZE bytes however large the file. A body smaller than one part
 * is one PUT. Resumable uploads stage in KV (blobs/s3_staging.ts).
 */
import { openS3Staging, type S3StageKeys } from "./s3_staging.ts";
import type { S3Client } from "./s3_client.ts";
import { type LeaseKeyOf, LeaseLostError, removeTakenWrite, type WriteLeases } from "./leases.ts";
import {
  type AbandonedWrite,
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  coalesce,
  type CoalesceMode,
  newBlobId,
  type StoredBlob,
  type WriteOptions,
} from "./store.ts";

/** 8 MiB parts: above S3's 5 MiB minimum, few enough requests for a 1 GiB file (128). */
export const PART_SIZE = 8 * 1024 * 1024;
/** Two parts in flight while a third fills: 24 MiB per running write at most. */
const PART_POOL = 3;
const BLOB_ID = /^[0-9a-f]{32}$/;
const PREFIX = "blobs/";

/** The marker of a running write: ["s3_pending", blobId]. */
export interface S3PendingWrite {
  writer: string;
  startedAt: number;
  /** The multipart upload to abort when the write is abandoned. */
  uploadId?: string;
  /** A sweep took it for abandoned; the writer can no longer finish. */
  taken?: true;
}

/** The store's KV keys, handed in by boot (kv/keys.ts), so this module imports no data model. */
export interface S3Keys extends S3StageKeys {
  pending(blobId?: string): Deno.KvKey;
  lease: LeaseKeyOf;
}

export const objectKey = (blobId: string) => `${PREFIX}${blobId}`;

export function openS3BlobStore(
  kv: Deno.Kv,
  s3: S3Client,
  keys: S3Keys,
  leases: WriteLeases,
): BlobStore {
  /**
   * Streams `body` into object `blobId` under a pending marker; on any failure the upload is
   * aborted, the object and the marker removed. `mode` is coalesce's (a sealed stage is hashed
   * already).
   */
  async function writeObject(
    blobId: string,
    body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    opts: WriteOptions,
    mode: CoalesceMode = {},
  ): Promise<BlobInfo> {
    const key = objectKey(blobId);
    const marker = keys.pending(blobId);
    let info = { size: 0, sha256: "" };
    const term = await leases.begin();
    let markedAt: string | null = null;
    let uploadId: string | null = null;
    const inflight: Promise<string>[] = [];
    try {
      const value: S3PendingWrite = { writer: term.writerId, startedAt: Date.now() };
      const marked = await kv.atomic().check({ key: marker, versionstamp: null })
        .set(marker, value).commit();
      if (!marked.ok) throw new Error(`blob id ${blobId} is already in use`);
      markedAt = marked.versionstamp;
      let first: Uint8Array | null = null;
      const send = (piece: Uint8Array, n: number) => {
        const id = uploadId!;
        const p = s3.uploadPart(key, id, n, piece);
        p.catch(() => {});
        inflight.push(p);
      };
      let waited = 0;
      for await (
        const piece of coalesce(body, PART_SIZE, opts, (i) => (info = i), PART_POOL, mode)
      ) {
        term.check();
        if (uploadId === null) {
          if (first === null) {
            // Held until a second piece shows the body needs more than one request.
            first = piece;
            continue;
          }
          uploadId = await s3.createMultipart(key);
          const withUpload = await kv.atomic().check({ key: marker, versionstamp: markedAt })
            .set(marker, { ...value, uploadId }).commit();
          if (!withUpload.ok) {
            await s3.abortMultipart(key, uploadId).catch(() => {});
            throw new LeaseLostError(`blob ${blobId}`);
          }
          markedAt = withUpload.versionstamp;
          send(first, 1);
        }
        send(piece, inflight.length + 1);
        // The buffer the next piece fills must not be one still being sent.
        while (inflight.length - waited >= PART_POOL - 1) await inflight[waited++];
      }
      term.check();
      if (uploadId === null) {
        await s3.put(key, first ?? new Uint8Array(0));
      } else {
        const etags = await Promise.all(inflight);
        await s3.completeMultipart(key, uploadId, etags);
      }
      // The marker goes only while untouched: a sweep that took the write for abandoned may be
      // deleting the object, and a blob a resource points at must not vanish after the fact.
      const done = await kv.atomic().check({ key: marker, versionstamp: markedAt })
        .delete(marker).commit();
      if (!done.ok) {
        markedAt = null;
        throw new LeaseLostError(`blob ${blobId}`);
      }
      return { blobId, ...info };
    } catch (err) {
      await Promise.allSettled(inflight);
      if (uploadId !== null) await s3.abortMultipart(key, uploadId).catch(() => {});
      await s3.delete(key).catch(() => {});
      if (markedAt) {
        const cleared = await kv.atomic().check({ key: marker, versionstamp: markedAt })
          .delete(marker).commit().catch(() => null);
        // A sweep took the marker (and aborted the upload, so S3 said NoSuchUpload): the cause
        // is the lapsed lease, and the caller is told so.
        if (cleared && !cleared.ok) throw new LeaseLostError(`blob ${blobId}`);
      }
      throw err;
    } finally {
      await term.done();
    }
  }

  async function readObject(blobId: string, range?: ByteRange) {
    if (!BLOB_ID.test(blobId)) throw new BlobNotFoundError(blobId);
    if (range && range.end < range.start) {
      // An empty range has no Range header: S3 answers 416 for any range of an empty object.
      if (!await s3.exists(objectKey(blobId))) throw new BlobNotFoundError(blobId);
      return new ReadableStream<Uint8Array>({ start: (c) => c.close() });
    }
    const res = await s3.get(objectKey(blobId), range);
    if (!res) throw new BlobNotFoundError(blobId);
    return res.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  }

  const staging = openS3Staging({
    kv,
    keys,
    seal: (blobId, bytes, size) =>
      writeObject(blobId, bytes, { expectedSize: size }, {
        hash: false,
      }),
    drop: (blobId) => s3.delete(objectKey(blobId)),
  });

  return {
    kind: "s3",
    ...staging.methods,

    write: (body, opts = {}) => writeObject(newBlobId(), body, opts),

    read: readObject,

    async copy(blobId: string): Promise<string> {
      if (!BLOB_ID.test(blobId)) throw new BlobNotFoundError(blobId);
      const copyId = newBlobId();
      const marker = keys.pending(copyId);
      const term = await leases.begin();
      try {
        const value: S3PendingWrite = { writer: term.writerId, startedAt: Date.now() };
        const marked = await kv.atomic().check({ key: marker, versionstamp: null })
          .set(marker, value).commit();
        if (!marked.ok) throw new Error(`blob id ${copyId} is already in use`);
        let copied = false;
        try {
          copied = await s3.copy(objectKey(blobId), objectKey(copyId));
        } finally {
          if (!copied) await s3.delete(objectKey(copyId)).catch(() => {});
        }
        const done = await kv.atomic().check({ key: marker, versionstamp: marked.versionstamp })
          .delete(marker).commit();
        if (!copied) {
          if (done.ok) throw new BlobNotFoundError(blobId);
        } else if (!done.ok) {
          await s3.delete(objectKey(copyId)).catch(() => {});
          throw new LeaseLostError(`blob ${copyId}`);
        }
        return copyId;
      } finally {
        await term.done();
      }
    },

    async delete(blobId: string): Promise<void> {
      if (!BLOB_ID.test(blobId)) return;
      await s3.delete(objectKey(blobId));
    },

    async *list(): AsyncIterable<StoredBlob> {
      // Objects whose write is still running (or was abandoned and not yet swept) are not blobs
      // yet: the markers are read first, so an object finished after this read is still left out.
      const running = new Set<string>();
      for await (const e of kv.list({ prefix: keys.pending() })) running.add(e.key[1] as string);
      for await (const obj of s3.list(PREFIX)) {
        const blobId = obj.key.slice(PREFIX.length);
        if (!BLOB_ID.test(blobId) || running.has(blobId)) continue;
        yield { blobId, size: obj.size, storedAt: obj.modifiedAt };
      }
    },

    async *abandonedWrites(): AsyncIterable<AbandonedWrite> {
      const live = leases.liveness();
      for await (const e of kv.list<S3PendingWrite>({ prefix: keys.pending() })) {
        const mark = e.value;
        if (!mark.taken && await live(mark.writer)) continue;
        const blobId = e.key[1] as string;
        yield {
          writeId: blobId,
          remove: () =>
            removeTakenWrite(kv, e, async () => {
              if (mark.uploadId) await s3.abortMultipart(objectKey(blobId), mark.uploadId);
              await s3.delete(objectKey(blobId));
            }),
        };
      }
      yield* staging.abandoned();
    },
  };
}
