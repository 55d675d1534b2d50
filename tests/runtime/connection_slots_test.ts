/**
 * Connection slots are for clients that send (issue 22, item 2): main.ts as its own process with
 * the default caps (4,096 connections, a quarter per client), attacked from 127.0.0.1 with 4,150
 * connections while 127.0.0.2 asks for /healthz. Measured before: the trickling connections held
 * every slot and the second address got 503 "Too many connections".
 *
 * - Trickled headers: 127.0.0.1 gets its quarter of the slots and a 503 beyond; 127.0.0.2 is served.
 * - The attack, an upload without credentials whose declared body trickles: each gets its
 *   401 whole, and the connection is cut once it has lingered `DRIVE_LINGER_MS` (5 s) with the body
 *   still unsent, instead of being held until the keep-alive timeout (60 s).
 *
 * The figures (answers per address, how long the 401 connections were held) are printed. The test
 * needs about 4,400 descriptors; under a lower `ulimit -n` it scales the flood and the cap down
 * and says so. Every connection is closed by the test at the end of its phase.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { startLimitedMain } from "../helpers/limited_main.ts";

const enc = new TextEncoder();
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The flood of the issue, and the cap it overran; scaled down under a low descriptor limit. */
function sizes(): { flood: number; cap: number } {
  const soft = /^Max open files\s+(\d+)/m.exec(Deno.readTextFileSync("/proc/self/limits"))?.[1];
  const fds = soft ? Number(soft) : Infinity;
  if (fds >= 4150 + 300) return { flood: 4150, cap: 4096 };
  const flood = fds - 300;
  console.log(`ulimit -n ${fds}: flood scaled down from 4150 to ${flood} connections`);
  return { flood, cap: Math.floor(flood * 4096 / 4150) };
}

/** GET /healthz from the loopback address `from` (node:net can choose it): the status code. */
function healthFrom(from: string, port: number): Promise<number> {
  return new Promise((resolve) => {
    let text = "";
    const socket = net.connect({ host: "127.0.0.1", port, localAddress: from });
    socket.setTimeout(5000, () => socket.destroy());
    socket.on("connect", () => {
      socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    });
    socket.on("data", (d) => (text += d));
    socket.on("error", () => {});
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}

/** One attacking connection: what it was answered, and when the server closed it. */
interface Held {
  conn: Deno.TcpConn;
  status: number;
  answeredAt: number;
  closedAt: number;
}

/** Opens `count` connections from 127.0.0.1, 100 at a time, each sending `first`. */
async function flood(port: number, count: number, first: Uint8Array): Promise<Held[]> {
  const held: Held[] = [];
  for (let i = 0; i < count; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, count - i) }, async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      const h: Held = { conn, status: 0, answeredAt: 0, closedAt: 0 };
      held.push(h);
      await conn.write(first).catch(() => 0);
      watch(h);
    }));
  }
  return held;
}

/** Reads `h` until the server closes it, noting the status and the times. */
async function watch(h: Held) {
  const buf = new Uint8Array(1024);
  while (true) {
    const n = await h.conn.read(buf).catch(() => null);
    if (n === null) break;
    if (h.status === 0) {
      h.status = Number(
        /^HTTP\/1\.1 (\d{3})/.exec(new TextDecoder().decode(buf.subarray(0, n)))?.[1],
      );
      h.answeredAt = performance.now();
    }
  }
  h.closedAt = performance.now();
}

/** Writes `byte` on every connection still open, every `everyMs`, until `stop` is aborted. */
async function trickle(held: Held[], byte: string, everyMs: number, stop: AbortSignal) {
  const bytes = enc.encode(byte);
  while (!stop.aborted) {
    await delay(everyMs);
    for (const h of held) if (h.closedAt === 0) h.conn.write(bytes).catch(() => 0);
  }
}

function closeAll(held: Held[]) {
  for (const h of held) {
    try {
      h.conn.close();
    } catch { /* closed by the server */ }
  }
}

const countOf = (held: Held[], status: number) => held.filter((h) => h.status === status).length;

Deno.test("connection slots: 4,150 trickling connections from one address leave slots for another, and an early 401 frees its slot after the linger time", async (t) => {
  const { flood: size, cap } = sizes();
  const child = await startLimitedMain({
    DRIVE_MAX_CONNECTIONS: String(cap),
    // Held long enough to hold every slot while the second address asks.
    DRIVE_HEADER_TIMEOUT_MS: "30000",
  }, "raised");
  try {
    await t.step("trickled headers: the second address is served", async () => {
      const stop = new AbortController();
      const held = await flood(child.port, size, enc.encode("GET /healthz HTTP/1.1\r\nX-a: "));
      const trickling = trickle(held, "a", 1000, stop.signal);
      try {
        await delay(500);
        const statuses = [];
        for (let i = 0; i < 20; i++) statuses.push(await healthFrom("127.0.0.2", child.port));
        const open = held.filter((h) => h.closedAt === 0).length;
        console.log(
          `trickled headers: 127.0.0.1 holds ${open} of ${size} (503: ${countOf(held, 503)}); ` +
            `127.0.0.2: ${statuses.filter((s) => s === 200).length} of 20 answered 200`,
        );
        assert.deepEqual(statuses, Array(20).fill(200), `statuses of 127.0.0.2: ${statuses}`);
        assert.ok(open <= Math.ceil(cap / 4), `one address holds ${open} of ${cap} slots`);
        assert.equal(countOf(held, 503), size - open);
      } finally {
        stop.abort();
        await trickling;
        closeAll(held);
      }
    });

    await t.step("an upload without credentials, its body trickled: 401, then cut", async () => {
      // Let the server see the closes of the previous step.
      await delay(1000);
      const stop = new AbortController();
      const started = performance.now();
      const held = await flood(
        child.port,
        size,
        enc.encode(
          "POST /api/external/v1/files HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n" +
            "Content-Type: multipart/form-data; boundary=b\r\n\r\n-",
        ),
      );
      const trickling = trickle(held, "-", 1000, stop.signal);
      try {
        const statuses = [];
        for (let i = 0; i < 20; i++) statuses.push(await healthFrom("127.0.0.2", child.port));
        // Every connection is answered and closed within a bounded time, or the step fails.
        const deadline = performance.now() + 15_000;
        while (held.some((h) => h.closedAt === 0) && performance.now() < deadline) await delay(100);
        const answered = held.filter((h) => h.status === 401);
        const heldMs = answered.map((h) => (h.closedAt || performance.now()) - h.answeredAt)
          .sort((a, b) => a - b);
        const stillOpen = held.filter((h) => h.closedAt === 0).length;
        console.log(
          `early 401: ${answered.length} of ${size} answered 401 (503: ${countOf(held, 503)}) ` +
            `in ${Math.round(performance.now() - started)} ms; held after the 401: median ` +
            `${Math.round(heldMs[heldMs.length >> 1] ?? 0)} ms, max ${
              Math.round(heldMs.at(-1) ?? 0)
            } ms; still open after 15 s: ${stillOpen}; 127.0.0.2: ` +
            `${statuses.filter((s) => s === 200).length} of 20 answered 200`,
        );
        assert.deepEqual(statuses, Array(20).fill(200), `statuses of 127.0.0.2: ${statuses}`);
        assert.equal(stillOpen, 0, "401 connections still held while their bodies trickle");
        assert.ok(answered.length > 0);
        assert.equal(answered.length + countOf(held, 503), size);
      } finally {
        stop.abort();
        await trickling;
        closeAll(held);
      }
      assert.doesNotMatch(child.output(), /Uncaught/);
    });
  } finally {
    await child.stop();
  }
});
