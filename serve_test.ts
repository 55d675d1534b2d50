/**
 * serve.ts in-process: accept failures never end the server, request bodies arrive intact through
 * the watched stream (BYOB and default reads, sized and chunked), a stop lets requests in flight
 * finish, the cap follows the descriptor limit, cutting a connection that is closing anyway
 * cannot crash the process, and the plain Deno.serve fallback serves. The limits against hostile
 * clients over real sockets of a real process are in tests/runtime/connection_limits_test.ts;
 * the fence around the Deno internal is server/deno_http_test.ts.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { serve } from "./serve.ts";
import type { Handler } from "./server/deno_http.ts";
import { connectionCap } from "./server/limits.ts";
import { TEST_LIMITS as LIMITS, withLoopbackServe } from "./server/limits_fixtures.ts";

/** serve() on a loopback port for `fn`, given its URL and a stop that waits up to 2 s. */
const withServe = (
  handler: Handler,
  fn: (url: string, stop: () => Promise<void>) => Promise<void>,
  opts: { listener?: Deno.Listener<Deno.TcpConn, Deno.NetAddr>; log?: (m: string) => void } = {},
) =>
  withLoopbackServe(
    handler,
    LIMITS,
    (server, stop) => fn(`http://127.0.0.1:${server.addr.port}`, stop),
    { graceMs: 2000, ...opts },
  );

Deno.test("accept failures (EMFILE) are retried; the server keeps serving and logs the episode once", async () => {
  const real = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let failuresLeft = 5;
  // The first accepts fail as they do when the process is out of descriptors.
  const flaky = new Proxy(real, {
    get(target, prop) {
      if (prop === "accept") {
        return () => {
          if (failuresLeft-- > 0) {
            return Promise.reject(new Error("Too many open files (os error 24)"));
          }
          return target.accept();
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const logged: string[] = [];
  await withServe(() => new Response("ok"), async (url) => {
    const res = await fetch(`${url}/`);
    assert.equal(await res.text(), "ok");
  }, { listener: flaky, log: (m) => logged.push(m) });
  assert.equal(logged.filter((m) => m.startsWith("accept failed")).length, 1, logged.join("\n"));
  assert.ok(logged.some((m) => m.includes("accepting again after 5 failed accepts")));
});

Deno.test("request bodies pass through the watched stream intact: BYOB and default reads, sized and chunked", async () => {
  const payload = new Uint8Array(5 * 1024 * 1024 + 123);
  for (let off = 0; off < payload.length; off += 65_536) {
    crypto.getRandomValues(payload.subarray(off, Math.min(off + 65_536, payload.length)));
  }
  const expected = createHash("sha256").update(payload).digest("hex");
  const handler: Handler = async (req) => {
    const hash = createHash("sha256");
    let total = 0;
    if (new URL(req.url).searchParams.has("byob")) {
      // As the multipart reader does: one reused 1 MiB buffer.
      const reader = req.body!.getReader({ mode: "byob" });
      let buf = new Uint8Array(1024 * 1024);
      while (true) {
        const { done, value } = await reader.read(buf);
        if (done) break;
        hash.update(value);
        total += value.byteLength;
        buf = new Uint8Array(value.buffer);
      }
    } else {
      for await (const chunk of req.body!) {
        hash.update(chunk);
        total += chunk.byteLength;
      }
    }
    return Response.json({ total, sha: hash.digest("hex") });
  };
  await withServe(handler, async (url) => {
    for (const mode of ["byob", "default"]) {
      const sized = await fetch(`${url}/?${mode}`, { method: "POST", body: payload });
      assert.deepEqual(await sized.json(), { total: payload.length, sha: expected }, mode);
      const chunked = await fetch(`${url}/?${mode}`, {
        method: "POST",
        body: ReadableStream.from([payload.subarray(0, 1000), payload.subarray(1000)]),
      });
      assert.deepEqual(await chunked.json(), { total: payload.length, sha: expected }, mode);
    }
    const json = await fetch(`${url}/`, { method: "POST", body: '{"a":1}' });
    assert.equal((await json.json()).total, 7);
  });
});

Deno.test("a stop lets the request in flight finish, then finished resolves", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  let entered: () => void = () => {};
  const inHandler = new Promise<void>((r) => (entered = r));
  await withServe(async () => {
    entered();
    await gate;
    return new Response("done");
  }, async (url, stop) => {
    const pending = fetch(`${url}/`);
    await inHandler;
    const stopped = stop();
    setTimeout(release, 100);
    const res = await pending;
    assert.equal(await res.text(), "done");
    await stopped;
    await assert.rejects(fetch(`${url}/`), "no new connections after the stop");
  });
});

Deno.test("the connection cap fits the descriptor limit, keeping a quarter for files", () => {
  assert.equal(connectionCap(4096, null), 4096);
  assert.equal(connectionCap(4096, 1_048_576), 4096);
  assert.equal(connectionCap(4096, 1024), 768);
  assert.equal(connectionCap(4096, 256), 192);
  assert.equal(connectionCap(10, 256), 10);
  assert.equal(connectionCap(4096, 1), 1);
});

Deno.test("cutting a connection that has just ended on its own never crashes the process", async () => {
  // Deno throws BadResource from the cut when the connection's server is already gone, and
  // reports it as uncaught. With 5 ms limits the sweep and the stop keep cutting connections
  // that are closing on their own (each request says Connection: close).
  const limits = {
    ...LIMITS,
    headerTimeoutMs: 5,
    bodyIdleTimeoutMs: 5,
    keepAliveTimeoutMs: 5,
    maxConnections: 1000,
    maxConnectionsPerClient: 1000,
  };
  const request = new TextEncoder().encode(
    "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  );
  for (let round = 0; round < 30; round++) {
    const ac = new AbortController();
    const server = serve({ fetch: () => new Response("ok") }, limits, {
      hostname: "127.0.0.1",
      port: 0,
      signal: ac.signal,
      graceMs: 0,
      log: () => {},
    });
    await Promise.all(Array.from({ length: 50 }, async () => {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
        await conn.write(request);
        const buf = new Uint8Array(1024);
        while ((await conn.read(buf)) !== null) { /* until the server closes */ }
        conn.close();
      } catch { /* cut before or while answering: allowed */ }
    }));
    ac.abort();
    await server.finished;
  }
});

/** Sends raw bytes on a new connection and returns the status line of the answer. */
async function rawStatus(url: string, text: string): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) });
  try {
    await conn.write(new TextEncoder().encode(text));
    const buf = new Uint8Array(4096);
    const n = await conn.read(buf);
    return new TextDecoder().decode(buf.subarray(0, n ?? 0)).split("\r\n")[0];
  } finally {
    conn.close();
  }
}

