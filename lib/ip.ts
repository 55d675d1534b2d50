/**
 * IP addresses and CIDR ranges, IPv4 and IPv6, as plain bytes: parse, match, print canonically.
 * Used to read DRIVE_TRUSTED_PROXIES (config.ts), to name the client of a request
 * (api/http/client_address.ts) and to see the IPv4 address inside an IPv6 one (webhook targets). An IPv4-mapped IPv6 address (::ffff:192.0.2.1, what a
 * dual-stack socket reports for an IPv4 peer) is the IPv4 address, so one client has one name.
 * Parsing and printing are ipaddr.js's (the parser behind Express's proxy-addr); this module adds
 * the byte form, ranges and the mapped-address rule the throttle needs.
 */
import ipaddr from "ipaddr.js";

/** 4 bytes (IPv4) or 16 bytes (IPv6). */
export type IpBytes = Uint8Array;

/** An address and how many leading bits of it a range fixes. */
export interface IpRange {
  bytes: IpBytes;
  prefix: number;
}

/** Strict dotted IPv4 (four decimal parts, no leading zeros), as ipaddr.js checks it. */
function parseV4(s: string): IpBytes | null {
  return ipaddr.IPv4.isValidFourPartDecimal(s)
    ? new Uint8Array(ipaddr.IPv4.parse(s).toByteArray())
    : null;
}

/** IPv6 in any RFC 4291 text form, without a zone id (a zone names a local link, not a client). */
function parseV6(s: string): IpBytes | null {
  if (!ipaddr.IPv6.isValid(s)) return null;
  const addr = ipaddr.IPv6.parse(s);
  return addr.zoneId ? null : new Uint8Array(addr.toByteArray());
}

function unmapped(bytes: IpBytes): IpBytes {
  const mapped = bytes.length === 16 && bytes.subarray(0, 10).every((b) => b === 0) &&
    bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

/** The bytes of an IPv4 or IPv6 address (no port, no zone), or null. */
export function parseIp(s: string): IpBytes | null {
  const v4 = parseV4(s);
  if (v4) return v4;
  const v6 = parseV6(s);
  return v6 ? unmapped(v6) : null;
}

/**
 * The IPv4 address an IPv6 address carries in its last 32 bits and that a stack or a translator
 * may deliver to: IPv4-compatible (::a.b.c.d, deprecated but still routed to the IPv4 host by
 * some stacks), IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and NAT64
 * (64:ff9b::/96, 64:ff9b:1::/48). Null for any other address, and for :: and ::1, which are
 * IPv6's own unspecified and loopback addresses.
 */
export function embeddedIpv4(bytes: IpBytes): IpBytes | null {
  if (bytes.length !== 16) return null;
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((b) => b === 0);
  const v4 = bytes.slice(12);
  const compatible = zeros(0, 12) && !(zeros(12, 15) && bytes[15] <= 1);
  const mapped = zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const translated = zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12);
  const nat64 = bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b &&
    (zeros(4, 12) || (bytes[4] === 0 && bytes[5] === 1));
  return compatible || mapped || translated || nat64 ? v4 : null;
}

/**
 * An address as an X-Forwarded-For entry may carry it: bare, "[v6]", "[v6]:port" or
 * "v4:port" (some proxies add the client's port).
 */
export function parseForwardedIp(entry: string): IpBytes | null {
  const s = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(s);
  if (bracketed) return parseIp(bracketed[1]);
  const v4port = /^([\d.]+):\d{1,5}$/.exec(s);
  return parseIp(v4port ? v4port[1] : s);
}

/** "192.0.2.0/24", "2001:db8::/32" or a single address (the whole address fixed), or null. */
export function parseCidr(s: string): IpRange | null {
  const [addr, bits, extra] = s.trim().split("/");
  if (extra !== undefined) return null;
  // The prefix counts bits of the address as written, so an IPv4-mapped range keeps its meaning.
  const raw = parseV4(addr) ?? parseV6(addr);
  if (!raw) return null;
  const max = raw.length * 8;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return null;
  let prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return null;
  let bytes = raw;
  if (raw.length === 16 && prefix >= 96 && unmapped(raw).length === 4) {
    bytes = raw.slice(12);
    prefix = Math.max(0, prefix - 96);
  }
  return { bytes, prefix };
}

/** Whether `ip` lies in `range` (an IPv4 address never lies in an IPv6 range, nor back). */
export function inRange(ip: IpBytes, range: IpRange): boolean {
  if (ip.length !== range.bytes.length) return false;
  const whole = Math.floor(range.prefix / 8);
  for (let i = 0; i < whole; i++) if (ip[i] !== range.bytes[i]) return false;
  const rest = range.prefix % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (ip[whole] & mask) === (range.bytes[whole] & mask);
}

/** Dotted IPv4, or IPv6 in the RFC 5952 form (lower case, longest zero run as "::"). */
export function formatIp(bytes: IpBytes): string {
  return ipaddr.fromByteArray(Array.from(bytes)).toString();
}

/** The first `prefix` bits of `bytes`, the rest zero. */
export function truncate(bytes: IpBytes, prefix: number): IpBytes {
  const out = new Uint8Array(bytes.length);
  const whole = Math.floor(prefix / 8);
  out.set(bytes.subarray(0, whole));
  const rest = prefix % 8;
  if (rest > 0 && whole < bytes.length) out[whole] = bytes[whole] & ((0xff << (8 - rest)) & 0xff);
  return out;
}
