/**
 * Connection slots are for clients that send (issue 22): serve.ts in-process, over real sockets.
 * An answer sent before its request body was read closes the connection instead of draining a
 * trickled body; a body under the minimum rate is cut; one client address gets its share of the
 * slots and no more, while another address is served. The same limits against a real main.ts
 * process and 4,150 connections are in tests/runtime/connection_slots_test.ts.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { parseCidr } from "../lib/ip.ts";
import type { Server } from "../serve.ts";
import { clientSlots, perClientCap } from "./clients.ts";
import type { Handler } from "./deno_http.ts";
import type { ConnectionLimits } from "./limits.ts";
import { TEST_LIMITS as LIMITS, withLoopbackServe } from "./limits_fixtures.ts";

/** serve() on a free loopback port for the length of `fn`; stopping waits for nothing. */
const served = (
  handler: Handler,
  limits: ConnectionLimits,
  fn: (server: Server) => Promise<void>,
) => withLoopbackServe(handler, limits, fn, { graceMs: 0 });

function closeQuietly(conn: Deno.Conn) {
  try {
    conn.close();
  } catch { /* closed by the server */ }
}

/** Reads `conn` until the server closes it or `ms` pass; what arrived and whether it closed. */
async function untilClosed(
  conn: Deno.Conn,
  ms = 5000,
): Promise<{ closed: boolean; text: string }> {
  const buf = new Uint8Array(4096);
  let text = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), ms)));
  try {
    while (true) {
      const n = await Promise.race([conn.read(buf).catch(() => null), late]);
      if (n === "late") return { closed: false, text };
      if (n === null) return { closed: true, text };
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Writes a byte every `everyMs` until `stop` resolves or the write fails. */
async function trickle(conn: Deno.Conn, everyMs: number, stop: Promise<unknown>) {
  let stopped = false;
  stop.finally(() => (stopped = true));
  while (!stopped) {
    await new Promise((r) => setTimeout(r, everyMs));
    if (stopped || !(await conn.write(new Uint8Array([0x20])).then(() => true, () => false))) {
      return;
    }
  }
}

const enc = new TextEncoder();

/**
 * Answers 401 without reading the body, except on /read, which echoes the body. The 401 waits a
 * little, as a real check (a KV read) does, so that the body's first bytes are in the server's
 * socket, unread, when the answer goes out: then a close sends a reset.
 */
const earlyUnlessRead: Handler = async (req) => {
  if (new URL(req.url).pathname === "/read") return new Response(await req.text());
  await new Promise((r) => setTimeout(r, 20));
  return new Response("no", { status: 401 });
};

Deno.test("an answer sent before the request body is read says Connection: close, and the connection is cut when the body still trickles after the linger time", async () => {
  await served(earlyUnlessRead, { ...LIMITS, lingerMs: 300 }, async (server) => {
    const port = server.addr.port;
    // A GET's body is never watched or read, but a declared one is drained all the same.
    for (const method of ["POST", "GET"]) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      try {
        await conn.write(
          enc.encode(`${method} /early HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{`),
        );
        const answer = untilClosed(conn);
        const trickling = trickle(conn, 100, answer);
        const r = await answer;
        await trickling;
        assert.match(r.text, /^HTTP\/1\.1 401 /);
        assert.match(r.text, /\r\nconnection: close\r\n/i);
        assert.ok(r.closed, `${method}: still open while its body trickles:\n${r.text}`);
      } finally {
        conn.close();
      }
    }
    assert.equal(server.counts.earlyAnswers, 2);
    assert.equal(server.counts.lingerCuts, 2);
    // A body read to its end keeps the connection alive for the next request.
    const kept = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      const buf = new Uint8Array(4096);
      for (const body of ["ab", "cd"]) {
        await kept.write(
          enc.encode(`POST /read HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n${body}`),
        );
        const text = new TextDecoder().decode(buf.subarray(0, (await kept.read(buf)) ?? 0));
        assert.match(text, /^HTTP\/1\.1 200 /);
        assert.doesNotMatch(text, /connection: close/i);
        assert.match(text, new RegExp(`${body}$`));
      }
    } finally {
      kept.close();
    }
  });
});

