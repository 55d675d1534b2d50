/**
 * The watchdog over served connections. Deno does not report bytes as they arrive, so it infers
 * progress from what it does report: a request's handler runs once the request's headers are
 * complete, the request's `completed` settles once its response is sent, and the reads of its
 * body pass through a byte stream that hands the caller's buffer on unchanged. These events only
 * write timestamps; one sweep over all connections enforces three limits:
 *
 * - accepted and no request yet: the headers must be complete within `headerTimeoutMs`;
 * - a response sent and none in flight: the next request's headers must be complete within
 *   `keepAliveTimeoutMs`, which bounds an idle keep-alive connection and a slow next request;
 * - a body read that waits `bodyIdleTimeoutMs` for client bytes fails.
 *
 * Any of them cuts the connection.
 */
import type { ConnectionLimits } from "./limits.ts";
import { type ConnectionServer, requestWithBody } from "./deno_http.ts";

/**
 * The buffer a default reader's read gets (a BYOB reader brings its own): the body's length up
 * to 256 KiB, or 64 KiB (what Deno's own request bodies use) when the length is not known. Fewer,
 * larger reads cost less per byte (a 256 MiB body read by a default reader and hashed took 16 %
 * less CPU than through Deno's own 64 KiB reads); a small body gets a buffer of its own size.
 */
const BODY_CHUNK_MAX = 256 * 1024;
const BODY_CHUNK_UNKNOWN = 64 * 1024;

/** A body read that waits for the client: since when (0 while none waits), and if it was cut. */
interface BodyWait {
  since: number;
  timedOut: boolean;
}

/** The per-connection state the watchdog keeps. */
export interface Connection {
  /** Requests whose response is not sent yet. */
  inflight: number;
  /** With none in flight: since when the connection waits for headers, and for how long it may. */
  waitSince: number;
  waitLimit: number;
  /** The watched bodies of the requests in flight. */
  bodies: Set<BodyWait>;
  server: ConnectionServer | null;
}

/** A connection just accepted: its first request's headers are due within the header timeout. */
export function newConnection(limits: ConnectionLimits): Connection {
  return {
    inflight: 0,
    waitSince: performance.now(),
    waitLimit: limits.headerTimeoutMs,
    bodies: new Set(),
    server: null,
  };
}

export function cut(c: Connection) {
  c.server?.cancel();
}

/**
 * One sweep over all connections instead of a timer per connection and per read: requests and
 * reads only write timestamps, which keeps the watchdog off the per-request path. A limit fires
 * between its deadline and one tick (an eighth of the shortest limit, at most 1 s) later.
 */
export function startSweeper(open: Set<Connection>, limits: ConnectionLimits) {
  const shortest = Math.min(
    limits.headerTimeoutMs,
    limits.bodyIdleTimeoutMs,
    limits.keepAliveTimeoutMs,
  );
  const tickMs = Math.max(5, Math.min(1000, Math.floor(shortest / 8)));
  const sweeper = setInterval(() => {
    const now = performance.now();
    for (const c of open) {
      if (c.inflight === 0) {
        if (now - c.waitSince > c.waitLimit) cut(c);
        continue;
      }
      for (const wait of c.bodies) {
        if (wait.since !== 0 && now - wait.since > limits.bodyIdleTimeoutMs) {
          wait.timedOut = true;
          cut(c);
        }
      }
    }
  }, tickMs);
  Deno.unrefTimer(sweeper);
  return sweeper;
}

/**
 * Counts a request in flight on `c` until its response is sent (then the keep-alive timeout
 * runs) and returns it with its body's reads watched.
 */
export function watchRequest(
  c: Connection,
  request: Request,
  info: Deno.ServeHandlerInfo,
  limits: ConnectionLimits,
): Request {
  c.inflight++;
  const settled = () => {
    if (--c.inflight === 0) {
      c.bodies.clear();
      c.waitSince = performance.now();
      c.waitLimit = limits.keepAliveTimeoutMs;
    }
  };
  info.completed.then(settled, settled);
  return watchBody(request, info, c, limits.bodyIdleTimeoutMs);
}

