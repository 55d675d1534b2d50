/**
 * The outbound rules of webhook delivery (docs/changes.md "Outbound rules"): the service sends
 * a webhook only to the URL an administrator configured, and that URL must be
 * - http: or https:, absolute, without credentials or a fragment, at most MAX_URL_LENGTH long;
 * - on a public unicast address: loopback, private, link-local (cloud metadata), carrier-grade
 *   NAT, unique-local, multicast, unspecified and reserved ranges, and IPv6 forms that embed an
 *   IPv4 address, are refused unless DRIVE_WEBHOOK_ALLOW_PRIVATE is true. The host is checked
 *   when the webhook is created (a literal address, or `localhost`) and again, resolved through
 *   DNS, before every attempt, so a name that later points inward is refused then.
 * Redirects are never followed (webhook_send.ts): a 3xx is a failed attempt.
 */
import ipaddr from "ipaddr.js";
import { parseHttpUrl } from "../../lib/http_url.ts";

export const MAX_URL_LENGTH = 2048;

/** Whether `ip` is a public unicast address (an IPv4-mapped IPv6 address counts as its IPv4). */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr instanceof ipaddr.IPv6 && addr.isIPv4MappedAddress()) addr = addr.toIPv4Address();
  return addr.range() === "unicast";
}

/** The host of `url` without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

const isLocalName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** The normalized URL, or what breaks the rules (before any DNS lookup). */
export function checkWebhookUrl(
  raw: string,
  allowPrivate: boolean,
): { url: string } | { problem: string } {
  if (raw.length > MAX_URL_LENGTH) return { problem: `at most ${MAX_URL_LENGTH} characters` };
  const parsed = parseHttpUrl(raw, {
    unparsable: "must be an absolute http or https URL",
    scheme: (scheme) => `must be http or https, not ${scheme}`,
    userInfo: "must not carry a user name or password",
  });
  if ("problem" in parsed) return parsed;
  const { url } = parsed;
  if (url.hash) return { problem: "must not have a #fragment" };
  const host = hostOf(url);
  if (!allowPrivate) {
    const literal = ipaddr.isValid(host);
    if ((literal && !isPublicAddress(host)) || isLocalName(host)) {
      return {
        problem: `${host} is not a public address (set DRIVE_WEBHOOK_ALLOW_PRIVATE to allow it)`,
      };
    }
  }
  return { url: url.href };
}

/**
 * Null when `url` may be reached now, else why not: with private targets refused, every
 * address its host resolves to must be public. Resolved just before the attempt; the fetch
 * resolves again, so a DNS answer that changes in between is the one gap (docs/changes.md).
 */
export async function reachProblem(url: URL, allowPrivate: boolean): Promise<string | null> {
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (isLocalName(host)) return `${host} is not a public address`;
  const addresses: string[] = [];
  if (ipaddr.isValid(host)) addresses.push(host);
  else {
    for (const type of ["A", "AAAA"] as const) {
      try {
        addresses.push(...await Deno.resolveDns(host, type));
      } catch (err) {
        // No record of one type is normal (an IPv4-only host); no address at all is checked below.
        if (!(err instanceof Deno.errors.NotFound)) {
          return `${host} could not be resolved: ${err instanceof Error ? err.message : err}`;
        }
      }
    }
  }
  if (addresses.length === 0) return `${host} does not resolve to an address`;
  const inner = addresses.find((a) => !isPublicAddress(a));
  return inner ? `${host} resolves to ${inner}, which is not a public address` : null;
}
