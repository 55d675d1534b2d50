import assert from "node:assert/strict";
import { Hono } from "hono";
import { formatIp, type IpRange, parseCidr, parseIp } from "../../lib/ip.ts";
import { clientIp, clientName, clientOf, UNKNOWN_CLIENT } from "./client_address.ts";

const ranges = (...s: string[]): IpRange[] => s.map((r) => parseCidr(r)!);
const who = (peer: string, xff: string | undefined, trusted: IpRange[]) => {
  const ip = clientIp(parseIp(peer), xff, trusted);
  return ip && formatIp(ip);
};

Deno.test("X-Forwarded-For is ignored unless the peer is a trusted proxy", () => {
  // No trusted proxies (the default): the header is never read.
  assert.equal(who("198.51.100.7", "203.0.113.1", []), "198.51.100.7");
  // A peer outside the trusted ranges cannot name another client either.
  const trusted = ranges("10.0.0.0/8", "2001:db8:ffff::/48");
  assert.equal(who("198.51.100.7", "203.0.113.1", trusted), "198.51.100.7");
  assert.equal(who("2001:db8:1::9", "203.0.113.1", trusted), "2001:db8:1::9");
});

Deno.test("from a trusted proxy, the rightmost entry that is not a trusted proxy is the client", () => {
  const trusted = ranges("10.0.0.0/8", "2001:db8:ffff::/48");
  assert.equal(who("10.0.0.2", "203.0.113.1", trusted), "203.0.113.1");
  // Entries left of the client's were written by the client: never believed.
  assert.equal(who("10.0.0.2", "192.0.2.66, 203.0.113.1", trusted), "203.0.113.1");
  // A chain of trusted proxies is walked through.
  assert.equal(who("10.0.0.2", "192.0.2.66, 203.0.113.1, 10.9.9.9", trusted), "203.0.113.1");
  assert.equal(who("2001:db8:ffff::1", "[2001:db8:5::5]:1234", trusted), "2001:db8:5::5");
  // Several header lines arrive joined with commas.
  assert.equal(who("10.0.0.2", "192.0.2.66,203.0.113.1", trusted), "203.0.113.1");
  // Only proxies in the header: the leftmost.
  assert.equal(who("10.0.0.2", "10.1.1.1, 10.2.2.2", trusted), "10.1.1.1");
  // No header, or an empty one: the proxy itself.
  assert.equal(who("10.0.0.2", undefined, trusted), "10.0.0.2");
  assert.equal(who("10.0.0.2", "", trusted), "10.0.0.2");
  // An entry that is no address ends the walk at the last address a trusted proxy gave.
  assert.equal(who("10.0.0.2", "203.0.113.1, unknown", trusted), "10.0.0.2");
  assert.equal(who("10.0.0.2", "garbage, 10.3.3.3", trusted), "10.3.3.3");
  assert.equal(who("10.0.0.2", "garbage, 203.0.113.1", trusted), "203.0.113.1");
});

Deno.test("clientName: IPv4 by address, IPv6 by its /64, unknown without a peer", () => {
  assert.equal(clientName(parseIp("203.0.113.1")), "203.0.113.1");
  assert.equal(clientName(parseIp("::ffff:203.0.113.1")), "203.0.113.1");
  assert.equal(clientName(parseIp("2001:db8:1:2:aaaa::1")), "2001:db8:1:2::/64");
  assert.equal(clientName(parseIp("2001:db8:1:2:bbbb::9")), "2001:db8:1:2::/64");
  assert.equal(clientName(null), UNKNOWN_CLIENT);
});

Deno.test("clientOf reads the peer Deno.serve hands to app.fetch as c.env", async () => {
  const trusted = ranges("127.0.0.1");
  const app = new Hono();
  app.get("/", (c) => c.text(clientOf(c, trusted)));
  const call = async (headers: Record<string, string>, info?: unknown) =>
    await (await app.fetch(new Request("http://x/", { headers }), info)).text();
  const info = (hostname: string) => ({ remoteAddr: { transport: "tcp", hostname, port: 5 } });
  assert.equal(await call({}, info("198.51.100.7")), "198.51.100.7");
  assert.equal(
    await call({ "x-forwarded-for": "203.0.113.1" }, info("198.51.100.7")),
    "198.51.100.7",
  );
  assert.equal(await call({ "x-forwarded-for": "203.0.113.1" }, info("127.0.0.1")), "203.0.113.1");
  // Called without the peer (app.request in a test, a server that does not pass it on).
  assert.equal(await call({ "x-forwarded-for": "203.0.113.1" }), UNKNOWN_CLIENT);
  assert.equal(
    await call({}, { remoteAddr: { transport: "unix", path: "/run/s" } }),
    UNKNOWN_CLIENT,
  );

  // And the real thing: Deno.serve's handler info reaches the route.
  const ac = new AbortController();
  let port = 0;
  let listening: () => void;
  const ready = new Promise<void>((resolve) => (listening = resolve));
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: ac.signal,
    onListen: (addr) => {
      port = addr.port;
      listening();
    },
  }, app.fetch);
  await ready;
  try {
    const direct = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(await direct.text(), "127.0.0.1");
    const proxied = await fetch(`http://127.0.0.1:${port}/`, {
      headers: { "x-forwarded-for": "203.0.113.1" },
    });
    assert.equal(await proxied.text(), "203.0.113.1");
  } finally {
    ac.abort();
    await server.finished;
  }
});