Deno.test("the body watcher's request copy keeps what the client sent (found by the fuzzer)", async () => {
  const seen: string[] = [];
  const handler: Handler = async (req) => {
    seen.push(
      `${req.method} ${req.url.replace(/^http:\/\/[^/]+/, "")} ${(await req.text()).length}`,
    );
    return new Response("ok");
  };
  await withServe(handler, async (url) => {
    const close = "Host: x\r\nConnection: close\r\n";
    // A lower-case "get" is not GET: its body must not make the copy throw (it answered 500).
    assert.match(
      await rawStatus(url, `get /a HTTP/1.1\r\n${close}Content-Length: 2\r\n\r\n{}`),
      / 200 /,
    );
    // An empty chunked body is no chunk to hand on (it answered 500).
    assert.match(
      await rawStatus(
        url,
        `POST /b HTTP/1.1\r\n${close}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      ),
      / 200 /,
    );
    // The raw target reaches the app, dot segments included (the provider's JWT signs it).
    assert.match(
      await rawStatus(url, `POST /c/../d HTTP/1.1\r\n${close}Content-Length: 2\r\n\r\n{}`),
      / 200 /,
    );
  });
  assert.deepEqual(seen, ["get /a 2", "POST /b 0", "POST /c/../d 2"]);
});

Deno.test("without Deno's per-connection server, plain Deno.serve serves, says the limits are off, and stops", async () => {
  const logged: string[] = [];
  const ac = new AbortController();
  let listened: Deno.NetAddr | undefined;
  const server = serve(
    { fetch: (req) => new Response(`plain ${new URL(req.url).pathname}`) },
    LIMITS,
    {
      hostname: "127.0.0.1",
      port: 0,
      signal: ac.signal,
      log: (m) => logged.push(m),
      onListen: (addr) => (listened = addr),
      plainDenoServe: true,
    },
  );
  try {
    assert.equal(listened?.port, server.addr.port);
    assert.equal(server.maxConnections, Infinity);
    assert.ok(
      logged.some((m) => m.startsWith("WARNING: connection limits are off")),
      logged.join(),
    );
    const res = await fetch(`http://127.0.0.1:${server.addr.port}/x`);
    assert.equal(await res.text(), "plain /x");
  } finally {
    ac.abort();
    await server.finished;
  }
  await assert.rejects(fetch(`http://127.0.0.1:${server.addr.port}/`), "stopped by the signal");
});