/**
 * The request with its body's reads watched (unchanged when it has no body). The copy gets its
 * own signal, aborted when the response cannot be delivered (the client is gone).
 */
function watchBody(
  request: Request,
  info: Deno.ServeHandlerInfo,
  c: Connection,
  idleMs: number,
): Request {
  // GET and HEAD have no body; deciding from the method spares building their headers. Methods
  // are case-sensitive on the wire: a "get" with a body is not a GET and must not reach the
  // Request constructor, which refuses a body on any spelling of GET/HEAD.
  if (/^(GET|HEAD)$/i.test(request.method)) return request;
  const length = request.headers.get("content-length");
  if (length === "0" || (length === null && !request.headers.has("transfer-encoding"))) {
    return request;
  }
  const body = request.body;
  if (body === null) return request;
  const gone = new AbortController();
  info.completed.catch(() => gone.abort());
  const wait: BodyWait = { since: 0, timedOut: false };
  c.bodies.add(wait);
  const size = Number(length);
  const chunk = length !== null && Number.isSafeInteger(size) && size > 0
    ? Math.min(size, BODY_CHUNK_MAX)
    : BODY_CHUNK_UNKNOWN;
  return requestWithBody(request, watchedStream(body, wait, idleMs, chunk), gone.signal);
}

/**
 * A byte stream over `inner` whose reads mark `wait` while they wait for the client; the
 * sweeper cuts the connection when one waits longer than the body-idle timeout, and the read
 * then fails with TimedOut. The reader's own buffer is passed to the inner stream and back
 * (respondWithNewView), so the bytes are not copied. The clock runs only while a read waits for
 * the client, never while the app works on what it read.
 */
function watchedStream(
  inner: ReadableStream<Uint8Array>,
  wait: BodyWait,
  idleMs: number,
  chunk: number,
): ReadableStream<Uint8Array> {
  // Taken on the first read: a body the app never reads stays unlocked, so Deno frees it.
  let reader: ReadableStreamBYOBReader | ReadableStreamDefaultReader<Uint8Array> | undefined;
  const take = () => {
    if (reader) return reader;
    try {
      return reader = inner.getReader({ mode: "byob" });
    } catch {
      return reader = inner.getReader(); // not a byte stream
    }
  };
  return new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: chunk,
    async pull(controller) {
      const r = take();
      const request = controller.byobRequest;
      wait.since = performance.now() || 1;
      try {
        if (r instanceof ReadableStreamBYOBReader && request?.view) {
          const view = request.view;
          const size = view.byteLength;
          let { done, value } = await r.read(new Uint8Array(view.buffer, view.byteOffset, size));
          // An empty chunk (a chunked body's zero-length read) is no data: read on into the same
          // (transferred) buffer, since a zero-length view may only be handed back at the end.
          while (!done && value && value.byteLength === 0) {
            ({ done, value } = await r.read(new Uint8Array(value.buffer, value.byteOffset, size)));
          }
          if (done) controller.close();
          if (value) request.respondWithNewView(value);
          else if (!done) throw new Error("the request body's reader returned no buffer");
        } else {
          const inner = r as ReadableStreamDefaultReader<Uint8Array>;
          let { done, value } = await inner.read();
          while (!done && value && value.byteLength === 0) ({ done, value } = await inner.read());
          if (done) {
            controller.close();
            request?.respond(0);
          } else controller.enqueue(value as Uint8Array<ArrayBuffer>);
        }
      } catch (err) {
        if (wait.timedOut) {
          throw new Deno.errors.TimedOut(`no request body bytes arrived for ${idleMs} ms`);
        }
        throw err;
      } finally {
        wait.since = 0;
      }
    },
    cancel(reason) {
      return (reader ?? inner).cancel(reason);
    },
  });
}
