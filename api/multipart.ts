/**
 * Streaming multipart/form-data reader for uploads, on busboy. It reads the request only as fast
 * as the file's consumer takes bytes, so an upload of any size needs about one network chunk of
 * memory. Text fields must come before the file part: they decide where the file goes and whose
 * quota it uses before a byte of it is stored. The file's byte stream ends only once the whole
 * form has been read and found complete, so a truncated or malformed body (or a field after the
 * file) fails the blob write and nothing is stored.
 */
import busboy from "busboy";
import type { Readable } from "node:stream";
import { DriveError, fail } from "../kv/errors.ts";

export interface MultipartUpload {
  /** The text fields sent before the file part. */
  fields: Record<string, string>;
  file: {
    /** The part's filename parameter (undefined when it has none). */
    filename: string | undefined;
    /**
     * The file's bytes; iterating past the end verifies the rest of the form. A chunk is only
     * valid until the next one is requested (the read buffer is reused), so consumers copy it,
     * as the blob stores' `coalesce` does.
     */
    body: AsyncIterable<Uint8Array>;
  };
  /**
   * A lower bound of the file's size, from Content-Length minus what came before the file and
   * the closing boundary; null when the body has no Content-Length.
   */
  minFileSize: number | null;
  /** Stops reading the request; safe to call at any time, and more than once. */
  close(): Promise<void>;
}

const LIMITS = { fields: 32, parts: 64, fieldSize: 4096, headerPairs: 32 };
/** Large enough that a network chunk never waits on busboy's own buffer. */
const PARSER_BUFFER = 1024 * 1024;
/** Request bytes read at once (a BYOB read returns what has arrived, up to this). */
const READ_SIZE = 1024 * 1024;

const broken = (why: string) =>
  new DriveError("REQUEST_006", `The multipart body is broken or ended early: ${why}`);

class MultipartReader {
  readonly fields: Record<string, string> = {};
  filename: string | undefined;
  fileStarted = false;
  /** Request bytes fed to the parser up to and including the chunk where the file began. */
  fileStartBound = 0;
  private queue: Uint8Array[] = [];
  private fileEnded = false;
  private formClosed = false;
  private requestDone = false;
  private needDrain = false;
  private failure: DriveError | null = null;
  private fed = 0;
  private waiter: (() => void) | null = null;
  private readonly reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>;
  /** The read buffer reused once nothing refers to its previous contents any more. */
  private spare: Uint8Array<ArrayBuffer> | null = null;
  private fileStream: Readable | null = null;
  private readonly parser: busboy.Busboy;

  constructor(body: ReadableStream<Uint8Array>, contentType: string, readonly fileField: string) {
    try {
      this.parser = busboy({
        headers: { "content-type": contentType },
        limits: LIMITS,
        preservePath: true,
        defParamCharset: "utf8",
        highWaterMark: PARSER_BUFFER,
        fileHwm: PARSER_BUFFER,
      });
    } catch {
      fail("REQUEST_003", "Send the upload as multipart/form-data with a boundary parameter");
    }
    try {
      this.reader = body.getReader({ mode: "byob" });
    } catch {
      this.reader = body.getReader(); // not a byte stream: take its chunks as they come
    }
    const p = this.parser;
    p.on("field", (name, value, info) => this.onField(name, value, info.valueTruncated));
    p.on("file", (name, stream, info) => this.onFile(name, stream, info.filename));
    p.on("error", (err: Error) => this.setFailure(broken(err.message)));
    p.on("close", () => {
      this.formClosed = true;
      this.wake();
    });
    p.on("drain", () => {
      this.needDrain = false;
      this.wake();
    });
    const tooMany = () =>
      this.setFailure(
        new DriveError("REQUEST_001", `The form has too many parts (at most ${LIMITS.fields})`),
      );
    p.on("partsLimit", tooMany);
    p.on("fieldsLimit", tooMany);
  }

  private onField(name: string, value: string, truncated: boolean) {
    if (this.fileStarted) {
      return this.setFailure(
        new DriveError(
          "REQUEST_001",
          `${name}: the field came after the file part; send every field before the file`,
          name,
        ),
      );
    }
    if (name === this.fileField) {
      return this.setFailure(
        new DriveError("REQUEST_001", `${name}: must be a file part with a filename`, name),
      );
    }
    if (truncated) {
      return this.setFailure(
        new DriveError("REQUEST_001", `${name}: longer than ${LIMITS.fieldSize} bytes`, name),
      );
    }
    if (Object.hasOwn(this.fields, name)) {
      return this.setFailure(new DriveError("REQUEST_001", `${name}: sent twice`, name));
    }
    this.fields[name] = value;
  }

