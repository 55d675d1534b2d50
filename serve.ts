/**
 * Serves the app over TCP with the connection limits Deno.serve lacks. Deno.serve has no header,
 * body or idle timeouts (denoland/deno#3515), and when accept() fails with EMFILE its loop
 * rejects and the process dies ("Uncaught (in promise) Http: Error: Too many open files").
 *
 * The accept loop here is our own (`Deno.listen`). Each accepted connection is handed to Deno's
 * HTTP server for one connection (`serveHttpOnConnection`, the same hyper server Deno.serve
 * runs), so request and response bytes never pass through JS. Deno does not report bytes as they
 * arrive, so the watchdog infers progress from what it does report: a request's handler runs
 * once the request's headers are complete, the request's `completed` settles once its response
 * is sent, and the reads of its body pass through a byte stream that hands the caller's buffer on
 * unchanged. These events only write timestamps; one sweep over all connections enforces three
 * limits:
 *
 * - accepted and no request yet: the headers must be complete within `headerTimeoutMs`;
 * - a response sent and none in flight: the next request's headers must be complete within
 *   `keepAliveTimeoutMs`, which bounds an idle keep-alive connection and a slow next request;
 * - a body read that waits `bodyIdleTimeoutMs` for client bytes fails.
 *
 * Any of them cuts the connection. Over `maxConnections` a new connection gets a 503 and is
 * closed at once; the cap is lowered to fit the process's descriptor limit, so connections alone
 * never use up the descriptors the service needs for KV and blob files. An accept() that fails
 * anyway (EMFILE, ENFILE, ...) is retried with a growing delay and never ends the loop.
 * docs/security.md lists the limits and what a reverse proxy adds.
 */
import type { Config } from "./config.ts";

/** Deno.serve's handler shape; Hono's `app.fetch` is one. */
export type Handler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

export type ConnectionLimits = Pick<
  Config,
  "headerTimeoutMs" | "bodyIdleTimeoutMs" | "keepAliveTimeoutMs" | "maxConnections"
>;

export interface ServeOptions {
  hostname: string;
  port: number;
  /** Aborting stops accepting; requests in flight get `graceMs`, then every connection is cut. */
  signal?: AbortSignal;
  /** Default 10 s. */
  graceMs?: number;
  onListen?: (addr: Deno.NetAddr) => void;
  /** A listener to accept from instead of one opened on hostname:port (tests inject failures). */
  listener?: Deno.Listener<Deno.TcpConn, Deno.NetAddr>;
  /** Where operational messages go (default console.error). */
  log?: (message: string) => void;
}

export interface Server {
  addr: Deno.NetAddr;
  /** Resolves once the server stopped and every connection is closed. */
  finished: Promise<void>;
  /** Connections being served now. */
  readonly connections: number;
  /** The cap in force: DRIVE_MAX_CONNECTIONS, lowered to fit the descriptor limit. */
  readonly maxConnections: number;
}

/** Deno's internal per-connection server (ext/http/00_serve.ts), as Deno 2.9 defines it. */
type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: Handler,
  onError: (error: unknown) => Response,
  onListen: (scheme: string) => void,
) => { finished: Promise<void>; shutdown(): Promise<void> };

function denoServeOnConnection(): ServeOnConnection | null {
  const deno = Deno as unknown as { internal?: symbol } & Record<symbol, unknown>;
  const internal = deno.internal === undefined
    ? undefined
    : deno[deno.internal] as Record<string, unknown> | undefined;
  const fn = internal?.serveHttpOnConnection;
  return typeof fn === "function" ? fn as ServeOnConnection : null;
}

/** The soft limit on open descriptors (`ulimit -n`) from /proc (Linux); null when unknown. */
export function descriptorLimit(): number | null {
  try {
    const limits = Deno.readTextFileSync("/proc/self/limits");
    const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
    return soft && /^\d+$/.test(soft) ? Number(soft) : null;
  } catch {
    return null;
  }
}

/**
 * The connection cap for a descriptor limit: a quarter of the descriptors stay free for the
 * runtime, KV and the blob files requests open, so a full house of connections cannot make the
 * service's own file opens (or accept itself) fail.
 */
export function connectionCap(configured: number, fdLimit: number | null): number {
  if (fdLimit === null) return configured;
  return Math.max(1, Math.min(configured, Math.floor(fdLimit * 3 / 4)));
}

