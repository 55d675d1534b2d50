/**
 * The outbound rules of webhook delivery (docs/security.md "Webhooks"): the service sends a
 * webhook only to the URL an administrator configured, and that URL must be
 * - http: or https:, absolute, without credentials or a fragment, at most MAX_URL_LENGTH long;
 * - on a public unicast address: loopback, private, link-local, carrier-grade NAT, unique-local,
 *   multicast, unspecified and reserved ranges, IPv6 forms that carry an IPv4 address (judged as
 *   that address), and names that only exist inside a network (localhost, single labels, .local,
 *   .internal, .home.arpa) are refused unless DRIVE_WEBHOOK_ALLOW_PRIVATE is true;
 * - never a cloud metadata service, by name or address, even with DRIVE_WEBHOOK_ALLOW_PRIVATE:
 *   no receiver lives there, and it hands out the machine's credentials.
 * Hosts are normalized before any check (normalizeHost): the URL parser already writes decimal,
 * octal and hex IPv4 (2130706433, 0177.0.0.1, 0x7f.1) as dotted quads; IPv6 brackets, trailing
 * dots (`localhost.`) and case are removed here. The URL is checked when the webhook is created
 * and again before every attempt, when the host is resolved once (vetTarget) and the attempt
 * connects to the addresses that passed, never resolving again (webhook_send.ts), so a DNS answer
 * that changes between the check and the connection (rebinding) cannot point it inward.
 * Redirects are never followed (webhook_send.ts): a 3xx is a failed attempt.
 */
import ipaddr from "ipaddr.js";
import { lookup } from "node:dns/promises";
import { embeddedIpv4, formatIp, parseIp } from "../../lib/ip.ts";
import { parseHttpUrl } from "../../lib/http_url.ts";

export const MAX_URL_LENGTH = 2048;

/** Names of instance metadata services (GCP, AWS, Tencent, Equinix), refused always. */
const METADATA_NAMES = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
  "metadata.tencentyun.com",
  "metadata.packet.net",
]);

/**
 * Addresses of metadata and platform services, refused always: 169.254.169.254 (AWS, GCP, Azure,
 * Oracle, DigitalOcean, OpenStack), AWS's IPv6 IMDS and its container credential endpoints,
 * Alibaba's 100.100.100.200, Azure's wire server 168.63.129.16 and Oracle's 192.0.0.192.
 */
const METADATA_ADDRESSES = new Set([
  "169.254.169.254",
  "169.254.170.2",
  "169.254.170.23",
  "fd00:ec2::254",
  "fd00:ec2::23",
  "100.100.100.200",
  "168.63.129.16",
  "192.0.0.192",
]);

/** Suffixes of names that are never in public DNS (RFC 6761, RFC 6762, RFC 8375, ICANN 2024). */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa"];

/** What a host resolves to: every address, IPv4 and IPv6. */
export type Resolver = (host: string) => Promise<string[]>;

/**
 * The system's resolver (getaddrinfo: the hosts file, then DNS), the same one a plain connection
 * would use, so what is vetted is what the host means on this machine.
 */
export const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The host of `url` as the rules judge it: lower case, no IPv6 brackets, no trailing dots. */
export function normalizeHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.+$/, "").toLowerCase();
}

/** The address `ip` reaches: the IPv4 inside an IPv6 form that carries one, else `ip` itself. */
function effectiveAddress(ip: string): string | null {
  const bytes = parseIp(ip);
  return bytes ? formatIp(embeddedIpv4(bytes) ?? bytes) : null;
}

/** Whether `ip` is a public unicast address (an IPv6 form carrying an IPv4 counts as that). */
export function isPublicAddress(ip: string): boolean {
  const reached = effectiveAddress(ip);
  return reached !== null && ipaddr.parse(reached).range() === "unicast" &&
    !METADATA_ADDRESSES.has(reached);
}

/** Rule options: `treatAsPublic` lists loopback stand-ins for internet addresses (tests only). */
export interface AddressRules {
  allowPrivate: boolean;
  treatAsPublic?: readonly string[];
}

