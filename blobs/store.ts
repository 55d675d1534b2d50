/**
 * Where file bytes live. Three back ends (`fs`, `kv`, `s3`) implement this one interface and pass the
 * same contract tests (blobs/store_test.ts). Metadata (which blob is a file's content)
 * lives in KV resources; a blob becomes visible only when a resource record points at it.
 */
import { createHash } from "node:crypto";

export interface BlobInfo {
  blobId: string;
  size: number;
  /** Lowercase hex SHA-256 of the bytes. */
  sha256: string;
}

export interface WriteOptions {
  /** More bytes than this fails the write with BlobTooLargeError; nothing is kept. */
  maxBytes?: number;
  /** When set, a different byte count fails with BlobSizeMismatchError; nothing is kept. */
  expectedSize?: number;
}

export interface ByteRange {
  /** Inclusive first byte. */
  start: number;
  /** Inclusive last byte. */
  end: number;
}

/** A complete blob as the orphan sweep sees it (kv/tree/blob_sweep.ts). */
export interface StoredBlob {
  blobId: string;
  size: number;
  /** When it was stored (ms); 0 when the store did not record it (older kv blobs). */
  storedAt: number;
}

export interface BlobStore {
  readonly kind: "fs" | "kv" | "s3";
  /** Streams `body` into a new blob, hashing as it goes. On any failure nothing is left behind. */
  write(
    body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    opts?: WriteOptions,
  ): Promise<BlobInfo>;
  /** The blob's bytes (or the inclusive `range` of them) as a stream. */
  read(blobId: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>>;
  /** A new blob with the same bytes. */
  copy(blobId: string): Promise<string>;
  /** Removes a blob; deleting a missing blob is not an error. */
  delete(blobId: string): Promise<void>;
  /** Every complete blob, referenced or not, in no particular order. */
  list(): AsyncIterable<StoredBlob>;
  /**
   * The writes that never finished because their process died (a crash or a kill mid-write):
   * their writer's lease lapsed (blobs/leases.ts). Finding them removes nothing; a live write,
   * on this process or any other on the same KV, is never among them.
   */
  abandonedWrites(): AsyncIterable<AbandonedWrite>;

  // Staged bytes of a resumable upload (tus, kv/tree/uploads.ts): appended to over many requests,
  // possibly on different processes, then sealed into a blob without copying. The caller keeps
  // the committed offset (in KV) and lets one append run at a time; the store keeps the bytes.

  /**
   * A new, empty stage. Until `sealStaged` or `discardStaged`, it is kept; once `expiresAt` (ms)
   * has passed it counts among `abandonedWrites`, so a stage its caller forgot still goes.
   */
  stage(expiresAt: number): Promise<string>;
  /**
   * Writes `body` at `offset` of the stage, first dropping anything staged past `offset` (what a
   * failed append left beyond the committed offset). Resolves with the bytes stored. When the
   * body fails (the client went away) or `check` throws, rejects with StageAppendError telling
   * how many bytes were stored: every byte read from the body before the failure is stored, and
   * all were passed to `onStored`, unless storing itself failed. StageNotFoundError when the
   * stage is gone (sealed, discarded or expired and cleared).
   */
  appendStaged(
    stageId: string,
    offset: number,
    body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
    opts?: StageAppendOptions,
  ): Promise<number>;
  /** The staged bytes of `range` (for a hash to catch up after a change of process). */
  readStaged(stageId: string, range: ByteRange): Promise<ReadableStream<Uint8Array>>;
  /**
   * Makes the first `info.size` staged bytes a blob (the rest is dropped) and ends the stage. The
   * caller vouches for `info.sha256` (it hashed the bytes as they were stored).
   */
  sealStaged(stageId: string, info: { size: number; sha256: string }): Promise<BlobInfo>;
  /** Removes a stage and its bytes; a missing stage is not an error. */
  discardStaged(stageId: string): Promise<void>;
}

export interface StageAppendOptions {
  /** Called before each piece is written; throwing stops the append (e.g. the caller's claim lapsed). */
  check?(): void;
  /**
   * Told every piece of the body once it is stored, in order (the caller's running hash); the
   * piece is valid only during the call.
   */
  onStored?(piece: Uint8Array): void;
  /**
   * The stage's size when the caller knows it (what the last append left, recorded under the
   * caller's claim): when it equals `offset` there is nothing past the offset to find and drop.
   */
  size?: number;
  /**
   * Nothing is written (or dropped) before this settles: the caller's claim, taken meanwhile. The
   * store may open the stage and read the first piece of the body while it waits; when it
   * rejects, the append ends with nothing written.
   */
  ready?: Promise<unknown>;
  /**
   * Told, as an append goes, how many of its bytes (from its offset) are stored durably (synced
   * to disk, or committed to KV); it only grows. What a crash cannot take back: a tus upload's
   * offset never runs ahead of it.
   */
  onDurable?(stored: number): void;
}

/** An append stopped early; `stored` bytes (from its offset on) are in the stage. */
export class StageAppendError extends Error {
  constructor(readonly stored: number, override readonly cause: unknown) {
    super(
      `append stopped after ${stored} bytes: ${cause instanceof Error ? cause.message : cause}`,
    );
  }
}

export class StageNotFoundError extends Error {
  constructor(stageId: string) {
    super(`stage ${stageId} is gone`);
  }
}

/** Stage ids: `<blob id>.<expiresAt ms>`, so a store can tell an expired stage from its id. */
const STAGE_ID = /^([0-9a-f]{32})\.(\d{1,16})$/;

export function newStageId(expiresAt: number): string {
  return `${newBlobId()}.${Math.max(0, Math.floor(expiresAt))}`;
}

/** The blob id the stage becomes and its expiry, or StageNotFoundError for a malformed id. */
export function parseStageId(stageId: string): { blobId: string; expiresAt: number } {
  const m = STAGE_ID.exec(stageId);
  if (!m) throw new StageNotFoundError(stageId);
  return { blobId: m[1], expiresAt: Number(m[2]) };
}

/** What one write stopped half-way left behind (a temp file, chunks without a record). */
export interface AbandonedWrite {
  readonly writeId: string;
  /** Removes it; false when it changed or went meanwhile (another sweep removed it first). */
  remove(): Promise<boolean>;
}

/**
 * Finds the abandoned writes and, unless `dryRun`, removes them; returns how many it found (dry
 * run) or removed. The one path for the sweep, start-up and the periodic cleanup, so a dry run
 * counts exactly the selection a real run removes.
 */
export async function clearAbandonedWrites(
  store: BlobStore,
  opts: { dryRun: boolean },
): Promise<number> {
  // Found first, removed after: removing while a directory or KV listing is open is avoided.
  const found: AbandonedWrite[] = [];
  for await (const write of store.abandonedWrites()) found.push(write);
  if (opts.dryRun) return found.length;
  let removed = 0;
  for (const write of found) if (await write.remove()) removed++;
  return removed;
}

export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body exceeds ${limit} bytes`);
  }
}

export class BlobSizeMismatchError extends Error {
  constructor(readonly expected: number, readonly actual: number) {
    super(`body has ${actual} bytes, ${expected} were declared`);
  }
}

/**
 * The disk (or KV) has no room for more bytes: the file system said ENOSPC, SQLite said "database
 * or disk is full", or a store refused bytes that would eat into the reserve kept for KV
 * (DRIVE_KV_RESERVE_BYTES). The edges answer it as 507 (provider: 503), never as a crash or 500.
 */
export class OutOfSpaceError extends Error {
  constructor(message = "no space left for more bytes") {
    super(message);
    this.name = "OutOfSpaceError";
  }
}

/** Whether `err` (or the cause it carries, e.g. a StageAppendError's) says storage is full. */
export function isOutOfSpace(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    if (e instanceof OutOfSpaceError) return true;
    const code = (e as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT") return true;
    const message = e instanceof Error ? e.message : String(e);
    if (/no space left on device|database or disk is full|SQLITE_FULL|disk quota/i.test(message)) {
      return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** `err` as an OutOfSpaceError when it says storage is full (a StageAppendError stays one). */
export function asOutOfSpace(err: unknown): unknown {
  if (err instanceof StageAppendError) return err;
  return !(err instanceof OutOfSpaceError) && isOutOfSpace(err)
    ? new OutOfSpaceError(err instanceof Error ? err.message : String(err))
    : err;
}

export class BlobNotFoundError extends Error {
  constructor(blobId: string) {
    super(`blob ${blobId} is missing`);
  }
}

/** Whether `blobs` holds `blobId`: opens its bytes and cancels the read. */
export async function blobExists(blobs: BlobStore, blobId: string): Promise<boolean> {
  try {
    const stream = await blobs.read(blobId);
    await stream.cancel();
    return true;
  } catch (err) {
    if (err instanceof BlobNotFoundError) return false;
    throw err;
  }
}

export function newBlobId(): string {
  return crypto.randomUUID().replaceAll("-", "");
}

/**
 * Re-chunks a byte source into pieces of exactly `size` bytes (the last one shorter), hashing
 * and counting as it goes and enforcing the size limits. Coalescing matters: 1 MiB writes are
 * ~1.5x faster than the network's small chunks (docs/benchmarks.md). Pieces are filled into a
 * rotation of `pool` reusable buffers (fresh 1 MiB allocations cost more than the copy), so a
 * yielded piece stays valid only until `pool - 1` further pieces have been requested: a consumer
 * that keeps one write in flight while the next piece fills uses pool 2; one that copies or
 * finishes with each piece before asking for the next can use pool 1.
 */
export async function* coalesce(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
  size: number,
  opts: WriteOptions,
  done: (info: { size: number; sha256: string }) => void,
  pool = 1,
  mode: CoalesceMode = {},
): AsyncGenerator<Uint8Array> {
  const hash = mode.hash === false ? null : createHash("sha256");
  let total = 0;
  // Reused across calls when the caller keeps a pool (a 1 MiB allocation per request adds up to
  // tens of MiB of garbage between collections when many requests arrive back to back).
  const buffers: Uint8Array[] = mode.buffers ?? [];
  const limit = opts.maxBytes ?? Number.MAX_SAFE_INTEGER;
  // A body known to be smaller than a piece (its announced size, or the limit) is one piece in
  // a buffer of its own size: a 5-byte document must not cost a 1 MiB allocation. 1,000 small
  // provider puts left ~65 MiB of glibc heap behind otherwise (docs/benchmarks.md, issue 13).
  const pieceSize = Math.max(1, Math.min(size, opts.expectedSize ?? size, limit));
  let turn = 0;
  const nextBuffer = () => {
    const i = turn++ % pool;
    const have = buffers[i];
    if (have !== undefined && have.byteLength >= pieceSize) return have;
    const fresh = new Uint8Array(pieceSize);
    // Only full-size buffers join the rotation: a smaller one would not hold a later piece.
    if (pieceSize === size) buffers[i] = fresh;
    return fresh;
  };
  // Taken when the first byte of a piece arrives: nothing is allocated for an empty body or
  // after the last full piece.
  let buf: Uint8Array | null = null;
  let fill = 0;
  try {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      total += chunk.byteLength;
      if (total > limit) throw new BlobTooLargeError(limit);
      if (opts.expectedSize !== undefined && total > opts.expectedSize) {
        throw new BlobSizeMismatchError(opts.expectedSize, total);
      }
      hash?.update(chunk);
      let off = 0;
      while (off < chunk.byteLength) {
        buf ??= nextBuffer();
        const n = Math.min(pieceSize - fill, chunk.byteLength - off);
        buf.set(chunk.subarray(off, off + n), fill);
        fill += n;
        off += n;
        if (fill === pieceSize) {
          yield buf.byteLength === pieceSize ? buf : buf.subarray(0, pieceSize);
          buf = null;
          fill = 0;
        }
      }
    }
  } catch (err) {
    // A stage keeps what arrived before its client went away (tus resumes from there).
    if (mode.flushOnError && buf !== null && fill > 0) yield buf.subarray(0, fill);
    throw err;
  }
  if (opts.expectedSize !== undefined && total !== opts.expectedSize) {
    throw new BlobSizeMismatchError(opts.expectedSize, total);
  }
  if (buf !== null && fill > 0) yield buf.subarray(0, fill);
  done({ size: total, sha256: hash?.digest("hex") ?? "" });
}

/** How `coalesce` treats its body besides the limits. */
export interface CoalesceMode {
  /** false: no SHA-256 (a stage's caller hashes what is stored); `done` gets "" then. */
  hash?: boolean;
  /** On a body failure, yield the partly filled piece before rethrowing. */
  flushOnError?: boolean;
  /** Buffers of `size` bytes to fill in turn (allocated and added here when missing). */
  buffers?: Uint8Array[];
}
