/**
 * The watchdog over served connections. Deno does not report bytes as they arrive, so it infers
 * progress from what it does report: a request's handler runs once the request's headers are
 * complete, the request's `completed` settles once its response is sent, and the reads of its
 * body pass through a byte stream that hands the caller's buffer on unchanged. These events only
 * write timestamps and counts; one sweep over all connections enforces four limits:
 *
 * - accepted and no request yet: the headers must be complete within `headerTimeoutMs`;
 * - a response sent and none in flight: the next request's headers must be complete within
 *   `keepAliveTimeoutMs`, which bounds an idle keep-alive connection and a slow next request;
 * - a body read that waits `bodyIdleTimeoutMs` for client bytes fails;
 * - a body that brings fewer than `bodyMinRateBytes` in `bodyMinRateWindowMs` of waiting fails
 *   (a trickle of a byte just inside the idle timeout).
 *
 * Any of them cuts the connection. A response sent before its request's body was read to the end
 * (an early answer: a 401 on an upload, a 404 on a link) says `Connection: close`, and Deno's
 * server then reads and discards the rest of the body before it closes the connection, however
 * slowly the body comes. That drain is the lingering close HTTP servers do (nginx's
 * lingering_close): closing a socket with unread bytes in it sends a reset, which can destroy the
 * answer before the client reads it. The drain is bounded by a fifth limit:
 *
 * - after an early answer, the connection must close within `lingerMs`, else it is cut. A client
 *   that sent its body, or sends the rest at any useful speed, is done in milliseconds; a trickle
 *   loses its slot after `lingerMs`, by which time the answer has long reached the client.
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

/** A watched body: the read waiting for the client, the rate window, and whether it ended. */
interface BodyWait {
  /** Since when a read waits for the client; 0 while none waits. */
  since: number;
  /** Why the connection was cut while the body was read, for the read's error; null if not. */
  cutFor: string | null;
  /** Ms spent waiting for the client in the current rate window (reads that completed). */
  waited: number;
  /** Bytes the client sent in the current rate window. */
  bytes: number;
  /** When the current rate window began (a waiting read counts only from here). */
  windowFrom: number;
  /** Bytes still due: the declared length minus what was read; null when not declared. */
  due: number | null;
  /** The body was read to its end. */
  ended: boolean;
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
  /** The server's counts of cuts, shared by its connections. */
  cuts: Cuts;
  /** An early answer was sent: the connection closes once the body is drained, or is cut. */
  lingering: boolean;
  /** Cut (by a limit or a stop): the sweep skips it until it is gone. */
  done: boolean;
}

/** What the watchdog closed or cut, since the server started (for metrics and the tests). */
export interface Cuts {
  /** Responses sent before their request body was read to the end (then `Connection: close`). */
  earlyAnswers: number;
  /** Connections cut because their body was not drained within `lingerMs` of an early answer. */
  lingerCuts: number;
  /** Bodies cut for sending under the minimum rate. */
  slowBodies: number;
  /** Bodies cut for sending nothing for `bodyIdleTimeoutMs`. */
  idleBodies: number;
  /** Connections cut at the header deadline or the keep-alive timeout. */
  idleConnections: number;
}

/** No cuts yet. */
export function noCuts(): Cuts {
  return { earlyAnswers: 0, lingerCuts: 0, slowBodies: 0, idleBodies: 0, idleConnections: 0 };
}

/** A connection just accepted: its first request's headers are due within the header timeout. */
export function newConnection(limits: ConnectionLimits, cuts: Cuts): Connection {
  return {
    inflight: 0,
    waitSince: performance.now(),
    waitLimit: limits.headerTimeoutMs,
    bodies: new Set(),
    server: null,
    cuts,
    lingering: false,
    done: false,
  };
}

export function cut(c: Connection) {
  c.done = true;
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
    limits.bodyMinRateWindowMs,
    limits.lingerMs,
  );
  const tickMs = Math.max(5, Math.min(1000, Math.floor(shortest / 8)));
  const sweeper = setInterval(() => {
    const now = performance.now();
    for (const c of open) {
      if (c.done) continue;
      if (c.inflight === 0) {
        if (now - c.waitSince > c.waitLimit) {
          if (c.lingering) c.cuts.lingerCuts++;
          else c.cuts.idleConnections++;
          cut(c);
        }
        continue;
      }
      for (const wait of c.bodies) {
        if (wait.cutFor) continue;
        const why = bodyTooSlow(wait, now, limits);
        if (why) {
          wait.cutFor = why.message;
          if (why.kind === "rate") c.cuts.slowBodies++;
          else c.cuts.idleBodies++;
          cut(c);
          break;
        }
      }
    }
  }, tickMs);
  Deno.unrefTimer(sweeper);
  return sweeper;
}

/**
 * Why `wait`'s body is cut now, or null: a read waited longer than the idle timeout ("idle"), or
 * the last rate window (waiting time only, so a slow app is never the client's fault) brought
 * fewer bytes than the minimum ("rate"). A window that brought enough starts the next one.
 */
function bodyTooSlow(
  wait: BodyWait,
  now: number,
  limits: ConnectionLimits,
): { kind: "idle" | "rate"; message: string } | null {
  if (wait.since !== 0 && now - wait.since > limits.bodyIdleTimeoutMs) {
    return {
      kind: "idle",
      message: `no request body bytes arrived for ${limits.bodyIdleTimeoutMs} ms`,
    };
  }
  if (limits.bodyMinRateBytes === 0) return null;
  const pending = wait.since === 0 ? 0 : now - Math.max(wait.since, wait.windowFrom);
  if (wait.waited + pending < limits.bodyMinRateWindowMs) return null;
  if (wait.bytes < limits.bodyMinRateBytes) {
    return {
      kind: "rate",
      message: `the request body sent ${wait.bytes} bytes in ${limits.bodyMinRateWindowMs} ms, ` +
        `under the minimum of ${limits.bodyMinRateBytes}`,
    };
  }
  wait.waited = 0;
  wait.bytes = 0;
  wait.windowFrom = now;
  return null;
}

