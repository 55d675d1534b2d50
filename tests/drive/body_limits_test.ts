/**
 * Every request body is bounded before it is read (issue 11, item 2). JSON bodies of the drive,
 * admin and public link APIs are capped at 64 KiB: a larger Content-Length is refused from the
 * header alone, and a chunked body is counted while it streams and cut at the limit. Uploads keep
 * their own limits. The oversize requests here stall after a few bytes, so a server that waits for
 * the body before answering fails the deadline instead of hanging the test.
 */
import assert from "node:assert/strict";
import { type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser, shareFlags } from "../helpers/api.ts";
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { concat, readJson } from "../helpers/http.ts";

const LIMIT = 64 * 1024;
/** Long enough for a slow CI machine, far shorter than a server reading 100 MB that never comes. */
const ANSWER_WITHIN_MS = 5_000;

interface StalledAnswer {
  status: number;
  text: string;
}

/**
 * Sends the request line, headers and `body` on a fresh connection, then stops sending without
 * closing, and reads the answer: null when none (complete headers and the body its Content-Length
 * announces) arrived within ANSWER_WITHIN_MS.
 */
async function stalledRequest(
  server: TestServer,
  method: string,
  path: string,
  headers: [string, string][],
  body: Uint8Array,
): Promise<StalledAnswer | null> {
  const { hostname, port } = new URL(server.url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const head = [`${method} ${path} HTTP/1.1`, `host: ${hostname}:${port}`];
  for (const [k, v] of headers) head.push(`${k}: ${v}`);
  const bytes = [new TextEncoder().encode(head.join("\r\n") + "\r\n\r\n"), body];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<null>((r) => (timer = setTimeout(() => r(null), ANSWER_WITHIN_MS)));
  const exchange = (async (): Promise<StalledAnswer | null> => {
    for (const b of bytes) {
      for (let off = 0; off < b.byteLength;) off += await conn.write(b.subarray(off));
    }
    let got = new Uint8Array(0);
    const buf = new Uint8Array(16 * 1024);
    for (;;) {
      const text = new TextDecoder().decode(got);
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
        if (got.byteLength >= end + 4 + length) {
          return {
            status: Number(text.split(" ")[1]),
            text: text.slice(end + 4, end + 4 + length),
          };
        }
      }
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return null;
      const next = new Uint8Array(got.byteLength + n);
      next.set(got);
      next.set(buf.subarray(0, n), got.byteLength);
      got = next;
    }
  })();
  try {
    return await Promise.race([exchange, deadline]);
  } finally {
    clearTimeout(timer);
    conn.close();
    await exchange.catch(() => {});
  }
}

/** `{"fn":"…","pad":"xxx…"}` of exactly `size` bytes. */
function paddedFolderBody(fn: string, size: number): Uint8Array<ArrayBuffer> {
  const shell = JSON.stringify({ fn, pad: "" });
  return new TextEncoder().encode(
    JSON.stringify({ fn, pad: "x".repeat(size - shell.length) }),
  ) as Uint8Array<ArrayBuffer>;
}

/** A chunked transfer coding of `bytes` in 16 KiB chunks, without the terminating chunk. */
function openChunks(bytes: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [];
  const enc = new TextEncoder();
  for (let off = 0; off < bytes.byteLength; off += 16 * 1024) {
    const piece = bytes.subarray(off, Math.min(off + 16 * 1024, bytes.byteLength));
    parts.push(enc.encode(`${piece.byteLength.toString(16)}\r\n`), piece, enc.encode("\r\n"));
  }
  return concat(parts);
}

/** A request body stream: `bytes` in 16 KiB pieces (fetch sends it chunked, no Content-Length). */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let off = 0;
  return new ReadableStream({
    pull(ctl) {
      if (off >= bytes.byteLength) return ctl.close();
      ctl.enqueue(bytes.slice(off, off + 16 * 1024));
      off += 16 * 1024;
    },
  });
}

/** POST /folders as `user`, framed by `framing` (length or chunked), stalled after `sent`. */
function stalledFolderCreate(
  server: TestServer,
  user: ApiUser,
  framing: [string, string],
  sent: Uint8Array,
) {
  return stalledRequest(server, "POST", "/api/external/v1/folders", [
    ["authorization", `Bearer ${user.apiKey}`],
    ["content-type", "application/json"],
    framing,
  ], sent);
}

function assertTooLarge(answer: StalledAnswer | null, where: string) {
  assert.ok(
    answer,
    `${where}: no answer within ${ANSWER_WITHIN_MS} ms (the server waited for the body)`,
  );
  assert.equal(answer.status, 413, `${where}: ${answer.status} ${answer.text.slice(0, 200)}`);
  assert.match(answer.text, /REQUEST_002/, `${where}: ${answer.text}`);
  assert.match(answer.text, /65536/, `${where}: the message names the limit: ${answer.text}`);
}

