/**
 * IP addresses and CIDR ranges, IPv4 and IPv6, as plain bytes: parse, match, print canonically.
 * Used to read DRIVE_TRUSTED_PROXIES (config.ts) and to name the client of a request
 * (api/http/client_address.ts). An IPv4-mapped IPv6 address (::ffff:192.0.2.1, what a
 * dual-stack socket reports for an IPv4 peer) is the IPv4 address, so one client has one name.
 */

/** 4 bytes (IPv4) or 16 bytes (IPv6). */
export type IpBytes = Uint8Array;

/** An address and how many leading bits of it a range fixes. */
export interface IpRange {
  bytes: IpBytes;
  prefix: number;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function parseV4(s: string): IpBytes | null {
  return IPV4.test(s) ? new Uint8Array(s.split(".").map(Number)) : null;
}

function parseV6(s: string): IpBytes | null {
  if (!/^[0-9a-fA-F:.]+$/.test(s) || s.length > 45) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const p = pieces[i];
      // A dotted IPv4 tail (::ffff:192.0.2.1) stands for the last two groups.
      if (i === pieces.length - 1 && p.includes(".")) {
        const v4 = parseV4(p);
        if (!v4) return null;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) {
        out.push(parseInt(p, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const all = [...head, ...new Array(missing).fill(0), ...tail];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
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
  if (bytes.length === 4) return Array.from(bytes).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i] << 8) | bytes[2 * i + 1]);
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
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