const BUSY = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n" +
    "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 21\r\n\r\nToo many connections\n",
);
const ACCEPT_RETRY_FIRST_MS = 10;
const ACCEPT_RETRY_MAX_MS = 1000;
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
interface Connection {
  cut: AbortController;
  /** Requests whose response is not sent yet. */
  inflight: number;
  /** With none in flight: since when the connection waits for headers, and for how long it may. */
  waitSince: number;
  waitLimit: number;
  /** The watched bodies of the requests in flight. */
  bodies: Set<BodyWait>;
  server: { shutdown(): Promise<void> } | null;
}

/**
 * Cuts a connection: aborts the signal its Deno server listens to, which cancels that server by
 * its resource id. When the connection has just ended on its own (its id is closed, but its
 * `finished` has not settled yet, a moment this module cannot see), Deno's listener throws
 * BadResource, and Deno reports an exception thrown in an event listener as uncaught, which ends
 * the process. The guard below swallows exactly that: a BadResource raised while a cut is being
 * dispatched (dispatch is synchronous, so the flag brackets it).
 */
function cut(c: Connection) {
  if (c.cut.signal.aborted) return;
  cutting = true;
  try {
    c.cut.abort();
  } catch {
    /* the same error, where Deno throws instead of reporting it */
  } finally {
    cutting = false;
  }
}
let cutting = false;
let cutGuard = false;
function installCutGuard() {
  if (cutGuard) return;
  cutGuard = true;
  globalThis.addEventListener("error", (event) => {
    if (cutting && event.error instanceof Deno.errors.BadResource) event.preventDefault();
  });
}

export function serve(
  app: { fetch: Handler },
  limits: ConnectionLimits,
  opts: ServeOptions,
): Server {
  const log = opts.log ?? ((message: string) => console.error(message));
  const found = denoServeOnConnection();
  if (!found) return unlimited(app, opts, log);
  const serveOn: ServeOnConnection = found;
  installCutGuard();

  const fdLimit = descriptorLimit();
  const cap = connectionCap(limits.maxConnections, fdLimit);
  if (cap < limits.maxConnections) {
    log(
      `connection cap ${cap}: DRIVE_MAX_CONNECTIONS ${limits.maxConnections} lowered to fit ` +
        `the descriptor limit ${fdLimit} (raise ulimit -n to serve more)`,
    );
  }
  const listener = opts.listener ??
    Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const open = new Set<Connection>();
  let stopping = false;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let allClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (allClosed = resolve));
  const wake = new AbortController();

  // One sweep over all connections instead of a timer per connection and per read: requests and
  // reads only write timestamps, which keeps the watchdog off the per-request path. A limit fires
  // between its deadline and one tick (an eighth of the shortest limit, at most 1 s) later.
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

  const onError = (error: unknown) => {
    log(`unexpected error while serving a request: ${error}`);
    return new Response("Internal Server Error", { status: 500 });
  };

  function watch(conn: Deno.TcpConn) {
    const c: Connection = {
      cut: new AbortController(),
      inflight: 0,
      waitSince: performance.now(),
      waitLimit: limits.headerTimeoutMs,
      bodies: new Set(),
      server: null,
    };
    const settled = () => {
      if (--c.inflight === 0) {
        c.bodies.clear();
        c.waitSince = performance.now();
        c.waitLimit = limits.keepAliveTimeoutMs;
      }
    };
    const handler: Handler = (request, info) => {
      c.inflight++;
      info.completed.then(settled, settled);
      return app.fetch(watchBody(request, info, c, limits.bodyIdleTimeoutMs), info);
    };
    open.add(c);
    const gone = () => {
      open.delete(c);
      if (stopping && open.size === 0) allClosed();
    };
    try {
      const server = serveOn(conn, c.cut.signal, handler, onError, () => {});
      c.server = server;
      // A reset or cut connection ends here; that is the client's business, not an error.
      server.finished.catch(() => {}).finally(gone);
    } catch (err) {
      log(`could not serve a connection: ${err}`);
      gone();
      closeQuietly(conn);
    }
  }

  function refuse(conn: Deno.TcpConn) {
    conn.write(BUSY).catch(() => 0).finally(() => closeQuietly(conn));
  }

  async function acceptLoop() {
    let retryMs = 0;
    let failures = 0;
    while (!stopping) {
      let conn: Deno.TcpConn;
      try {
        conn = await listener.accept();
      } catch (err) {
        if (stopping || err instanceof Deno.errors.BadResource) break;
        // EMFILE and its kind: the process must outlive them. Stalled connections are freed by
        // their deadlines, so waiting and trying again is enough; new ones wait in the backlog.
        if (failures++ === 0) log(`accept failed, retrying until it works again: ${err}`);
        retryMs = Math.min(
          retryMs === 0 ? ACCEPT_RETRY_FIRST_MS : retryMs * 2,
          ACCEPT_RETRY_MAX_MS,
        );
        await sleep(retryMs, wake.signal);
        continue;
      }
      if (failures > 0) {
        log(`accepting again after ${failures} failed accepts`);
        failures = 0;
        retryMs = 0;
      }
      if (open.size >= cap) refuse(conn);
      else watch(conn);
    }
  }

  function stop() {
    if (stopping) return;
    stopping = true;
    wake.abort();
    closeQuietly(listener);
    for (const c of open) {
      // Idle or still sending headers: nothing is lost by closing now. Requests in flight finish
      // (hyper's graceful shutdown closes the connection after the response).
      if (c.inflight === 0) cut(c);
      else c.server?.shutdown().catch(() => {});
    }
    if (open.size === 0) allClosed();
    graceTimer = setTimeout(() => {
      for (const c of open) cut(c);
    }, opts.graceMs ?? 10_000);
  }

  if (opts.signal?.aborted) stop();
  else opts.signal?.addEventListener("abort", stop, { once: true });
  const accepting = acceptLoop();
  opts.onListen?.(listener.addr);
  return {
    addr: listener.addr,
    finished: (async () => {
      await accepting;
      await closed;
      clearTimeout(graceTimer);
      clearInterval(sweeper);
    })(),
    get connections() {
      return open.size;
    },
    maxConnections: cap,
  };
}