Deno.test("an early answer reaches the client whole: a stalled body lingers, a sent one is drained and the connection closes by itself", async () => {
  await served(earlyUnlessRead, { ...LIMITS, lingerMs: 1000 }, async (server) => {
    const port = server.addr.port;
    // 64 KiB of a declared 10 MB, then nothing: closing with those bytes unread would reset the
    // 401 before the client reads it.
    const stalled = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await stalled.write(
        enc.encode("PUT /early HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000\r\n\r\n"),
      );
      const sent = new Uint8Array(64 * 1024).fill(0x61);
      for (let off = 0; off < sent.byteLength;) off += await stalled.write(sent.subarray(off));
      const r = await untilClosed(stalled);
      assert.match(r.text, /^HTTP\/1\.1 401 [^]*\r\n\r\nno$/);
      assert.ok(r.closed, "a stalled body still holds its connection after the linger time");
    } finally {
      closeQuietly(stalled);
    }
    assert.equal(server.counts.lingerCuts, 1);
    // A keep-alive client (fetch pools connections): bodies from 1 byte to 1 MiB answered
    // without being read, between requests whose bodies are read, 4 at a time. Each gets its
    // answer whole, and each early-answered connection closes once its body is drained.
    const url = `http://127.0.0.1:${port}`;
    const sizes = [1, 100, 4096, 65_536, 300_000, 1_048_576];
    const failures: string[] = [];
    const client = Deno.createHttpClient({});
    let early = 1;
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        [0, 1, 2, 3].map(async (lane) => {
          for (const [i, size] of sizes.entries()) {
            const read = (i + lane + round) % 3 === 0;
            if (!read) early++;
            const body = new Uint8Array(size).fill(0x62);
            try {
              const res = await fetch(`${url}/${read ? "read" : "early"}`, {
                method: "POST",
                body,
                client,
              } as RequestInit);
              const text = await res.text();
              const want = read ? `200 ${size}` : "401 no";
              const got = `${res.status} ${read ? text.length : text}`;
              if (got !== want) failures.push(`${size} bytes: ${got}, not ${want}`);
            } catch (err) {
              failures.push(`${size} bytes, ${read ? "read" : "early"}: ${err}`);
            }
          }
        }),
      );
    }
    client.close();
    assert.deepEqual(failures, []);
    assert.equal(server.counts.earlyAnswers, early);
    // The read bodies' connections stay alive until the client closes them.
    for (let i = 0; i < 500 && server.connections > 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(server.counts.lingerCuts, 1, "a drained body's connection was cut");
  });
});

Deno.test("a body that sends under the minimum rate is cut, while one just above it arrives whole", async () => {
  const limits = { ...LIMITS, bodyMinRateBytes: 100, bodyMinRateWindowMs: 400 };
  const failures: string[] = [];
  const handler: Handler = (req) =>
    req.text().then(
      (t) => new Response(`got ${t.length}`),
      (err) => {
        failures.push(err.name);
        throw err;
      },
    );
  await served(handler, limits, async (server) => {
    const port = server.addr.port;
    // 1 byte per 50 ms is 20 bytes per window: never idle for long, always too slow.
    const slow = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await slow.write(enc.encode("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n"));
      const r = untilClosed(slow);
      await trickle(slow, 50, r);
      assert.ok((await r).closed, "a body at 20 bytes per 400 ms was not cut");
    } finally {
      slow.close();
    }
    assert.deepEqual(failures, ["TimedOut"]);
    assert.equal(server.counts.slowBodies, 1);
    // 60 bytes every 100 ms is 240 bytes per window: slow, but above the minimum.
    const steady = await Deno.connect({ hostname: "127.0.0.1", port });
    try {
      await steady.write(enc.encode("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 900\r\n\r\n"));
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await steady.write(new Uint8Array(60).fill(0x61));
      }
      const buf = new Uint8Array(4096);
      const text = new TextDecoder().decode(buf.subarray(0, (await steady.read(buf)) ?? 0));
      assert.match(text, /^HTTP\/1\.1 200 [^]*got 900$/);
    } finally {
      steady.close();
    }
  });
});

