import assert from "node:assert/strict";
import {
  embeddedIpv4,
  formatIp,
  inRange,
  parseCidr,
  parseForwardedIp,
  parseIp,
  truncate,
} from "./ip.ts";

const ip = (s: string) => {
  const bytes = parseIp(s);
  assert.ok(bytes, s);
  return bytes;
};

Deno.test("parseIp: IPv4 and IPv6 in their written forms, canonical when printed", () => {
  const cases: [string, string][] = [
    ["192.0.2.1", "192.0.2.1"],
    ["0.0.0.0", "0.0.0.0"],
    ["::1", "::1"],
    ["::", "::"],
    ["2001:DB8::1", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["fe80:0:0:0:0:0:0:0", "fe80::"],
    // What a dual-stack socket reports for an IPv4 peer is that IPv4 address.
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::ffff:c000:201", "192.0.2.1"],
  ];
  for (const [written, printed] of cases) assert.equal(formatIp(ip(written)), printed, written);
});

Deno.test("parseIp: anything else is not an address", () => {
  for (
    const s of [
      "",
      "192.0.2",
      "192.0.2.256",
      "192.0.2.01",
      "1.2.3.4.5",
      ":::",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7::8",
      "fe80::1%eth0",
      "12345::",
      "example.com",
      "[::1]",
      " 192.0.2.1",
    ]
  ) {
    assert.equal(parseIp(s), null, JSON.stringify(s));
  }
});

Deno.test("parseForwardedIp: bare, with a port, IPv6 in brackets, spaces around", () => {
  assert.equal(formatIp(parseForwardedIp(" 203.0.113.7 ")!), "203.0.113.7");
  assert.equal(formatIp(parseForwardedIp("203.0.113.7:4711")!), "203.0.113.7");
  assert.equal(formatIp(parseForwardedIp("[2001:db8::7]:443")!), "2001:db8::7");
  assert.equal(formatIp(parseForwardedIp("[2001:db8::7]")!), "2001:db8::7");
  assert.equal(formatIp(parseForwardedIp("2001:db8::7")!), "2001:db8::7");
  for (const s of ["unknown", "_hidden", "[2001:db8::7", "203.0.113.7:http", ""]) {
    assert.equal(parseForwardedIp(s), null, s);
  }
});

Deno.test("parseCidr and inRange: prefixes of IPv4 and IPv6, single addresses, mapped ranges", () => {
  const range = (s: string) => {
    const r = parseCidr(s);
    assert.ok(r, s);
    return r;
  };
  assert.ok(inRange(ip("10.1.2.3"), range("10.0.0.0/8")));
  assert.ok(!inRange(ip("11.0.0.1"), range("10.0.0.0/8")));
  assert.ok(inRange(ip("172.31.255.255"), range("172.16.0.0/12")));
  assert.ok(!inRange(ip("172.32.0.0"), range("172.16.0.0/12")));
  assert.ok(inRange(ip("192.0.2.1"), range("192.0.2.1")));
  assert.ok(!inRange(ip("192.0.2.2"), range("192.0.2.1")));
  assert.ok(inRange(ip("203.0.113.9"), range("0.0.0.0/0")));
  assert.ok(inRange(ip("2001:db8:1::5"), range("2001:db8::/32")));
  assert.ok(!inRange(ip("2001:db9::5"), range("2001:db8::/32")));
  assert.ok(inRange(ip("::1"), range("::1")));
  // Families never match each other, except through the IPv4-mapped form.
  assert.ok(!inRange(ip("10.0.0.1"), range("::/0")));
  assert.ok(!inRange(ip("::1"), range("0.0.0.0/0")));
  assert.ok(inRange(ip("::ffff:10.0.0.1"), range("10.0.0.0/8")));
  assert.ok(inRange(ip("10.0.0.1"), range("::ffff:10.0.0.0/104")));
  for (
    const s of ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/-1", "x/8", ""]
  ) {
    assert.equal(parseCidr(s), null, s);
  }
});

Deno.test("truncate keeps the leading bits", () => {
  assert.equal(formatIp(truncate(ip("2001:db8:1:2:3:4:5:6"), 64)), "2001:db8:1:2::");
  assert.equal(formatIp(truncate(ip("192.0.2.255"), 25)), "192.0.2.128");
});

Deno.test("embeddedIpv4: the IPv4 address an IPv6 form carries, and only there", () => {
  const inside = (s: string) => {
    const v4 = embeddedIpv4(ip(s));
    return v4 ? formatIp(v4) : null;
  };
  // As the URL parser writes [::127.0.0.1] (ipaddr.js would read the dotted form as mapped).
  assert.equal(inside("::7f00:1"), "127.0.0.1");
  assert.equal(inside("::ffff:0:7f00:1"), "127.0.0.1");
  assert.equal(inside("64:ff9b::a00:1"), "10.0.0.1");
  assert.equal(inside("64:ff9b:1::a00:1"), "10.0.0.1");
  for (const s of ["::", "::1", "2001:db8::7f00:1", "fe80::1", "192.0.2.1"]) {
    assert.equal(inside(s), null, s);
  }
});
