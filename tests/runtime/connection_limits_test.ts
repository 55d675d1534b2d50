/**
 * Connection limits against hostile clients (issue 11, item 1): main.ts as its own process with a
 * lowered descriptor limit and sub-second timeouts, attacked over raw TCP. Stalled headers, a
 * stalled body and an idle keep-alive connection must each be cut after their limit, the
 * connection cap must refuse the connection over it, and a flood of stalled connections larger
 * than the descriptor limit must leave a process that still answers /healthz.
 */
import assert from "node:assert/strict";
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { startLimitedMain } from "../helpers/limited_main.ts";

const enc = new TextEncoder();
const STALLED_HEADERS = enc.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n");

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Reads from `conn` until the server closes it or `ms` pass. Returns what arrived and whether
 * the server closed the connection (end of stream or reset) within the time.
 */
async function readUntilClosed(
  conn: Deno.Conn,
  ms: number,
): Promise<{ closed: boolean; text: string; afterMs: number }> {
  const started = performance.now();
  const buf = new Uint8Array(4096);
  let text = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), ms));
  try {
    while (true) {
      let n: number | null | "timeout";
      try {
        n = await Promise.race([conn.read(buf), timeout]);
      } catch {
        n = null; // reset by the server counts as closed
      }
      if (n === "timeout") return { closed: false, text, afterMs: performance.now() - started };
      if (n === null) return { closed: true, text, afterMs: performance.now() - started };
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  } finally {
    clearTimeout(timer);
  }
}

async function connect(port: number): Promise<Deno.Conn> {
  return await Deno.connect({ hostname: "127.0.0.1", port });
}

function closeQuietly(conn: Deno.Conn) {
  try {
    conn.close();
  } catch { /* already closed */ }
}

