/**
 * Stages of the S3 store (resumable tus uploads): the staged bytes are 63 KiB chunks in KV
 * (`["s3_stage_chunk", id, n]`, kept by an `["s3_stage", id]` marker carrying the expiry), the
 * same machinery as the kv store's stages (blobs/kv_staging.ts); sealing streams them into the
 * blob's object (one multipart upload, blobs/s3.ts) and then drops them.
 *
 * Why KV and not one S3 multipart upload per tus upload: any host must be able to continue a
 * stage, and two things a stage must do cannot be done on an unfinished multipart upload. Its
 * parts cannot be read back (`readStaged`, which a new process needs to catch its running hash
 * up, kv/tree/upload_append.ts), and every part but the last must be at least 5 MiB while tus
 * PATCH bodies come in whatever size the client picks, so the tail below 5 MiB would need a
 * second shared store anyway. KV is already that shared store, its commits give the exact
 * durable offset tus needs (`onDurable`), and an expired stage is found by the same sweep. The
 * price is one more pass over the bytes at seal and ~16 KV writes per MiB while staging.
 */
import { deleteListed, kvStaging } from "./kv_staging.ts";
import { removeTakenWrite } from "./leases.ts";
import {
  type AbandonedWrite,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
  parseStageId,
  StageNotFoundError,
} from "./store.ts";

/** Below KV's 64 KiB value limit with room for the serializer's header (as blobs/kv.ts). */
const STAGE_CHUNK = 63 * 1024;

export interface S3StageKeys {
  stage(blobId?: string): Deno.KvKey;
  stageChunk(blobId: string, n?: number): Deno.KvKey;
}

/** The marker of a stage: ["s3_stage", blobId]. */
export interface S3StageMarker {
  stagedUntil: number;
  startedAt: number;
  taken?: true;
}

/** Staged chunks: ["s3_stage_chunk", blobId, n], a Uint8Array of at most STAGE_CHUNK bytes. */
export type S3StageChunk = Uint8Array;

export interface S3StagingContext {
  kv: Deno.Kv;
  keys: S3StageKeys;
  /** Writes the object of blob `blobId` from `bytes` (the store's own write, under a marker). */
  seal(blobId: string, bytes: ReadableStream<Uint8Array>, size: number): Promise<BlobInfo>;
  /** Deletes blob `blobId`'s object (a seal that lost its stage to a sweep). */
  drop(blobId: string): Promise<void>;
}

type StageMethods = Pick<
  BlobStore,
  "stage" | "appendStaged" | "readStaged" | "sealStaged" | "discardStaged"
>;

export function openS3Staging(ctx: S3StagingContext): {
  methods: StageMethods;
  abandoned(): AsyncIterable<AbandonedWrite>;
} {
  const { kv, keys } = ctx;

  function readChunks(blobId: string, range: ByteRange): ReadableStream<Uint8Array> {
    const { start, end } = range;
    let next = Math.floor(start / STAGE_CHUNK);
    const last = end < start ? -1 : Math.floor(end / STAGE_CHUNK);
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (next > last) return controller.close();
        const wanted = [];
        for (let i = next; i <= Math.min(last, next + 9); i++) {
          wanted.push(keys.stageChunk(blobId, i));
        }
        const entries = await kv.getMany<S3StageChunk[]>(wanted);
        for (const entry of entries) {
          if (!entry.value) return controller.error(new StageNotFoundError(blobId));
          const base = (entry.key[2] as number) * STAGE_CHUNK;
          const from = Math.max(start - base, 0);
          const to = Math.min(end - base + 1, entry.value.byteLength);
          controller.enqueue(entry.value.subarray(from, to));
        }
        next += wanted.length;
      },
    });
  }

  const deleteAll = (selector: Deno.KvListSelector) => deleteListed(kv, selector);

  const staging = kvStaging({
    kv,
    // The stage's records live in families of their own: its marker is `pending` to kvStaging.
    keys: { blob: keys.stage, chunk: keys.stageChunk, pending: keys.stage },
    chunkSize: STAGE_CHUNK,
    marker: (expiresAt): S3StageMarker => ({ stagedUntil: expiresAt, startedAt: Date.now() }),
    // Never written: sealing is done below, into the bucket.
    record: () => null,
    readChunks,
    deleteListed: deleteAll,
  });

  return {
    methods: {
      stage: staging.stage,
      appendStaged: staging.appendStaged,
      readStaged: staging.readStaged,
      discardStaged: staging.discardStaged,

      async sealStaged(stageId, info): Promise<BlobInfo> {
        const { blobId } = parseStageId(stageId);
        const entry = await kv.get<S3StageMarker>(keys.stage(blobId));
        if (!entry.value || entry.value.taken) throw new StageNotFoundError(stageId);
        await ctx.seal(
          blobId,
          readChunks(blobId, { start: 0, end: info.size - 1 }),
          info.size,
        );
        // The stage ends only if nobody took it meanwhile (expired and swept, or discarded):
        // else the object just written is removed and the seal fails.
        const ended = await kv.atomic().check(entry).delete(entry.key).commit();
        if (!ended.ok) {
          await ctx.drop(blobId).catch(() => {});
          throw new StageNotFoundError(stageId);
        }
        await deleteAll({ prefix: keys.stageChunk(blobId) });
        return { blobId, size: info.size, sha256: info.sha256 };
      },
    },

    async *abandoned(): AsyncIterable<AbandonedWrite> {
      for await (const e of kv.list<S3StageMarker>({ prefix: keys.stage() })) {
        const mark = e.value;
        if (!mark.taken && mark.stagedUntil > Date.now()) continue;
        const blobId = e.key[1] as string;
        yield {
          writeId: blobId,
          remove: () =>
            removeTakenWrite(kv, e, () => deleteAll({ prefix: keys.stageChunk(blobId) })),
        };
      }
    },
  };
}