/**
 * The start line's address: the one actually bound (0.0.0.0 or :: is every interface, said so;
 * port 0 became the port the system picked).
 */
export function listeningAt({ hostname, port }: Deno.NetAddr): string {
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  const everywhere = hostname === "0.0.0.0" || hostname === "::" ? " (all interfaces)" : "";
  return `http://${host}:${port}${everywhere}`;
}

/**
 * The one-line reason a listener could not be opened on `hostname:port`, naming the variable to
 * change; null for any other error (a bug, shown with its stack).
 */
export function listenFailure(err: unknown, hostname: string, port: number): string | null {
  if (err instanceof Deno.errors.AddrInUse) {
    return `port ${port} is already in use on ${hostname} (PORT): stop the other server or ` +
      "choose another port";
  }
  if (err instanceof Deno.errors.AddrNotAvailable) {
    return `cannot listen on ${hostname}: no such address on this machine (HOST)`;
  }
  if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable) {
    return `not allowed to listen on ${hostname}:${port} (PORT, HOST): ${
      err instanceof Error ? err.message : err
    }`;
  }
  return null;
}

/**
 * The request with its body's reads watched (unchanged when it has no body). The copy is built
 * from the URL, not from the request, and gets its own signal, aborted when the response cannot
 * be delivered (the client is gone): `new Request(request)` reads the original's signal, which
 * makes Deno warn about that signal's legacy abort-on-success behaviour.
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
  const init = {
    method: request.method,
    headers: request.headers,
    body: watchedStream(body, wait, idleMs, chunk),
    duplex: "half",
    signal: gone.signal,
  };
  const watched = new Request(request.url, init as RequestInit);
  // The URL parser behind `new Request` normalises the target ("/a/../b" becomes "/b", "\\"
  // becomes "/"); the app must see the raw request target (the provider's JWT signs it, and a
  // dot segment is refused there), so the copy answers `url` with the original string.
  Object.defineProperty(watched, "url", { value: request.url });
  return watched;
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

/** Plain Deno.serve when this Deno has no per-connection server: no limits, said loudly. */
function unlimited(app: { fetch: Handler }, opts: ServeOptions, log: (m: string) => void): Server {
  log(
    "WARNING: connection limits are off: this Deno has no serveHttpOnConnection " +
      "(see serve.ts); serving with plain Deno.serve",
  );
  const server = Deno.serve({
    hostname: opts.hostname,
    port: opts.port,
    signal: opts.signal,
    onListen: (addr) => opts.onListen?.(addr),
  }, app.fetch);
  return { addr: server.addr, finished: server.finished, connections: 0, maxConnections: Infinity };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

function closeQuietly(closable: { close(): void }) {
  try {
    closable.close();
  } catch { /* already closed */ }
}