/** Why the address `ip` may not be reached, or null. */
export function addressProblem(ip: string, rules: AddressRules): string | null {
  const reached = effectiveAddress(ip);
  if (reached === null) return `${ip} is not an IP address`;
  const written = formatIp(parseIp(ip)!);
  const shown = reached === written ? ip : `${ip} (that is ${reached})`;
  if (METADATA_ADDRESSES.has(reached) || METADATA_ADDRESSES.has(written)) {
    return `${shown} is not a public address: it is a cloud metadata service`;
  }
  if (rules.allowPrivate || rules.treatAsPublic?.includes(reached)) return null;
  return isPublicAddress(reached)
    ? null
    : `${shown} is not a public address (set DRIVE_WEBHOOK_ALLOW_PRIVATE to allow it)`;
}

/** Why the host name `host` (normalized) may not be reached, before any lookup, or null. */
function nameProblem(host: string, allowPrivate: boolean): string | null {
  if (METADATA_NAMES.has(host)) {
    return `${host} is not a public address: it names a cloud metadata service`;
  }
  if (allowPrivate) return null;
  const local = host === "localhost" || !host.includes(".") ||
    LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix));
  return local
    ? `${host} is not a public address: a local name (set DRIVE_WEBHOOK_ALLOW_PRIVATE to allow it)`
    : null;
}

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
  const host = normalizeHost(url);
  if (host === "") return { problem: "must name a host" };
  const problem = parseIp(host)
    ? addressProblem(host, { allowPrivate })
    : nameProblem(host, allowPrivate);
  return problem ? { problem } : { url: url.href };
}

/** How long creating a webhook waits for its name to resolve before leaving it to the attempts. */
const CREATION_LOOKUP_MS = 3_000;

/**
 * Why the URL that checkWebhookUrl passed may not be reached as its name resolves now, or null.
 * A name resolving inward (wildcard DNS such as *.nip.io) is refused at creation, so the mistake
 * shows where it is made; a name that does not resolve (yet) is accepted and judged by every
 * attempt (vetTarget), which is what keeps rebinding out.
 */
export async function resolvedProblem(
  url: string,
  rules: AddressRules & { resolve: Resolver },
): Promise<string | null> {
  const host = normalizeHost(new URL(url));
  if (parseIp(host)) return null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const addresses = await Promise.race([
    rules.resolve(host).catch(() => [] as string[]),
    new Promise<string[]>((done) => timer = setTimeout(() => done([]), CREATION_LOOKUP_MS)),
  ]).finally(() => clearTimeout(timer));
  for (const address of addresses) {
    const problem = addressProblem(address, rules);
    if (problem) return `${host} resolves to a refused address: ${problem}`;
  }
  return null;
}

/** Where an attempt may connect: the URL to request (host normalized) and its vetted addresses. */
export interface VettedTarget {
  url: URL;
  addresses: string[];
}

/**
 * The addresses `url` may be reached at now, or why not: the host is resolved once, and every
 * address it resolves to must pass addressProblem (a name that mixes public and inner answers is
 * refused). The attempt connects to these addresses only (webhook_send.ts), never resolving again.
 */
export async function vetTarget(
  url: URL,
  rules: AddressRules & { resolve: Resolver },
): Promise<VettedTarget | { problem: string }> {
  const host = normalizeHost(url);
  const target = new URL(url);
  // Without the trailing dot: it is not allowed in TLS server names (RFC 6066) nor certificates.
  if (!host.includes(":")) target.hostname = host;
  if (parseIp(host)) {
    const problem = addressProblem(host, rules);
    return problem ? { problem } : { url: target, addresses: [host] };
  }
  const named = nameProblem(host, rules.allowPrivate);
  if (named) return { problem: named };
  let addresses: string[];
  try {
    addresses = await rules.resolve(host);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ENOTFOUND" || code === "ENODATA" || err instanceof Deno.errors.NotFound) {
      return { problem: `${host} does not resolve to an address` };
    }
    return {
      problem: `${host} could not be resolved: ${err instanceof Error ? err.message : err}`,
    };
  }
  if (addresses.length === 0) return { problem: `${host} does not resolve to an address` };
  for (const address of addresses) {
    const problem = addressProblem(address, rules);
    if (problem) return { problem: `${host} resolves to a refused address: ${problem}` };
  }
  return { url: target, addresses };
}
