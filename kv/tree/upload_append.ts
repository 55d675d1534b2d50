/**
 * Writing to a resumable upload (tus PATCH; the upload record and its claim are
 * kv/tree/uploads.ts): the body is stored at the upload's offset while it is hashed, the new
 * offset is committed under the request's claim, and the request that reaches the upload's
 * length commits the file through the caller's `commitFile` (kv/tree/content.ts, as a multipart
 * upload), with the upload's completion in that same commit.
 *
 * The file's SHA-256 is computed while the bytes are stored. node:crypto's hash state cannot be
 * saved in KV, so each process keeps the hash of the uploads it served last (`UploadHashes`, a
 * cache, never correctness state): a PATCH on another process, or after a restart, first re-reads
 * the staged bytes before its offset to catch up (docs/api.md "tus").
 *
 * While a request streams, the offset of the bytes the stage holds durably (synced to disk, or
 * committed) is committed every `PROGRESS_MS` under the request's claim, so after a crash HEAD
 * tells nearly all the bytes received; what the stage holds past the offset is dropped by the
 * next append. The final commit is kv/tree/upload_commit.ts.
 */
import { createHash, type Hash, timingSafeEqual } from "node:crypto";
import { isOutOfSpace, StageAppendError, StageNotFoundError } from "../../blobs/store.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { type AppendInput, type AppendResult, appendSealed, complete } from "./upload_commit.ts";
import { Claim, ClaimLostError, readUpload, type Upload, uploadStatus } from "./uploads.ts";

/** The durable offset is committed at most this often while a request streams. */
const PROGRESS_MS = 100;

/**
 * What this process keeps between the PATCHes it serves: the SHA-256 state of the uploads it
 * served last (by id and offset), and reusable read buffers. A cache only: losing it costs a
 * re-read, never correctness.
 */
export class UploadHashes {
  readonly #entries = new Map<string, { offset: number; hash: Hash }>();
  /** Request read buffers reused by the PATCHes of this process (no garbage per request). */
  readonly readBuffers: ArrayBuffer[] = [];
  constructor(readonly max = 1000) {}

  /** The hash of the first `offset` bytes, if this process has it; it leaves the cache. */
  take(id: string, offset: number): Hash | null {
    const entry = this.#entries.get(id);
    this.#entries.delete(id);
    return entry?.offset === offset ? entry.hash : null;
  }

  put(id: string, offset: number, hash: Hash): void {
    this.#entries.delete(id);
    this.#entries.set(id, { offset, hash });
    if (this.#entries.size > this.max) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
  }
}

/** The body ran past the upload's length. */
class TooLongError extends Error {}

/** Request bytes read at once (what has arrived, up to this). */
const READ_BUFFER = 1024 * 1024;

/**
 * Passes `body` through, failing once it has more than `limit` bytes. A byte stream is read into
 * one reused buffer (a BYOB reader), so no chunk is allocated per read: each chunk yielded is
 * valid until the next is asked for, which the blob store's re-chunking allows (it copies first).
 */
async function* limited(
  body: ReadableStream<Uint8Array> | null,
  limit: number,
  onRead: (chunk: Uint8Array) => void,
  pool: ArrayBuffer[],
) {
  if (!body) return;
  let total = 0;
  const count = (chunk: Uint8Array) => {
    total += chunk.byteLength;
    if (total > limit) throw new TooLongError(`the body has more than the ${limit} bytes left`);
    onRead(chunk);
  };
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream: its own chunks.
    for await (const chunk of body) {
      count(chunk);
      yield chunk;
    }
    return;
  }
  // The read buffer moves with each read (a BYOB read transfers it); the last one goes back.
  let buffer = pool.pop() ?? new ArrayBuffer(READ_BUFFER);
  try {
    for (;;) {
      const { done, value } = await reader.read(new Uint8Array(buffer));
      if (!value) return;
      buffer = value.buffer as ArrayBuffer;
      if (done) return;
      count(value);
      yield value;
    }
  } finally {
    reader.releaseLock();
    if (!buffer.detached && pool.length < 4) pool.push(buffer);
  }
}

/** Hashes the staged bytes `start..end-1` into `hash` (bytes this process did not hash). */
async function catchUp(
  d: Deps,
  upload: Upload,
  hash: Hash,
  claim: Claim,
  range: { start: number; end: number },
): Promise<void> {
  if (range.end <= range.start) return;
  const bytes = await d.blobs.readStaged(upload.stageId, {
    start: range.start,
    end: range.end - 1,
  });
  for await (const chunk of bytes) {
    claim.check();
    hash.update(chunk);
  }
}

/** Refuses a PATCH that the upload's state or offset rules out; true when there is nothing to do. */
function admit(u: Upload, input: AppendInput): boolean {
  const status = uploadStatus(u);
  if (status === "expired") fail("UPLOAD_006", `Upload ${u.id} expired`);
  if (status === "failed") {
    fail("UPLOAD_006", `Upload ${u.id} failed at its final commit: ${u.error?.message ?? ""}`);
  }
  if (input.offset !== u.offset) {
    fail(
      "UPLOAD_002",
      `Upload-Offset is ${input.offset} but the upload is at ${u.offset}`,
      "Upload-Offset",
    );
  }
  if (input.contentLength !== null && input.contentLength > u.length - u.offset) {
    fail(
      "REQUEST_002",
      `The body (${input.contentLength} bytes) is larger than the ${
        u.length - u.offset
      } bytes left of Upload-Length`,
    );
  }
  // A completed upload takes an empty PATCH at its end (a client confirming), nothing else.
  if (status === "completed") {
    if ((input.contentLength ?? 0) === 0) return true;
    fail("UPLOAD_002", `Upload ${u.id} is complete`, "Upload-Offset");
  }
  return false;
}