/** Bodies that stall after their start: each is refused before it is read to the end. */
const STALLED_BODIES: {
  name: string;
  framing: [string, string];
  start: () => Uint8Array;
  where: string;
}[] = [
  {
    name: "a 100 MB JSON body is refused from Content-Length without being read",
    framing: ["content-length", String(100 * 1024 * 1024)],
    start: () => new TextEncoder().encode('{"fn":"big","pad":"'),
    where: "POST /folders, Content-Length 100 MB",
  },
  {
    name: "a chunked JSON body is cut as soon as it passes 64 KiB",
    framing: ["transfer-encoding", "chunked"],
    start: () => openChunks(paddedFolderBody("big", LIMIT + 1)),
    where: "POST /folders, chunked, never finished",
  },
];

for (const c of STALLED_BODIES) {
  Deno.test(`drive API: ${c.name}`, async () => {
    await withServer(async (server) => {
      const alice = await newApiUser(server, "alice");
      const answer = await stalledFolderCreate(server, alice, c.framing, c.start());
      assertTooLarge(answer, c.where);
      // Nothing was created.
      const list = await alice.call("GET", "/resources");
      assert.equal(list.status, 200);
      assert.deepEqual(list.body.data.items, []);
    });
  });
}

Deno.test("drive API: a JSON body of exactly 64 KiB passes, one byte more is 413", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const send = (body: Uint8Array<ArrayBuffer>, chunked: boolean) =>
      alice.fetch("/folders", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: chunked ? streamOf(body) : body,
        ...(chunked ? { duplex: "half" } : {}),
      }).then(readJson);
    for (const chunked of [false, true]) {
      const how = chunked ? "chunked" : "Content-Length";
      const fits = await send(paddedFolderBody(`fits-${how}`, LIMIT), chunked);
      assert.equal(fits.status, 201, `${how}: ${JSON.stringify(fits.body).slice(0, 200)}`);
      const over = await send(paddedFolderBody(`over-${how}`, LIMIT + 1), chunked);
      assert.equal(over.status, 413, `${how}: ${JSON.stringify(over.body).slice(0, 200)}`);
      assert.equal(over.body.errorCode, "REQUEST_002");
      assert.match(over.body.message, /65536/);
    }
  });
});

Deno.test("drive API: every documented JSON body is capped the same way", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await alice.newFolder("f");
    const doc = await (await fetch(`${server.url}/api/external/v1/openapi.json`)).json();
    let checked = 0;
    type Op = { requestBody?: { content?: Record<string, unknown> } };
    for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, Op>>)) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.requestBody?.content?.["application/json"]) continue;
        const target = `/api/external/v1${path.replace(/\{[^}]+\}/g, String(rs))}`;
        const answer = await stalledRequest(server, method.toUpperCase(), target, [
          ["authorization", `Bearer ${alice.apiKey}`],
          ["content-type", "application/json"],
          ["content-length", String(100 * 1024 * 1024)],
        ], new TextEncoder().encode("{"));
        assertTooLarge(answer, `${method.toUpperCase()} ${path}`);
        checked++;
      }
    }
    assert.ok(checked >= 10, `checked ${checked} operations`);
  });
});

Deno.test("admin and public link APIs: the same cap, chunked bodies cut at the limit", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await alice.newFolder("f");
    const share = await alice.newShare({
      rs,
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
      password: "secret-1",
    });
    const token = new URL(share.linkUrl).pathname.split("/").pop();
    const targets: [string, [string, string][]][] = [
      ["/admin/api/tenants", [["authorization", `Bearer ${ADMIN_TOKEN}`]]],
      ["/admin/api/blobs/sweep", [["authorization", `Bearer ${ADMIN_TOKEN}`]]],
      [`/public/v1/links/${token}/access`, []],
    ];
    for (const [path, auth] of targets) {
      const json = [...auth, ["content-type", "application/json"]] as [string, string][];
      const declared = await stalledRequest(
        server,
        "POST",
        path,
        [...json, ["content-length", String(100 * 1024 * 1024)]],
        new TextEncoder().encode('{"name":"'),
      );
      assertTooLarge(declared, `POST ${path}, Content-Length 100 MB`);
      const chunked = await stalledRequest(
        server,
        "POST",
        path,
        [...json, ["transfer-encoding", "chunked"]],
        openChunks(new TextEncoder().encode(`{"name":"${"x".repeat(LIMIT)}`)),
      );
      assertTooLarge(chunked, `POST ${path}, chunked, never finished`);
    }
  });
});

Deno.test("uploads keep their own limits: files and editor saves larger than 64 KiB still work", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const big = new Uint8Array(300 * 1024).map((_, i) => i % 251);
    const rs = await alice.newFile("big.bin", big);
    const version = await alice.upload("big.bin", big, { st: "version", rs });
    assert.equal(version.status, 201, JSON.stringify(version.body));
  });
});
