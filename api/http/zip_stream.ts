/**
 * Streaming a ZIP download (the folder ZIP and the multi-resource ZIP): client-zip writes the
 * entries (kv/tree/zip_entries.ts) in order while a bounded look-ahead prepares the next ones:
 * small files are read whole a few entries ahead (opening and reading thousands of small blobs
 * one after the other would leave the writer waiting on each), big files stream from the blob
 * store when their turn comes. Sizes travel with the entries so client-zip writes ZIP64 records
 * for files or offsets past 4 GiB, and the response carries an exact Content-Length. A blob that
 * fails or turns out another size than its record cuts the response (its Content-Length is then
 * never reached). Never the whole archive in memory.
 */
import { concatBytes } from "../../lib/bytes.ts";
import { downloadZip, predictLength } from "client-zip";
import { pMapIterable } from "p-map";
import { BlobSizeMismatchError } from "../../blobs/store.ts";
import type { Deps } from "../../kv/deps.ts";
import type { ZipEntry } from "../../kv/tree/zip_entries.ts";
import { contentDisposition } from "./content_disposition.ts";

/** Files up to this size are read whole ahead of their turn; bigger ones stream at their turn. */
export const PREFETCH_FILE_BYTES = 256 * 1024;
/**
 * Entries prepared ahead of the one being written, read or not yet consumed. With
 * PREFETCH_FILE_BYTES it bounds the prefetched bytes of one download to 8 MiB.
 */
export const LOOKAHEAD_ENTRIES = 32;
/** Blob reads of the look-ahead running at once. */
export const PREFETCH_READS = 8;

/** One entry as client-zip takes it: a folder, a file read whole, or a file to stream. */
type ZipInput =
  | { name: string; lastModified: Date }
  | { name: string; lastModified: Date; size: number; input: Uint8Array }
  | { name: string; lastModified: Date; size: number; input: AsyncIterable<Uint8Array> };

/** How much a streamed file asks for per read, when the store lets the reader choose. */
const STREAM_PIECE_BYTES = 256 * 1024;

/** Reads a blob's stream piece by piece; null at its end. */
interface PieceReader {
  /** The next piece: at most `max` bytes when the stream lets the reader choose. */
  read(max: number): Promise<Uint8Array | null>;
  cancel(reason?: unknown): Promise<void>;
  release(): void;
}

/**
 * Pieces of `stream`: read into buffers of the size asked when it is a byte stream (fs blobs: one
 * read of a whole small file, or of 256 KiB, instead of 64 KiB pieces each in a buffer of its own;
 * half the CPU for the reads, docs/benchmarks.md), else as the stream delivers them (kv blobs).
 */
function pieceReader(stream: ReadableStream<Uint8Array>): PieceReader {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch { /* not a byte stream */ }
  if (byob) {
    const reader = byob;
    return {
      async read(max) {
        const { done, value } = await reader.read(new Uint8Array(max));
        return done ? null : value;
      },
      cancel: (reason) => reader.cancel(reason),
      release: () => reader.releaseLock(),
    };
  }
  const reader = stream.getReader();
  return {
    async read() {
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    cancel: (reason) => reader.cancel(reason),
    release: () => reader.releaseLock(),
  };
}

/**
 * Yields the blob's pieces, checking that it holds `size` bytes; `onReader` learns the reader (to
 * cancel it when the client goes away). Anything but the end cancels the blob's stream.
 */
async function* blobPieces(
  d: Deps,
  blobId: string,
  size: number,
  pieceBytes: (at: number) => number,
  onReader: (reader: PieceReader | null) => void = () => {},
): AsyncGenerator<Uint8Array> {
  const reader = pieceReader(await d.blobs.read(blobId));
  onReader(reader);
  let at = 0;
  let ended = false;
  try {
    for (let piece; (piece = await reader.read(pieceBytes(at))) !== null;) {
      at += piece.byteLength;
      if (at > size) throw new BlobSizeMismatchError(size, at);
      yield piece;
    }
    if (at !== size) throw new BlobSizeMismatchError(size, at);
    ended = true;
  } finally {
    onReader(null);
    if (ended) reader.release();
    else await reader.cancel().catch(() => {});
  }
}

/** A small blob's bytes, read whole (one read for a byte stream: one spare byte tells a longer blob). */
async function readWhole(d: Deps, blobId: string, size: number): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of blobPieces(d, blobId, size, (at) => size + 1 - at)) pieces.push(piece);
  return pieces.length === 1 ? pieces[0] : concatBytes(pieces);
}

/**
 * Streams `entries` as a ZIP, in their order. A client that goes away stops the blob read in
 * progress and the look-ahead; reads already running finish and are dropped.
 */
export function zipStream(
  d: Deps,
  entries: ZipEntry[],
): { body: ReadableStream<Uint8Array>; length: string } {
  let reading: PieceReader | null = null;
  const streamed = (blobId: string, size: number) =>
    blobPieces(d, blobId, size, () => STREAM_PIECE_BYTES, (reader) => reading = reader);
  // What client-zip takes for one entry. Mapped in order with PREFETCH_READS at a time and at most
  // LOOKAHEAD_ENTRIES waiting, so the reads run ahead of the writer but never far ahead.
  const prepare = async (e: ZipEntry): Promise<ZipInput> => {
    const { name, lastModified, file } = e;
    if (!file) return { name, lastModified };
    if (file.size > PREFETCH_FILE_BYTES) {
      return { name, lastModified, size: file.size, input: streamed(file.blobId, file.size) };
    }
    return {
      name,
      lastModified,
      size: file.size,
      input: await readWhole(d, file.blobId, file.size),
    };
  };
  const prepared = pMapIterable(entries, prepare, {
    concurrency: PREFETCH_READS,
    backpressure: LOOKAHEAD_ENTRIES,
  });
  // A generator of our own, whose return() also ends the look-ahead (yield* passes it on).
  const inputs = (async function* () {
    yield* prepared;
  })();
  const length = predictLength(
    entries.map((e) => e.file ? { name: e.name, size: e.file.size } : { name: e.name }),
  );
  const zip = downloadZip(inputs, { length });
  const source = zip.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await source.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      // client-zip does not end its input iterator when cancelled: end it here, so the
      // look-ahead starts no further reads.
      await reading?.cancel(reason).catch(() => {});
      inputs.return(undefined).catch(() => {});
      await source.cancel(reason).catch(() => {});
    },
  });
  return { body, length: String(length) };
}

/** The 200 answer streaming `entries` as `filename`. */
export function zipResponse(d: Deps, entries: ZipEntry[], filename: string): Response {
  const { body, length } = zipStream(d, entries);
  const headers = new Headers({
    "content-type": "application/zip",
    "content-disposition": contentDisposition("attachment", filename),
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-length": length,
  });
  return new Response(body, { status: 200, headers });
}
