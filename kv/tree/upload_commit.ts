/**
 * The final step of a resumable upload (kv/tree/upload_append.ts writes its bytes): the staged
 * bytes become a blob, recorded on the upload as `sealed`, then committed as the file with the
 * upload's completion in the same commit (the caller's `commitFile`, kv/tree/content.ts).
 *
 * That commit can lose to concurrent changes (many uploads into one folder, one quota) past the
 * retries of the commit itself; it is tried again here a few times with a growing pause, and if
 * it still fails the upload is kept as it is: sealed, at its offset (before the final bytes), and
 * SERVICE_002 (503, Retry-After) says "retry". The retried request sends the same bytes again
 * (`appendSealed`): they are compared with the blob's, and the commit is tried once more. No
 * conflict ever makes an upload fail for good (docs/api.md "Resumable uploads").
 */
import { Buffer } from "node:buffer";
import { type BlobInfo, isOutOfSpace } from "../../blobs/store.ts";
import { isTransientKvError } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail, isDriveError } from "../errors.ts";
import type { Resource } from "./resources.ts";
import { Claim, recordCompletion, type Upload } from "./uploads.ts";

export interface AppendInput {
  id: string;
  userSeq: number;
  /** Upload-Offset: must be the upload's offset. */
  offset: number;
  /** Content-Length when known: more than the rest of the upload is refused unread. */
  contentLength: number | null;
  body: ReadableStream<Uint8Array> | null;
  /** The SHA-256 the client sent for this request's bytes (Upload-Checksum). */
  checksum: Uint8Array | null;
  /**
   * Runs before any byte is read when this request will complete the upload (the rules of the
   * final commit: authorization, quota, lock), so a refusal leaves the upload resumable.
   */
  precheck(upload: Upload): Promise<void>;
  /** Commits the completed bytes as the file, with `extendCommit` inside that commit. */
  commitFile(
    upload: Upload,
    blob: BlobInfo,
    extendCommit: (op: Deno.AtomicOperation, file: Resource) => Promise<void>,
  ): Promise<Resource>;
}

export interface AppendResult {
  upload: Upload;
  /** The file this request completed, if it did. */
  file: Resource | null;
}

/** Tries of the final commit (each one the commit's own retries) before the upload is kept. */
const FINAL_ATTEMPTS = 4;
/** The pause after the first failed try; it doubles per try (with jitter): ~0.7 s in all. */
const FINAL_BACKOFF_MS = 100;

/** A commit that lost to concurrent changes or found the store busy: worth another try. */
function retryable(err: unknown): boolean {
  return isDriveError(err, "RESOURCE_012") || isDriveError(err, "SERVICE_002") ||
    (!isDriveError(err) && isTransientKvError(err));
}

/** Records the final commit's refusal: the upload is failed (410), and its blob goes. */
async function markFailed(d: Deps, claim: Claim, blob: BlobInfo | null, err: unknown) {
  const error = isDriveError(err)
    ? { code: err.code, message: err.message }
    : { code: "SERVICE_001" as const, message: "Internal error" };
  await claim.release({ state: "failed", error, sealed: null });
  if (blob) await d.blobs.delete(blob.blobId).catch(() => {});
}

/**
 * Answers a final step that found storage full (507), keeping the upload resumable: its stage,
 * or its sealed `blob`, stays, and sending the last bytes again completes it once space is freed.
 */
async function keepOnFullStorage(
  claim: Claim,
  upload: Upload,
  err: unknown,
  blob?: BlobInfo,
): Promise<never> {
  const kept = await claim.release(blob ? { sealed: blob, staged: null } : {});
  fail(
    "SERVICE_003",
    `Storage is full (${err instanceof Error ? err.message : err}); the upload is kept at ` +
      `offset ${kept?.offset ?? upload.offset}: send its last bytes again once space is freed`,
  );
}

/**
 * Commits the upload's bytes as its file, under `claim` (still renewed: the tries may take a
 * while). The bytes are the stage's, sealed now with `sha256`, or the blob `upload.sealed`.
 */