/**
 * tus PATCH (and the body of a creation-with-upload): stores the body at the upload's offset and
 * commits the new offset; the request that reaches Upload-Length commits the file. Bytes stored
 * before the client went away stay (it resumes after them), unless the request carried a checksum
 * that can no longer be verified.
 */
export async function appendToUpload(
  d: Deps,
  hashes: UploadHashes,
  input: AppendInput,
): Promise<AppendResult> {
  const entry = await readUpload(d, input.id, input.userSeq);
  const upload = entry.value;
  if (admit(upload, input)) return { upload, file: null };
  const rest = upload.length - upload.offset;
  if (input.contentLength === rest) await input.precheck(upload);
  if (upload.sealed) return await appendSealed(d, entry, input);
  // The claim's commit runs while the stage opens and the body's first piece is read and hashed
  // (when this process has the hash so far); nothing is written before the claim holds.
  const cached = hashes.take(upload.id, upload.offset);
  const claiming = Claim.take(d, entry);
  const held: { claim?: Claim } = {};
  const ready = claiming.then((claim) => (held.claim = claim));
  ready.catch(() => {}); // a refused claim is reported below, where it is awaited
  // Not served by this process so far (or not since its restart): what is staged is hashed
  // first, under the claim.
  if (!cached) await ready;
  let hash: Hash = cached ?? createHash("sha256");
  const piece = input.checksum ? createHash("sha256") : null;
  let stored = 0;
  let received = 0;
  let failure: unknown = null;
  // Bytes the stage holds durably (told by the store), and of those the ones committed as the
  // offset meanwhile. With a checksum only the whole request counts, so none are committed early.
  let durable = 0;
  let committed = 0;
  let progressAt = Date.now();
  let progressing: Promise<void> | null = null;
  const onDurable = (bytes: number) => {
    durable = bytes;
    if (piece !== null || progressing || Date.now() - progressAt < PROGRESS_MS) return;
    if (upload.offset + durable >= upload.length) return;
    const at = durable;
    progressAt = Date.now();
    progressing = held.claim!.progress(upload.offset + at).then((ok) => {
      if (ok) committed = at;
      progressing = null;
    });
  };
  // The last writer's record of the stage, unless a writer's claim lapsed since.
  const size = upload.claim === null ? upload.staged ?? undefined : undefined;
  try {
    if (!cached) await catchUp(d, upload, hash, held.claim!, { start: 0, end: upload.offset });
    const before = hash.copy();
    let claim: Claim;
    try {
      // Hashed as it is read (overlapping the store's write in flight, as a multipart upload
      // does); the rare request whose bytes were not all stored is settled below.
      const body = limited(input.body, rest, (bytes) => {
        received += bytes.byteLength;
        hash.update(bytes);
        piece?.update(bytes);
      }, hashes.readBuffers);
      const options = { check: () => held.claim!.check(), onDurable, ready, size };
      stored = await d.blobs.appendStaged(upload.stageId, upload.offset, body, options);
      claim = await claiming;
    } catch (err) {
      // Refused claim: UPLOAD_003, nothing written.
      claim = await claiming;
      if (err instanceof StageNotFoundError) {
        await claim.release({
          state: "failed",
          error: { code: "UPLOAD_006", message: "bytes gone" },
        });
        fail("UPLOAD_006", `The bytes of upload ${upload.id} are gone; start a new upload`);
      }
      if (!(err instanceof StageAppendError)) {
        // What the stage holds is unknown: the next writer looks.
        await claim.release({ staged: null });
        throw err;
      }
      stored = err.stored;
      failure = err.cause;
    }
    const expected = input.checksum;
    const digest = piece?.digest();
    const mismatch = digest !== undefined && failure === null &&
      (digest.byteLength !== expected!.byteLength || !timingSafeEqual(digest, expected!));
    // With a checksum only a whole, verified body counts; nothing written past the length or by a
    // writer whose claim lapsed ever counts.
    const refused = mismatch || failure instanceof TooLongError ||
      failure instanceof ClaimLostError || (failure !== null && piece !== null);
    // Bytes already committed as the offset stay (none with a checksum): it never goes back.
    await progressing;
    const keep = refused ? committed : stored;
    let hashOk = true;
    if (keep !== received) {
      // Fewer bytes kept than hashed: back to the hash at the offset, plus what was kept.
      hash = before;
      const range = { start: upload.offset, end: upload.offset + keep };
      hashOk = await catchUp(d, upload, hash, claim, range).then(() => true, () => false);
    }
    const offset = upload.offset + keep;
    if (refused || offset < upload.length) {
      const released = await claim.release({ offset, staged: upload.offset + stored });
      if (released && hashOk) hashes.put(upload.id, offset, hash);
      if (mismatch) fail("UPLOAD_004", "The bytes do not match Upload-Checksum; send them again");
      if (failure instanceof TooLongError) fail("REQUEST_002", failure.message);
      if (failure instanceof ClaimLostError || !released) {
        fail("UPLOAD_003", "The upload was taken over while this request wrote; resume");
      }
      if (isOutOfSpace(failure)) {
        fail("SERVICE_003", `Storage is full; the upload resumes at offset ${offset}`);
      }
      if (failure !== null) {
        fail("REQUEST_006", `The body ended early; the upload resumes at offset ${offset}`);
      }
      return { upload: released, file: null };
    }
    if (!hashOk) {
      hash = createHash("sha256");
      await catchUp(d, upload, hash, claim, { start: 0, end: upload.length });
    }
    return await complete(d, claim, upload, hash.digest("hex"), input);
  } finally {
    await held.claim?.stop();
  }
}
