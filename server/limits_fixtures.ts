/**
 * For the serve() tests beside them (serve_test.ts, server/slots_test.ts): connection limits
 * generous everywhere, so a test changes only the limit it is about, and serve() on a loopback
 * port for the length of a test.
 */
import { serve, type Server } from "../serve.ts";
import type { Handler } from "./deno_http.ts";
import type { ConnectionLimits } from "./limits.ts";

export const TEST_LIMITS: ConnectionLimits = {
  headerTimeoutMs: 10_000,
  bodyIdleTimeoutMs: 30_000,
  bodyMinRateBytes: 1024,
  bodyMinRateWindowMs: 30_000,
  lingerMs: 5_000,
  keepAliveTimeoutMs: 60_000,
  maxConnections: 100,
  maxConnectionsPerClient: 100,
  trustedProxies: [],
};

/**
 * serve() with `limits` on a free loopback port for the length of `fn`, which may stop it
 * earlier (`stop`: abort, then wait for the requests in flight, at most `graceMs`).
 */
export async function withLoopbackServe(
  handler: Handler,
  limits: ConnectionLimits,
  fn: (server: Server, stop: () => Promise<void>) => Promise<void>,
  opts: {
    graceMs: number;
    listener?: Deno.Listener<Deno.TcpConn, Deno.NetAddr>;
    log?: (m: string) => void;
  },
) {
  const ac = new AbortController();
  const server = serve({ fetch: handler }, limits, {
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    graceMs: opts.graceMs,
    log: opts.log ?? (() => {}),
    listener: opts.listener,
  });
  const stop = async () => {
    ac.abort();
    await server.finished;
  };
  try {
    await fn(server, stop);
  } finally {
    await stop();
  }
}