/** GET /healthz until it answers 200 or `ms` pass; true when it answered. */
async function healthy(port: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`, {
        signal: AbortSignal.timeout(1000),
      });
      const body = await res.text();
      if (res.status === 200 && body.includes("ok")) return true;
    } catch { /* refused, reset or timed out: try again */ }
    await delay(100);
  }
  return false;
}

const SHORT = "400"; // ms: every timeout in the children, so the tests stay fast

Deno.test("connection limits: stalled headers, a stalled body and idle keep-alive are cut; a flood past the descriptor limit leaves the process serving", async (t) => {
  const child = await startLimitedMain({
    DRIVE_HEADER_TIMEOUT_MS: SHORT,
    DRIVE_BODY_IDLE_TIMEOUT_MS: SHORT,
    DRIVE_KEEPALIVE_TIMEOUT_MS: SHORT,
    // The put below is answered 401 before its body arrives, then lingers for the rest of it.
    DRIVE_LINGER_MS: SHORT,
  }, 256);
  try {
    await t.step("headers that never complete are cut after the header deadline", async () => {
      const conn = await connect(child.port);
      try {
        await conn.write(STALLED_HEADERS);
        const r = await readUntilClosed(conn, 5000);
        assert.ok(r.closed, "the stalled connection is still open after 5 s");
        assert.ok(r.afterMs >= 300, `closed after ${r.afterMs} ms, before the deadline`);
      } finally {
        closeQuietly(conn);
      }
    });

    await t.step("a body that stops arriving is cut after the body-idle timeout", async () => {
      const conn = await connect(child.port);
      try {
        await conn.write(enc.encode(
          "POST /admin/api/tenants HTTP/1.1\r\nHost: x\r\n" +
            `Authorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\n` +
            'Content-Length: 10\r\n\r\n{"n',
        ));
        const r = await readUntilClosed(conn, 5000);
        assert.ok(r.closed, `the stalled body still holds its connection after 5 s: ${r.text}`);
      } finally {
        closeQuietly(conn);
      }
    });

    await t.step(
      "a provider put that declares 10 bytes and sends 3 does not wait forever",
      async () => {
        const conn = await connect(child.port);
        try {
          await conn.write(enc.encode(
            "PUT /doc-storage/v1/x.bin/put HTTP/1.1\r\nHost: x\r\n" +
              "Content-Type: application/octet-stream\r\nX-DOC-Storage-Adapter: nope\r\n" +
              "X-DOC-Storage-Request-JWT: a.b.c\r\nContent-Length: 10\r\n\r\nabc",
          ));
          const r = await readUntilClosed(conn, 5000);
          assert.ok(r.closed, `the stalled put still holds its connection after 5 s: ${r.text}`);
        } finally {
          closeQuietly(conn);
        }
      },
    );

    await t.step("an idle keep-alive connection is closed after its timeout", async () => {
      const conn = await connect(child.port);
      try {
        await conn.write(enc.encode("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
        const buf = new Uint8Array(4096);
        const n = await conn.read(buf);
        assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 200/);
        const r = await readUntilClosed(conn, 5000);
        assert.ok(r.closed, "the idle keep-alive connection is still open after 5 s");
        assert.equal(r.text, "");
      } finally {
        closeQuietly(conn);
      }
    });

    await t.step(
      "400 stalled connections under `ulimit -n 256`: the process survives and answers /healthz",
      async () => {
        const flood: Deno.Conn[] = [];
        try {
          for (let i = 0; i < 400; i++) {
            try {
              const conn = await connect(child.port);
              flood.push(conn);
              await conn.write(STALLED_HEADERS).catch(() => 0);
            } catch { /* refused: the server is shedding load, which is allowed */ }
          }
          assert.ok(await healthy(child.port, 10_000), `no /healthz answer:\n${child.output()}`);
          assert.ok(child.alive(), `the process exited:\n${child.output()}`);
        } finally {
          flood.forEach(closeQuietly);
        }
        // And once the flood is gone it keeps serving.
        assert.ok(await healthy(child.port, 5000), `no /healthz answer:\n${child.output()}`);
        assert.ok(child.alive(), `the process exited:\n${child.output()}`);
        assert.doesNotMatch(child.output(), /Uncaught/);
      },
    );
  } finally {
    await child.stop();
  }
});

Deno.test("connection limits: the connection over the cap is refused at once, and a freed slot serves again", async () => {
  // The header deadline stays long here, so a quick close can only be the cap's doing.
  const child = await startLimitedMain({ DRIVE_MAX_CONNECTIONS: "4" }, 256);
  const held: Deno.Conn[] = [];
  try {
    for (let i = 0; i < 4; i++) {
      const conn = await connect(child.port);
      await conn.write(STALLED_HEADERS);
      held.push(conn);
    }
    await delay(200); // let the server accept all four
    const extra = await connect(child.port);
    try {
      await extra.write(STALLED_HEADERS).catch(() => 0);
      const r = await readUntilClosed(extra, 3000);
      assert.ok(r.closed, "connection 5 of a cap of 4 was not refused");
      if (r.text !== "") assert.match(r.text, /^HTTP\/1\.1 503/);
    } finally {
      closeQuietly(extra);
    }
    // The held ones are still being served (not cut by the cap).
    const first = held.shift()!;
    await first.write(enc.encode("\r\n"));
    const buf = new Uint8Array(4096);
    const n = await first.read(buf);
    assert.match(new TextDecoder().decode(buf.subarray(0, n ?? 0)), /^HTTP\/1\.1 200/);
    closeQuietly(first);
    assert.ok(await healthy(child.port, 5000), `no /healthz answer:\n${child.output()}`);
    // The refusal is counted where operators look.
    held.forEach(closeQuietly);
    await delay(200);
    const metrics = await (await fetch(`http://127.0.0.1:${child.port}/metrics`)).text();
    // One client here: the cap it meets first may be its own share (per_client) or the total.
    const refused = [
      ...metrics.matchAll(/^drive_connections_refused_total\{reason="\w+"\} (\d+)/gm),
    ]
      .reduce((sum, m) => sum + Number(m[1]), 0);
    assert.ok(refused >= 1, `no refusal counted:\n${metrics}`);
    assert.match(metrics, /^drive_connections_cut_total\{reason="linger"\} \d+/m);
  } finally {
    held.forEach(closeQuietly);
    await child.stop();
  }
});
