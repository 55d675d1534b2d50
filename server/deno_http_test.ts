/**
 * The fence around the Deno internal (server/deno_http.ts): on the pinned Deno the per-connection
 * server is there and behaves as the adapter needs. When a Deno upgrade fails one of these, read
 * "Upgrading Deno" in docs/operations.md.
 */
import assert from "node:assert/strict";
import { type ConnectionServer, connectionServer, requestWithBody } from "./deno_http.ts";

const onError = () => new Response("error", { status: 500 });

/** One connection served by the adapter, and the client's end of it. */
async function oneConnection(
  handler = () => new Response("ok"),
): Promise<{ server: ConnectionServer; client: Deno.TcpConn }> {
  const serveConnection = connectionServer();
  assert.ok(serveConnection, "Deno[Deno.internal].serveHttpOnConnection is gone");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const [client, conn] = await Promise.all([
      Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port }),
      listener.accept(),
    ]);
    return { server: serveConnection(conn, handler, onError), client };
  } finally {
    listener.close();
  }
}

async function exchange(client: Deno.TcpConn, request: string): Promise<string> {
  await client.write(new TextEncoder().encode(request));
  const buf = new Uint8Array(4096);
  const n = await client.read(buf);
  return new TextDecoder().decode(buf.subarray(0, n ?? 0));
}

Deno.test("Deno's per-connection server is there: Deno[Deno.internal].serveHttpOnConnection(conn, signal, handler, onError, onListen)", () => {
  const deno = Deno as unknown as { internal: symbol } & Record<symbol, Record<string, unknown>>;
  const fn = deno[deno.internal]?.serveHttpOnConnection;
  assert.equal(typeof fn, "function", "the internal is gone: see docs/operations.md");
  assert.equal((fn as (...args: unknown[]) => unknown).length, 5, "its arguments changed");
  assert.ok(connectionServer());
});

Deno.test("the adapter serves a connection, and cancel cuts it at once", async () => {
  const { server, client } = await oneConnection();
  try {
    const answer = await exchange(client, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /\r\n\r\nok$/);
    // The connection is kept alive; a cancel must close it without an answer.
    server.cancel();
    const rest = await client.read(new Uint8Array(16)).catch(() => null);
    assert.equal(rest, null, "the connection is still open after cancel");
    await server.finished.catch(() => {});
  } finally {
    client.close();
  }
});

Deno.test("a cancel after the connection ended on its own neither throws nor is reported as uncaught", async () => {
  // Deno's abort listener throws BadResource once the connection's resource is closed; the
  // adapter keeps that listener and calls it itself so that the error is caught, not reported.
  const { server, client } = await oneConnection();
  try {
    const answer = await exchange(client, "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    assert.match(answer, / 200 /);
    await server.finished.catch(() => {});
    server.cancel();
    server.cancel();
  } finally {
    client.close();
  }
});

Deno.test("requestWithBody keeps the raw request target and the method, with the new body", async () => {
  const original = new Request("http://x/c/../d", { method: "PATCH", body: "old" });
  Object.defineProperty(original, "url", { value: "http://x/c/../d" });
  const copy = requestWithBody(
    original,
    ReadableStream.from([new TextEncoder().encode("new")]),
    new AbortController().signal,
  );
  assert.equal(copy.url, "http://x/c/../d");
  assert.equal(copy.method, "PATCH");
  assert.equal(await copy.text(), "new");
});
