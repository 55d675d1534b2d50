/**
 * Serves the app over TCP with the connection limits Deno.serve lacks (denoland/deno#3515): header,
 * body and idle timeouts, a minimum body rate, a bounded lingering close after an early answer, a
 * cap on open connections and one per client address, and an accept loop that outlives EMFILE.
 *
 * The accept loop is our own (server/accept.ts). Each accepted connection is handed to Deno's HTTP
 * server for one connection (server/deno_http.ts: the same hyper server Deno.serve runs), so
 * request and response bytes never pass through JS, and is watched by the watchdog
 * (server/watchdog.ts) under the limits (server/limits.ts). docs/security.md lists the limits and
 * what a reverse proxy adds.
 */
import { acceptLoop, closeQuietly } from "./server/accept.ts";
import { clientSlots, perClientCap } from "./server/clients.ts";
import { connectionServer, type Handler, type ServeConnection } from "./server/deno_http.ts";
import { type ConnectionLimits, processConnectionCap, refuse } from "./server/limits.ts";
import {
  type Connection,
  cut,
  type Cuts,
  newConnection,
  noCuts,
  startSweeper,
  watchRequest,
} from "./server/watchdog.ts";

interface ServeOptions {
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
  /**
   * Serve with plain Deno.serve, without the limits: what happens on a Deno without the
   * per-connection server (tests of that fallback).
   */
  plainDenoServe?: boolean;
}

export interface Server {
  addr: Deno.NetAddr;
  /** Resolves once the server stopped and every connection is closed. */
  finished: Promise<void>;
  /** Connections being served now. */
  readonly connections: number;
  /** The cap in force: DRIVE_MAX_CONNECTIONS, lowered to fit the descriptor limit. */
  readonly maxConnections: number;
  /** The cap per client in force: DRIVE_MAX_CONNECTIONS_PER_CLIENT, lowered with the cap. */
  readonly maxConnectionsPerClient: number;
  /** What the server turned away or cut since it started (for metrics). */
  readonly counts: Readonly<ServeCounts>;
}

export interface ServeCounts extends Cuts {
  /** Connections refused with a 503 because every slot was taken. */
  refusedFull: number;
  /** Connections refused with a 503 because their client had its share of the slots. */
  refusedPerClient: number;
}

export function serve(
  app: { fetch: Handler },
  limits: ConnectionLimits,
  opts: ServeOptions,
): Server {
  const log = opts.log ?? ((message: string) => console.error(message));
  const found = opts.plainDenoServe ? null : connectionServer();
  if (!found) return unlimited(app, opts, log, opts.plainDenoServe);
  const serveConnection: ServeConnection = found;

  const cap = processConnectionCap(limits.maxConnections, log);
  const perClient = perClientCap(limits.maxConnectionsPerClient, limits.maxConnections, cap);
  const clients = clientSlots(perClient, limits.trustedProxies);
  const counts: ServeCounts = { ...noCuts(), refusedFull: 0, refusedPerClient: 0 };
  const listener = opts.listener ??
    Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const open = new Set<Connection>();
  let stopping = false;
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  let allClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (allClosed = resolve));
  const wake = new AbortController();
  const sweeper = startSweeper(open, limits);

  const onError = (error: unknown) => {
    log(`unexpected error while serving a request: ${error}`);
    return new Response("Internal Server Error", { status: 500 });
  };

  /** A slot for `conn`, or the 503 when every slot or its client's share is taken. */
  function admit(conn: Deno.TcpConn) {
    if (open.size >= cap) {
      counts.refusedFull++;
      return refuse(conn);
    }
    const client = clients.take(conn.remoteAddr);
    if (client === null) {
      counts.refusedPerClient++;
      return refuse(conn);
    }
    watch(conn, client);
  }

  function watch(conn: Deno.TcpConn, client: string) {
    const c = newConnection(limits, counts);
    const handler: Handler = (request, info) => {
      const watched = watchRequest(c, request, info, limits);
      const answer = app.fetch(watched.request, info);
      const respond = watched.respond;
      if (!respond) return answer;
      return answer instanceof Promise ? answer.then(respond) : respond(answer);
    };
    open.add(c);
    const gone = () => {
      open.delete(c);
      clients.release(client);
      if (stopping && open.size === 0) allClosed();
    };
    try {
      const server = serveConnection(conn, handler, onError);
      c.server = server;
      // A reset or cut connection ends here; that is the client's business, not an error.
      server.finished.catch(() => {}).finally(gone);
    } catch (err) {
      log(`could not serve a connection: ${err}`);
      gone();
      closeQuietly(conn);
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
  const accepting = acceptLoop({
    listener,
    stopping: () => stopping,
    wake: wake.signal,
    accepted: admit,
    log,
  });
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
    maxConnectionsPerClient: perClient,
    counts,
  };
}

/** Plain Deno.serve when this Deno has no per-connection server: no limits, said loudly. */
function unlimited(
  app: { fetch: Handler },
  opts: ServeOptions,
  log: (m: string) => void,
  asked = false,
): Server {
  const why = asked ? "as asked" : "this Deno has no per-connection server";
  log(`WARNING: connection limits are off (${why}; see server/deno_http.ts): plain Deno.serve`);
  const server = Deno.serve({
    hostname: opts.hostname,
    port: opts.port,
    signal: opts.signal,
    onListen: (addr) => opts.onListen?.(addr),
  }, app.fetch);
  return {
    addr: server.addr,
    finished: server.finished,
    connections: 0,
    maxConnections: Infinity,
    maxConnectionsPerClient: Infinity,
    counts: { ...noCuts(), refusedFull: 0, refusedPerClient: 0 },
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
  // A well-formed HOST name that does not resolve: Deno throws a plain Error for the lookup.
  if (err instanceof Error && err.message.startsWith("failed to lookup address information")) {
    return `cannot listen on ${hostname}: the name does not resolve to an address (HOST)`;
  }
  if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable) {
    return `not allowed to listen on ${hostname}:${port} (PORT, HOST): ${
      err instanceof Error ? err.message : err
    }`;
  }
  return null;
}
