/**
 * The connection limits: the timeouts the watchdog enforces (server/watchdog.ts), the cap on
 * open connections and the cap per client (server/clients.ts). Over either cap a new connection
 * gets a 503 and is closed at once; the cap is lowered to fit the process's descriptor limit, so
 * connections alone never use up the descriptors the service needs for KV and blob files.
 * docs/security.md lists the limits and what a reverse proxy adds.
 */
import type { Config } from "../config.ts";
import { closeQuietly } from "./accept.ts";

export type ConnectionLimits = Pick<
  Config,
  | "headerTimeoutMs"
  | "bodyIdleTimeoutMs"
  | "bodyMinRateBytes"
  | "bodyMinRateWindowMs"
  | "lingerMs"
  | "keepAliveTimeoutMs"
  | "maxConnections"
  | "maxConnectionsPerClient"
  | "trustedProxies"
>;

/** The soft limit on open descriptors (`ulimit -n`) from /proc (Linux); null when unknown. */
function descriptorLimit(): number | null {
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

/** The cap in force for this process, logging when the descriptor limit lowered it. */
export function processConnectionCap(configured: number, log: (message: string) => void): number {
  const fdLimit = descriptorLimit();
  const cap = connectionCap(configured, fdLimit);
  if (cap < configured) {
    log(
      `connection cap ${cap}: DRIVE_MAX_CONNECTIONS ${configured} lowered to fit ` +
        `the descriptor limit ${fdLimit} (raise ulimit -n to serve more)`,
    );
  }
  return cap;
}

const BUSY = new TextEncoder().encode(
  "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\n" +
    "Content-Type: text/plain; charset=utf-8\r\nContent-Length: 21\r\n\r\nToo many connections\n",
);

/** Answers a connection over the cap with a 503 and closes it. */
export function refuse(conn: Deno.TcpConn) {
  conn.write(BUSY).catch(() => 0).finally(() => closeQuietly(conn));
}
