/**
 * Who sent a request, for per-client throttling (share-link passwords).
 *
 * The client is the TCP peer. Only when the peer is one of the configured trusted proxies
 * (DRIVE_TRUSTED_PROXIES) is X-Forwarded-For believed, and then read from the right: each proxy
 * appends the address it received the request from, so the rightmost entry that is not itself a
 * trusted proxy is the first address nobody trustworthy vouches beyond. Everything left of it
 * was written by the client and is ignored. With no trusted proxies (the default) the header is
 * never read, so a client cannot choose its own name.
 *
 * The peer comes from Deno.serve: its handler gets `(request, info)`, and Hono's `fetch` turns
 * the second argument into `c.env`, so `c.env.remoteAddr` is the socket's peer. Whatever serves
 * the app must pass that on (`app.fetch(req, info)`); without it every request is one client,
 * UNKNOWN_CLIENT.
 */
import type { Context } from "hono";
import {
  formatIp,
  inRange,
  type IpBytes,
  type IpRange,
  parseForwardedIp,
  parseIp,
  truncate,
} from "../../lib/ip.ts";

/** The name of the client when the server was not given the peer address. */
export const UNKNOWN_CLIENT = "unknown";

/**
 * An IPv6 client is named by its /64: one subscriber normally gets a whole /64, so naming single
 * addresses would give an attacker 2^64 fresh budgets.
 */
const IPV6_CLIENT_PREFIX = 64;

/** The part of Deno.serve's handler info (`Deno.ServeHandlerInfo`) this module reads. */
interface ServeInfo {
  remoteAddr?: { transport?: string; hostname?: string };
}

/** The TCP peer's address, or null when the app was called without it. */
function peerAddress(c: Context): IpBytes | null {
  const hostname = (c.env as ServeInfo | undefined)?.remoteAddr?.hostname;
  return typeof hostname === "string" ? parseIp(hostname) : null;
}

const trustedBy = (ranges: readonly IpRange[]) => (ip: IpBytes) =>
  ranges.some((r) => inRange(ip, r));

/**
 * The client's address: the peer, or when the peer is a trusted proxy the rightmost
 * X-Forwarded-For entry that is not a trusted proxy (all entries trusted: the leftmost). An entry
 * that is not an address ends the walk at the last address read, a proxy we trust.
 */
export function clientIp(
  peer: IpBytes | null,
  forwardedFor: string | undefined,
  trustedProxies: readonly IpRange[],
): IpBytes | null {
  const trusted = trustedBy(trustedProxies);
  if (!peer || !forwardedFor || !trusted(peer)) return peer;
  let client = peer;
  const hops = forwardedFor.split(",");
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseForwardedIp(hops[i]);
    if (!hop) break;
    client = hop;
    if (!trusted(hop)) break;
  }
  return client;
}

/** The name a throttle counts a client under: its IPv4 address, its IPv6 /64, or UNKNOWN_CLIENT. */
export function clientName(ip: IpBytes | null): string {
  if (!ip) return UNKNOWN_CLIENT;
  if (ip.length === 4) return formatIp(ip);
  return `${formatIp(truncate(ip, IPV6_CLIENT_PREFIX))}/${IPV6_CLIENT_PREFIX}`;
}

/** The throttling name of the client that sent the request in `c`. */
export function clientOf(c: Context, trustedProxies: readonly IpRange[]): string {
  return clientName(clientIp(peerAddress(c), c.req.header("x-forwarded-for"), trustedProxies));
}
