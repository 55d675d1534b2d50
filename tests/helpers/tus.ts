/**
 * The real tus-js-client (npm, its Node HTTP stack, which runs on Deno as is) for the resumable
 * upload tests, by full npm specifier so test-only packages stay out of the runtime import map.
 * `tusUpload` runs one client instance to its end (success, error, or an abort we asked for).
 */
import { Buffer } from "node:buffer";
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { Upload, type UploadOptions } from "./tus_client.ts";
import type { ApiUser } from "./api.ts";

export { Upload };

/**
 * What to upload: bytes in memory, a file on disk (read in slices, as the client does), or a
 * stream (then `uploadSize` and a finite `chunkSize` are needed).
 */
export type TusSource = Uint8Array | { path: string } | Readable;

export interface TusRun {
  /** The upload's URL (Location), once created. */
  url: string | null;
  /** How the client ended: "success", "aborted" (we stopped it) or its error. */
  outcome: "success" | "aborted" | Error;
}

export interface TusRunOptions extends Partial<UploadOptions> {
  /** Abort once this many bytes were acknowledged (an interrupted upload). */
  abortAfter?: number;
}

/**
 * Runs one tus-js-client upload for `user` against the server's /uploads; `uploadUrl` resumes
 * an earlier one (a new client instance with the stored URL).
 */
export function tusUpload(
  user: ApiUser,
  source: TusSource,
  opts: TusRunOptions = {},
): Promise<TusRun> {
  const { abortAfter, ...options } = opts;
  const input = source instanceof Uint8Array
    ? Buffer.from(source)
    : source instanceof Readable
    ? source
    : createReadStream(source.path);
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: TusRun["outcome"]) => {
      if (done) return;
      done = true;
      resolve({ url: upload.url, outcome });
    };
    const upload = new Upload(input, {
      endpoint: `${user.url}/api/external/v1/uploads`,
      headers: { authorization: `Bearer ${user.apiKey}` },
      retryDelays: [],
      ...options,
      onError: (err) => finish(err instanceof Error ? err : new Error(String(err))),
      onSuccess: () => finish("success"),
      onChunkComplete: (_chunk, accepted) => {
        if (abortAfter !== undefined && accepted >= abortAfter) {
          upload.abort().then(() => finish("aborted"));
        }
      },
      onProgress: (sent) => {
        // Mid-request: the server keeps what reached it, so the next client resumes past it.
        if (abortAfter !== undefined && sent >= abortAfter) {
          upload.abort().then(() => finish("aborted"));
        }
      },
    });
    upload.start();
  });
}

/** `bytes` as a stream that sends `piece` bytes per `everyMs`: slow enough to be cut mid-request. */
export function throttled(bytes: Uint8Array, piece: number, everyMs: number): Readable {
  return Readable.from((async function* () {
    for (let off = 0; off < bytes.byteLength; off += piece) {
      await new Promise((r) => setTimeout(r, everyMs));
      yield Buffer.from(bytes.subarray(off, off + piece));
    }
  })());
}

/** The HTTP status of a tus-js-client error (DetailedError), if it got a response. */
export function statusOf(outcome: TusRun["outcome"]): number | null {
  if (typeof outcome === "string") return null;
  const res = (outcome as { originalResponse?: { getStatus(): number } | null }).originalResponse;
  return res ? res.getStatus() : null;
}