/** A request with its body watched, and what its response needs. */
export interface WatchedRequest {
  request: Request;
  /**
   * The response, saying `Connection: close` when it is sent before the body was read to its
   * end (the connection then lingers, see above); null for a request without a body.
   */
  respond: ((response: Response) => Response) | null;
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
): WatchedRequest {
  c.inflight++;
  const settled = () => {
    if (--c.inflight === 0) {
      c.bodies.clear();
      c.waitSince = performance.now();
      // No request follows an early answer: the connection closes once the body is drained.
      c.waitLimit = c.lingering ? limits.lingerMs : limits.keepAliveTimeoutMs;
    }
  };
  const { watched, wait, unread } = watchBody(request, info, c);
  let early = false;
  info.completed.then(() => {
    // Answered before the body was read to its end: Deno now drains the body and then closes,
    // for `lingerMs` at most (the sweep cuts it then), not for as long as a trickle lasts. Cut
    // now, the unread bytes would reset the answer in flight. (An unread GET body makes Deno
    // say `connection: close` itself; a watched body stops it from saying so, hence `respond`.)
    if (wait ? early || !wait.ended : unread) {
      c.cuts.earlyAnswers++;
      c.lingering = true;
    }
    settled();
  }, settled);
  if (!wait) return { request: watched, respond: null };
  const respond = (response: Response) => {
    if (wait.ended) return response;
    early = true;
    return withHeader(response, "connection", "close");
  };
  return { request: watched, respond };
}

/** `response` with the header set; a copy when its headers are immutable (fetch, redirect). */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set(name, value);
    const { status, statusText } = response;
    return new Response(response.body, { status, statusText, headers });
  }
}

/**
 * The request with its body's reads watched (unchanged when it has no body). The copy gets its
 * own signal, aborted when the response cannot be delivered (the client is gone). `unread`: a
 * body declared on a GET or HEAD, which is not watched and which nothing reads.
 */
function watchBody(
  request: Request,
  info: Deno.ServeHandlerInfo,
  c: Connection,
): { watched: Request; wait: BodyWait | null; unread: boolean } {
  const none = { watched: request, wait: null, unread: false };
  // Two header lookups (Deno reads a request header on demand, not the whole list).
  const length = request.headers.get("content-length");
  if (length === "0" || (length === null && !request.headers.has("transfer-encoding"))) {
    return none;
  }
  // A GET or HEAD body is not watched: methods are case-sensitive on the wire, so a "get" with a
  // body is not a GET, but it must not reach the Request constructor, which refuses a body on
  // any spelling of GET/HEAD. Deno drains it after the response unless the connection is closed.
  if (/^(GET|HEAD)$/i.test(request.method)) return { ...none, unread: true };
  const body = request.body;
  if (body === null) return none;
  const gone = new AbortController();
  info.completed.catch(() => gone.abort());
  const size = Number(length);
  const sized = length !== null && Number.isSafeInteger(size) && size > 0;
  const wait: BodyWait = {
    since: 0,
    cutFor: null,
    waited: 0,
    bytes: 0,
    windowFrom: 0,
    due: sized ? size : null,
    ended: false,
  };
  c.bodies.add(wait);
  const chunk = sized ? Math.min(size, BODY_CHUNK_MAX) : BODY_CHUNK_UNKNOWN;
  const watched = requestWithBody(request, watchedStream(body, wait, chunk), gone.signal);
  return { watched, wait, unread: false };
}

/**
 * A byte stream over `inner` whose reads mark `wait` while they wait for the client and count
 * what arrives; the sweeper cuts the connection when one waits longer than the body-idle
 * timeout or the body comes slower than the minimum rate, and the read then fails with
 * TimedOut. The reader's own buffer is passed to the inner stream and back (respondWithNewView),
 * so the bytes are not copied. The clock runs only while a read waits for the client, never
 * while the app works on what it read.
 */
function watchedStream(
  inner: ReadableStream<Uint8Array>,
  wait: BodyWait,
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
      let got = 0;
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
          got = value?.byteLength ?? 0;
          if (done) {
            wait.ended = true;
            controller.close();
          }
          if (value) request.respondWithNewView(value);
          else if (!done) throw new Error("the request body's reader returned no buffer");
        } else {
          const inner = r as ReadableStreamDefaultReader<Uint8Array>;
          let { done, value } = await inner.read();
          while (!done && value && value.byteLength === 0) ({ done, value } = await inner.read());
          if (done) {
            wait.ended = true;
            controller.close();
            request?.respond(0);
          } else {
            got = (value as Uint8Array).byteLength;
            controller.enqueue(value as Uint8Array<ArrayBuffer>);
          }
        }
      } catch (err) {
        if (wait.cutFor) throw new Deno.errors.TimedOut(wait.cutFor);
        throw err;
      } finally {
        const now = performance.now();
        wait.waited += Math.max(0, now - Math.max(wait.since, wait.windowFrom));
        wait.since = 0;
        wait.bytes += got;
        // A sized body is whole once its declared bytes are read, even if nobody reads the end.
        if (wait.due !== null && (wait.due -= got) <= 0) wait.ended = true;
      }
    },
    cancel(reason) {
      return (reader ?? inner).cancel(reason);
    },
  });
}
