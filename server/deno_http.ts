/**
 * The runtime adapter: the only code that relies on Deno beyond its public API. Deno.serve owns
 * its accept loop and offers no header, body or idle timeouts and no handle on one connection
 * (denoland/deno#3515), so serve.ts accepts connections itself and hands each to the HTTP server
 * Deno.serve runs inside, `Deno[Deno.internal].serveHttpOnConnection` (ext/http/00_serve.ts).
 * From it this module needs:
 *
 * - the function itself, with the argument order (conn, signal, handler, onError, onListen) and
 *   an answer with `finished` and `shutdown()`;
 * - that it cancels the connection from an "abort" listener it adds to the signal.
 *
 * server/deno_http_test.ts fails on the pinned Deno when either changes; docs/operations.md says
 * what to do then. Without the internal, serve.ts falls back to plain Deno.serve, without limits.
 */

/** Deno.serve's handler shape; Hono's `app.fetch` is one. */
export type Handler = (
  request: Request,
  info: Deno.ServeHandlerInfo<Deno.NetAddr>,
) => Response | Promise<Response>;

/** One connection served by Deno's HTTP server. */
export interface ConnectionServer {
  /** Settles once the connection is closed (rejects on a reset, which is the client's business). */
  finished: Promise<void>;
  /** Graceful: the requests in flight get their answers, then the connection closes. */
  shutdown(): Promise<void>;
  /** Cuts the connection now; safe to call again or after the connection ended on its own. */
  cancel(): void;
}

export type ServeConnection = (
  conn: Deno.TcpConn,
  handler: Handler,
  onError: (error: unknown) => Response,
) => ConnectionServer;

/** Deno's internal per-connection server, as Deno 2.9 defines it. */
type ServeOnConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: Handler,
  onError: (error: unknown) => Response,
  onListen: (scheme: string) => void,
) => { finished: Promise<void>; shutdown(): Promise<void> };

function internalServeOnConnection(): ServeOnConnection | null {
  const deno = Deno as unknown as { internal?: symbol } & Record<symbol, unknown>;
  const internal = deno.internal === undefined
    ? undefined
    : deno[deno.internal] as Record<string, unknown> | undefined;
  const fn = internal?.serveHttpOnConnection;
  return typeof fn === "function" ? fn as ServeOnConnection : null;
}

/** Serves one connection with Deno's HTTP server; null when this Deno has no such server. */
export function connectionServer(): ServeConnection | null {
  const serveOn = internalServeOnConnection();
  if (!serveOn) return null;
  return (conn, handler, onError) => {
    const cancel = cancelSignal();
    const server = serveOn(conn, cancel.signal, handler, onError, () => {});
    return { finished: server.finished, shutdown: () => server.shutdown(), cancel: cancel.fire };
  };
}

/**
 * The signal handed to Deno's server, keeping the "abort" listener it adds so that a cut calls
 * it directly. Deno's listener cancels the server by its resource id and throws BadResource when
 * the connection has just ended on its own (the id is closed but `finished` has not settled, a
 * moment serve.ts cannot see). Thrown from a dispatched abort event, Deno reports it as uncaught
 * and the process ends; called directly, the error is caught here. Should Deno ever stop adding
 * the listener, a cut falls back to aborting the signal.
 */
function cancelSignal(): { signal: AbortSignal; fire(): void } {
  const controller = new AbortController();
  const signal = controller.signal;
  let listener: (() => void) | null = null;
  const add = signal.addEventListener.bind(signal);
  Object.defineProperty(signal, "addEventListener", {
    value: (type: string, fn: EventListenerOrEventListenerObject, options?: unknown) => {
      if (type === "abort" && typeof fn === "function" && listener === null) {
        listener = () => fn.call(signal, new Event("abort"));
      } else add(type, fn, options as AddEventListenerOptions);
    },
  });
  let fired = false;
  return {
    signal,
    fire() {
      if (fired) return;
      fired = true;
      try {
        if (listener) listener();
        else controller.abort();
      } catch (err) {
        if (!(err instanceof Deno.errors.BadResource)) throw err;
      }
    },
  };
}

/**
 * `request` with another body. A request's body cannot be swapped, so this is a copy, built from
 * the URL (`new Request(request)` would read the original's signal, which makes Deno warn about
 * that signal's legacy abort-on-success behaviour). The URL parser behind `new Request`
 * normalises the target ("/a/../b" becomes "/b", "\\" becomes "/"); the app must see the raw
 * request target (the provider's JWT signs it, and a dot segment is refused there), so the copy
 * answers `url` with the original string.
 */
export function requestWithBody(
  request: Request,
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
): Request {
  const init = { method: request.method, headers: request.headers, body, duplex: "half", signal };
  const copy = new Request(request.url, init as RequestInit);
  Object.defineProperty(copy, "url", { value: request.url });
  return copy;
}
