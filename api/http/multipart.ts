/**
 * Streaming multipart/form-data reader for uploads, on our own parser (multipart_parser.ts).
 * It reads the request only as fast as the file's consumer takes bytes, into one reused buffer,
 * so an upload of any size needs about one network chunk of memory. Text fields must come before
 * the file part: they decide where the file goes and whose quota it uses before a byte of it is
 * stored. The file's byte stream ends only once the whole form has been read and found complete,
 * so a truncated or malformed body (or a field after the file) fails the blob write and nothing
 * is stored.
 */
import { DriveError, fail } from "../../kv/errors.ts";
import { boundaryOf, type MultipartHandler, MultipartParser } from "./multipart_parser.ts";
import { decodeUtf8, type PartHeaders } from "./multipart_headers.ts";

interface MultipartUpload {
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

const LIMITS = {
  fields: 32,
  fieldSize: 4096,
  headerPairs: 32,
  headerBytes: 16 * 1024,
  ignoredBytes: 64 * 1024,
};
/** Request bytes read at once (a BYOB read returns what has arrived, up to this). */
const READ_SIZE = 1024 * 1024;

const broken = (why: string) =>
  new DriveError("REQUEST_006", `The multipart body is broken or ended early: ${why}`);

class MultipartReader implements MultipartHandler {
  readonly fields: Record<string, string> = {};
  filename: string | undefined;
  fileStarted = false;
  /** Request bytes fed to the parser up to and including the chunk where the file began. */
  fileStartBound = 0;
  /** File bytes parsed from the current chunk and not yet handed on. */
  private queue: Uint8Array[] = [];
  private queueHead = 0;
  private fileEnded = false;
  private formEnded = false;
  private requestDone = false;
  private failure: DriveError | null = null;
  private fed = 0;
  private fieldCount = 0;
  /** The text field being read: its name and bytes so far. */
  private field: { name: string; bytes: Uint8Array; length: number } | null = null;
  private readonly reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array>;
  /** Reused for every read: a chunk's file bytes are handed on before the next read. */
  private buffer: Uint8Array<ArrayBuffer> = new Uint8Array(READ_SIZE);
  private readonly parser: MultipartParser;

  constructor(body: ReadableStream<Uint8Array>, boundary: string, readonly fileField: string) {
    this.parser = new MultipartParser(boundary, this, LIMITS);
    try {
      this.reader = body.getReader({ mode: "byob" });
    } catch {
      this.reader = body.getReader(); // not a byte stream: take its chunks as they come
    }
  }

  part({ name, filename, filenameProblem }: PartHeaders): void {
    if (this.fileStarted) {
      fail(
        "REQUEST_001",
        filename === undefined
          ? `${name}: the field came after the file part; send every field before the file`
          : `${name}: only one file part is accepted per upload`,
        name,
      );
    }
    if (filename === undefined) {
      if (name === this.fileField) {
        fail("REQUEST_001", `${name}: must be a file part with a filename`, name);
      }
      if (++this.fieldCount > LIMITS.fields) {
        fail("REQUEST_001", `The form has too many fields (at most ${LIMITS.fields})`);
      }
      this.field = { name, bytes: new Uint8Array(LIMITS.fieldSize), length: 0 };
      return;
    }
    if (name !== this.fileField) {
      fail(
        "REQUEST_001",
        `${name}: unexpected file part; the file goes in the part named ${this.fileField}`,
        name,
      );
    }
    // Refused even where the filename goes unused (st=version): the request is malformed, and a
    // lenient decoder would have stored U+FFFD in place of the bytes the client meant.
    if (filenameProblem) fail("RESOURCE_004", `filename ${filenameProblem}`, "filename");
    this.fileStarted = true;
    this.fileStartBound = this.fed;
    this.filename = filename;
  }

  data(bytes: Uint8Array): void {
    const field = this.field;
    if (!field) {
      this.queue.push(bytes);
      return;
    }
    if (field.length + bytes.byteLength > LIMITS.fieldSize) {
      fail("REQUEST_001", `${field.name}: longer than ${LIMITS.fieldSize} bytes`, field.name);
    }
    field.bytes.set(bytes, field.length);
    field.length += bytes.byteLength;
  }

  partEnd(): void {
    const field = this.field;
    if (!field) {
      this.fileEnded = true;
      return;
    }
    this.field = null;
    if (Object.hasOwn(this.fields, field.name)) {
      fail("REQUEST_001", `${field.name}: sent twice`, field.name);
    }
    const value = decodeUtf8(field.bytes.subarray(0, field.length));
    if ("problem" in value) fail("REQUEST_001", `${field.name} ${value.problem}`, field.name);
    this.fields[field.name] = value.text;
  }

  end(): void {
    this.formEnded = true;
  }

  /** Reads one more network chunk into the parser. */
  private async step(): Promise<void> {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = this.reader instanceof ReadableStreamBYOBReader
        ? await this.reader.read(this.buffer)
        : await this.reader.read();
    } catch {
      this.requestDone = true;
      throw broken("the connection closed before the body was complete");
    }
    try {
      if (next.done) {
        this.requestDone = true;
        this.parser.finish();
        return;
      }
      this.fed += next.value.byteLength;
      if (this.reader instanceof ReadableStreamBYOBReader) {
        this.buffer = new Uint8Array(next.value.buffer as ArrayBuffer);
      }
      this.parser.write(next.value);
    } catch (err) {
      throw err instanceof DriveError ? err : broken((err as Error).message);
    }
  }

  /** Runs `step`, remembering the first failure so every later call reports the same one. */
  private async advance(): Promise<void> {
    if (this.failure) throw this.failure;
    try {
      await this.step();
    } catch (err) {
      this.failure = err as DriveError;
      throw err;
    }
  }

  /** Reads the fields up to the start of the file part. */
  async open(): Promise<void> {
    while (!this.fileStarted && !this.formEnded && !this.requestDone) await this.advance();
    if (!this.fileStarted) fail("RESOURCE_013", "The upload has no part named file");
  }

  async *fileBody(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        if (this.queueHead < this.queue.length) {
          yield this.queue[this.queueHead++];
          continue;
        }
        this.queue.length = 0;
        this.queueHead = 0;
        if (this.fileEnded) break;
        await this.advance();
      }
      // The file is only good once the closing boundary (and the end of the body) is read.
      while (!this.requestDone) await this.advance();
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    if (!this.requestDone) {
      this.requestDone = true;
      this.failure ??= broken("the upload was abandoned");
      await this.reader.cancel().catch(() => {});
    }
  }
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
  const boundary = boundaryOf(contentType);
  if (boundary === null) {
    fail("REQUEST_003", "Send the upload as multipart/form-data with a boundary parameter");
  }
  if (!req.body) fail("REQUEST_006", "The upload has no body");
  const reader = new MultipartReader(req.body, boundary, fileField);
  try {
    await reader.open();
  } catch (err) {
    await reader.close();
    throw err;
  }
  const declared = req.headers.get("content-length");
  // The closing delimiter "\r\n--<boundary>--\r\n" follows the file.
  const minFileSize = declared && /^\d+$/.test(declared)
    ? Math.max(Number(declared) - reader.fileStartBound - (boundary.length + 8), 0)
    : null;
  return {
    fields: reader.fields,
    file: { filename: reader.filename, body: reader.fileBody() },
    minFileSize,
    close: () => reader.close(),
  };
}
