/**
 * Open connections per client address, so that one address cannot take every slot of the
 * connection cap while others are refused. A client is named as the share-link throttle names
 * it (api/http/client_address.ts): an IPv4 address, or an IPv6 /64, which one subscriber
 * normally gets whole. The name is taken from the TCP peer, since a connection is counted when it
 * is accepted, before any header arrives: X-Forwarded-For cannot be read yet. A peer that is a
 * trusted proxy (DRIVE_TRUSTED_PROXIES) therefore stands for many clients and is not capped here;
 * the proxy's own per-client limits apply in front of it (docs/security.md).
 */
import { clientName } from "../api/http/client_address.ts";
import { inRange, type IpRange, parseIp } from "../lib/ip.ts";

export interface ClientSlots {
  /**
   * Counts a new connection from `peer` against its client's cap: the client's name (to give
   * back with `release`), "" for a trusted proxy (not counted), or null when the client is at
   * its cap (refuse the connection).
   */
  take(peer: Deno.NetAddr): string | null;
  /** Gives back a slot `take` counted. */
  release(name: string): void;
  /** Clients with a connection open now. */
  readonly clients: number;
}

/** Slots of at most `perClient` open connections per client; `trusted` peers are not counted. */
export function clientSlots(perClient: number, trusted: readonly IpRange[]): ClientSlots {
  const open = new Map<string, number>();
  return {
    take(peer) {
      const ip = parseIp(peer.hostname);
      if (ip && trusted.some((range) => inRange(ip, range))) return "";
      const name = clientName(ip);
      const count = open.get(name) ?? 0;
      if (count >= perClient) return null;
      open.set(name, count + 1);
      return name;
    },
    release(name) {
      if (name === "") return;
      const count = open.get(name) ?? 0;
      if (count <= 1) open.delete(name);
      else open.set(name, count - 1);
    },
    get clients() {
      return open.size;
    },
  };
}

/**
 * The per-client cap in force: DRIVE_MAX_CONNECTIONS_PER_CLIENT, lowered in proportion when the
 * descriptor limit lowered the overall cap, so the share an operator chose stays the share.
 */
export function perClientCap(configured: number, maxConfigured: number, cap: number): number {
  if (cap >= maxConfigured) return Math.min(configured, cap);
  return Math.max(1, Math.min(cap, Math.floor(configured * cap / maxConfigured)));
}