export async function complete(
  d: Deps,
  claim: Claim,
  upload: Upload,
  sha256: string,
  input: AppendInput,
): Promise<AppendResult> {
  let blob: BlobInfo;
  if (upload.sealed) {
    blob = upload.sealed;
  } else {
    try {
      blob = await d.blobs.sealStaged(upload.stageId, { size: upload.length, sha256 });
    } catch (err) {
      // A full disk is no fault of the bytes: the stage stays, to be sealed once space is freed.
      if (isOutOfSpace(err)) await keepOnFullStorage(claim, upload, err);
      await markFailed(d, claim, null, err);
      throw err;
    }
    // The stage is gone: from now on the record names the blob, so a crash or a deferred
    // commit leaves an upload that can still complete.
    await claim.update({ sealed: blob, staged: null });
  }
  for (let attempt = 1;; attempt++) {
    let done: Upload | null = null;
    try {
      const file = await input.commitFile(upload, blob, async (op, file) => {
        const cur = await claim.reread();
        if (cur.value?.claim?.id !== claim.id) {
          fail("UPLOAD_003", "The upload was taken over while this request wrote; resume");
        }
        done = recordCompletion(d, op, cur as Deno.KvEntry<Upload>, file);
      });
      return { upload: done!, file };
    } catch (err) {
      if (retryable(err) && attempt < FINAL_ATTEMPTS) {
        const ms = FINAL_BACKOFF_MS * 2 ** (attempt - 1);
        await new Promise((r) => setTimeout(r, ms / 2 + Math.random() * ms));
        continue;
      }
      // Taken over: the upload is no longer this request's to mark (nor its blob to delete).
      if (isDriveError(err, "UPLOAD_003")) throw err;
      if (isOutOfSpace(err)) await keepOnFullStorage(claim, upload, err, blob);
      if (!retryable(err)) {
        await markFailed(d, claim, blob, err);
        throw err;
      }
      const kept = await claim.release({ sealed: blob, staged: null });
      fail(
        "SERVICE_002",
        `The file could not be committed (${
          err instanceof Error ? err.message : err
        }); the upload is kept at offset ${
          kept?.offset ?? upload.offset
        }: send its last bytes again to complete it`,
      );
    }
  }
}

/**
 * Compares `body` with `stored` (the same bytes, as the blob holds them); false at the first
 * difference, or when either has bytes the other lacks.
 */
async function sameBytes(
  body: AsyncIterable<Uint8Array>,
  stored: ReadableStream<Uint8Array>,
): Promise<boolean> {
  const reader = stored.getReader();
  let pending: Uint8Array = new Uint8Array(0);
  try {
    for await (const piece of body) {
      for (let off = 0; off < piece.byteLength;) {
        if (pending.byteLength === 0) {
          const { value, done } = await reader.read();
          if (done) return false;
          pending = value;
          continue;
        }
        const n = Math.min(pending.byteLength, piece.byteLength - off);
        const a = Buffer.from(piece.buffer, piece.byteOffset + off, n);
        if (!a.equals(Buffer.from(pending.buffer, pending.byteOffset, n))) return false;
        pending = pending.subarray(n);
        off += n;
      }
    }
    if (pending.byteLength > 0) return false;
    return (await reader.read()).done;
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/**
 * A request on a sealed upload (its final commit was deferred): it must bring the rest of the
 * bytes again, exactly as stored, and then the commit is tried once more. Fewer bytes are
 * REQUEST_006 and other bytes UPLOAD_004, both leaving the upload as it was.
 */
export async function appendSealed(
  d: Deps,
  entry: Deno.KvEntry<Upload>,
  input: AppendInput,
): Promise<AppendResult> {
  const upload = entry.value;
  const sealed = upload.sealed!;
  const rest = upload.length - upload.offset;
  if (input.contentLength !== null && input.contentLength !== rest) {
    fail(
      "REQUEST_006",
      `The upload's bytes are stored and its file is to be committed: send the last ${rest} ` +
        `bytes (from offset ${upload.offset}) in one request`,
    );
  }
  const claim = await Claim.take(d, entry);
  try {
    const stored = rest === 0
      ? ReadableStream.from<Uint8Array>([])
      : await d.blobs.read(sealed.blobId, { start: upload.offset, end: upload.length - 1 });
    const body = input.body ?? ReadableStream.from<Uint8Array>([]);
    if (!(await sameBytes(body, stored))) {
      await claim.release({});
      fail(
        "UPLOAD_004",
        `The bytes sent are not the upload's last ${rest} bytes as stored; they were discarded`,
      );
    }
    return await complete(d, claim, upload, sealed.sha256, input);
  } finally {
    await claim.stop();
  }
}