/**
 * One request from the loopback address `from` (Deno.connect cannot choose its source address,
 * node:net can): the status line, or "" when the connection ended without an answer.
 */
function statusFrom(from: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    socket.setTimeout(5000, () => socket.destroy());
    socket.on(
      "connect",
      () => socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    );
    socket.on("data", (d) => (text += d));
    socket.on("error", () => {});
    socket.on("close", () => resolve(text.split("\r\n")[0]));
  });
}

Deno.test("one client address gets its share of the slots, then a 503, while another address is served; a trusted proxy is not capped", async () => {
  const stalled = enc.encode("GET / HTTP/1.1\r\nHost: x\r\n");
  for (const trusted of [false, true]) {
    const limits = {
      ...LIMITS,
      maxConnectionsPerClient: 2,
      trustedProxies: trusted ? [parseCidr("127.0.0.1")!] : [],
    };
    await served(() => new Response("ok"), limits, async (server) => {
      const port = server.addr.port;
      const held: Deno.Conn[] = [];
      try {
        for (let i = 0; i < 3; i++) {
          const conn = await Deno.connect({ hostname: "127.0.0.1", port });
          held.push(conn);
          await conn.write(stalled);
        }
        while (server.connections + server.counts.refusedPerClient < 3) {
          await new Promise((r) => setTimeout(r, 10));
        }
        const third = await untilClosed(held[2], trusted ? 300 : 5000);
        if (trusted) {
          assert.equal(server.counts.refusedPerClient, 0);
          assert.ok(!third.closed, "a trusted proxy's third connection was refused");
        } else {
          assert.ok(third.closed, "the third connection of a client with a share of 2 is open");
          assert.match(third.text, /^HTTP\/1\.1 503 [^]*Too many connections/);
          assert.equal(server.counts.refusedPerClient, 1);
        }
        assert.match(await statusFrom("127.0.0.2", port), / 200 /);
        // A slot given back is the client's again.
        held.shift()!.close();
        while (server.connections > (trusted ? 2 : 1)) await new Promise((r) => setTimeout(r, 10));
        assert.match(await statusFrom("127.0.0.1", port), / 200 /);
      } finally {
        held.forEach(closeQuietly);
      }
    });
  }
});

Deno.test("clients are named as the throttle names them: an IPv4 address, an IPv6 /64; trusted proxies are not counted", () => {
  const at = (hostname: string): Deno.NetAddr => ({ transport: "tcp", hostname, port: 1 });
  const slots = clientSlots(1, [parseCidr("10.0.0.0/8")!]);
  assert.equal(slots.take(at("192.0.2.1")), "192.0.2.1");
  assert.equal(slots.take(at("::ffff:192.0.2.1")), null, "the mapped form is the same client");
  assert.equal(slots.take(at("192.0.2.2")), "192.0.2.2");
  assert.equal(slots.take(at("2001:db8:1:2::1")), "2001:db8:1:2::/64");
  assert.equal(slots.take(at("2001:db8:1:2:ffff::9")), null, "the same /64");
  assert.equal(slots.take(at("2001:db8:1:3::1")), "2001:db8:1:3::/64");
  assert.equal(slots.take(at("10.1.2.3")), "");
  assert.equal(slots.take(at("10.1.2.3")), "", "a trusted proxy is never at its cap");
  assert.equal(slots.clients, 4);
  slots.release("192.0.2.1");
  slots.release("");
  assert.equal(slots.clients, 3);
  assert.equal(slots.take(at("192.0.2.1")), "192.0.2.1");
});

Deno.test("the per-client cap shrinks with the cap when the descriptor limit lowers it", () => {
  assert.equal(perClientCap(1024, 4096, 4096), 1024);
  assert.equal(perClientCap(1024, 4096, 192), 48);
  assert.equal(perClientCap(5000, 4096, 4096), 4096);
  assert.equal(perClientCap(1, 4096, 3), 1);
});