  private onFile(name: string, stream: Readable, filename: string | undefined) {
    stream.on("error", () => {}); // the parser's own "error" event reports the cause
    if (this.fileStarted || name !== this.fileField) {
      stream.resume();
      return this.setFailure(
        new DriveError(
          "REQUEST_001",
          this.fileStarted
            ? `${name}: only one file part is accepted per upload`
            : `${name}: unexpected file part; the file goes in the part named ${this.fileField}`,
          name,
        ),
      );
    }
    this.fileStarted = true;
    this.fileStartBound = this.fed;
    this.filename = filename;
    this.fileStream = stream;
    stream.on("data", (chunk: Uint8Array) => {
      this.queue.push(chunk);
      this.wake();
    });
    stream.on("end", () => {
      this.fileEnded = true;
      this.wake();
    });
  }

  private setFailure(err: DriveError) {
    this.failure ??= err;
    this.wake();
  }

  private wake() {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  /** Feeds the parser one more network chunk, or waits for its next event. */
  private async step(): Promise<void> {
    if (this.needDrain || this.requestDone) {
      return await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = this.reader instanceof ReadableStreamBYOBReader
        ? await this.reader.read(this.readBuffer())
        : await this.reader.read();
    } catch {
      this.requestDone = true;
      this.setFailure(broken("the connection closed before the body was complete"));
      return;
    }
    if (next.done) {
      this.requestDone = true;
      this.parser.end();
      return;
    }
    this.fed += next.value.byteLength;
    if (this.reader instanceof ReadableStreamBYOBReader) {
      this.spare = new Uint8Array(next.value.buffer as ArrayBuffer);
    }
    if (!this.parser.write(next.value)) this.needDrain = true;
  }

  /**
   * Where the next read goes. The previous buffer is reused (no garbage per network chunk) only
   * when nothing can still point into it: the file has started (busboy keeps field values as
   * slices of its input), every file slice was handed on and copied, and neither busboy's input
   * buffer nor the file stream's queue holds data.
   */
  private readBuffer(): Uint8Array<ArrayBuffer> {
    const idle = this.fileStarted && this.queue.length === 0 &&
      this.parser.writableLength === 0 && (this.fileStream?.readableLength ?? 0) === 0;
    if (idle && this.spare) return this.spare;
    return new Uint8Array(READ_SIZE);
  }

  private check() {
    if (this.failure) throw this.failure;
  }

  /** Reads the fields up to the start of the file part. */
  async open(): Promise<void> {
    while (!this.fileStarted && !this.formClosed) {
      this.check();
      await this.step();
    }
    this.check();
    if (!this.fileStarted) fail("RESOURCE_013", "The upload has no part named file");
  }

  async *fileBody(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        this.check();
        const chunk = this.queue.shift();
        if (chunk) yield chunk;
        else if (this.fileEnded) break;
        else await this.step();
      }
      // The file is only good once the closing boundary has been seen.
      while (!this.formClosed) {
        this.check();
        await this.step();
      }
      this.check();
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    if (!this.formClosed) {
      this.formClosed = true;
      this.failure ??= broken("the upload was abandoned");
      this.parser.destroy();
    }
    if (!this.requestDone) {
      this.requestDone = true;
      await this.reader.cancel().catch(() => {});
    }
  }
}

/** Length of the closing delimiter "\r\n--<boundary>--\r\n" (boundaries are at most 70 chars). */
function closingLength(contentType: string): number {
  const m = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return (m?.[1] ?? m?.[2] ?? "x".repeat(70)).length + 8;
}

/**
 * Reads a multipart/form-data request up to the start of its file part (RESOURCE_013 when there
 * is none, REQUEST_006 when the framing breaks, REQUEST_003 when it is not multipart).
 */
export async function openMultipartUpload(
  req: Request,
  fileField = "file",
): Promise<MultipartUpload> {
  const contentType = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\b/i.test(contentType)) {
    fail("REQUEST_003", "Send the upload as multipart/form-data");
  }
  if (!req.body) fail("REQUEST_006", "The upload has no body");
  const reader = new MultipartReader(req.body, contentType, fileField);
  try {
    await reader.open();
  } catch (err) {
    await reader.close();
    throw err;
  }
  const declared = req.headers.get("content-length");
  const minFileSize = declared && /^\d+$/.test(declared)
    ? Math.max(Number(declared) - reader.fileStartBound - closingLength(contentType), 0)
    : null;
  return {
    fields: reader.fields,
    file: { filename: reader.filename, body: reader.fileBody() },
    minFileSize,
    close: () => reader.close(),
  };
}
