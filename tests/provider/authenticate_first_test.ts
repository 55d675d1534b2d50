/**
 * The provider authenticates before it stores (issue 11, item 3): a put (or JSON request) that
 * is unauthenticated, badly signed, signed for another request or replayed is answered 401 from
 * its headers alone, while its body is still on the wire, and nothing reaches the blob store.
 * The body is checked against the signed hash only after it is read; a mismatch is 401, leaves
 * no temporary data and keeps the jti used.
 *
 * The stalled requests send their headers and a few body bytes, then keep the connection open
 * without sending the rest: a server that reads the body before deciding never answers them.
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { blobPendingKey } from "../../kv/keys.ts";
import { findChildByName } from "../../kv/tree/resources.ts";
import { signJwt } from "../../provider/jwt.ts";
import { UNAUTHORIZED_TEXT } from "../../provider/responses.ts";
import { forEachBlobStore, fsBlobFiles, type TestServer } from "../helpers/server.ts";
import {
  newProviderAdapter,
  PROVIDER_JWT_HEADER,
  providerClaims,
  providerRawRequest,
} from "../helpers/provider.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const MB300 = 314_572_800;
/** Generous: a server that decided from the headers answers within milliseconds. */
const ANSWER_WITHIN_MS = 5000;

/** Temporary writes in progress and complete blobs, in either blob store. */
async function stored(server: TestServer): Promise<{ temp: number; blobs: number }> {
  let blobs = 0;
  for await (const _ of server.blobs.list()) blobs++;
  if (server.blobs.kind === "fs") return { temp: (await fsBlobFiles(server)).temp.length, blobs };
  let temp = 0;
  for await (const _ of server.kv.list({ prefix: blobPendingKey() })) temp++;
  return { temp, blobs };
}

interface Answer {
  status: number;
  text: string;
}

interface Stalled {
  /** null: no answer within ANSWER_WITHIN_MS (the server is waiting for the body). */
  answer: Promise<Answer | null>;
  /** Sends more of the body. */
  send(bytes: Uint8Array): Promise<void>;
  close(): void;
}

/**
 * Sends the request line, headers and `sent` body bytes, then stalls with the connection open;
 * `answer` is the response, or null when none came within the deadline. The caller closes the
 * connection (after looking at the storage).
 */
async function openStalled(
  server: TestServer,
  req: { method: string; target: string; headers: [string, string][]; sent: Uint8Array },
): Promise<Stalled> {
  const { hostname, port } = new URL(server.url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const close = () => {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  const send = async (bytes: Uint8Array) => {
    for (let off = 0; off < bytes.byteLength;) off += await conn.write(bytes.subarray(off));
  };
  const head = [`${req.method} ${req.target} HTTP/1.1`, `host: ${hostname}:${port}`];
  for (const [k, v] of req.headers) head.push(`${k}: ${v}`);
  await send(enc(head.join("\r\n") + "\r\n\r\n"));
  await send(req.sent);
  // Reads until the headers and Content-Length bytes of body are in (the server may keep the
  // connection open afterwards, waiting for the rest of the request body).
  const read = (async () => {
    let text = "";
    const buf = new Uint8Array(16 * 1024);
    const latin1 = new TextDecoder("latin1");
    while (true) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) return text === "" ? null : text;
      text += latin1.decode(buf.subarray(0, n));
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) continue;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
      if (text.length - end - 4 >= length) return text;
    }
  })();
  const deadline = new Promise<null>((r) => (timer = setTimeout(() => r(null), ANSWER_WITHIN_MS)));
  const answer = Promise.race([read, deadline]).then((text) => {
    clearTimeout(timer);
    if (text === null) {
      close(); // unblocks the pending read; the connection is of no further use
      return null;
    }
    const end = text.indexOf("\r\n\r\n");
    const status = Number(text.slice(0, text.indexOf("\r\n")).split(" ")[1]);
    return { status, text: new TextDecoder().decode(enc(text.slice(end + 4))) };
  });
  return { answer, send, close };
}

/** A JWT `ad` signs for a put to `target` of `length` bytes whose SHA-256 is `sha` (hex). */
function putJwt(ad: { name: string; secret: string }, target: string, length: number, sha: string) {
  const claims = providerClaims(ad.name, {
    method: "PUT",
    path: target,
    contentType: "application/octet-stream",
    length,
    sha256: sha,
  });
  return signJwt(PROVIDER_JWT_HEADER, claims, ad.secret);
}

/** Headers of a put declaring `length` bytes, with the given adapter header and JWT. */
function putHeaders(adapter: string, jwt: string, length: number): [string, string][] {
  return [
    ["x-doc-storage-adapter", adapter],
    ["x-doc-storage-request-jwt", jwt],
    ["content-type", "application/octet-stream"],
    ["content-length", String(length)],
  ];
}

/** Sends every request stalled, asserts each is a prompt 401 with nothing stored meanwhile. */
async function assertRefusedUnread(
  server: TestServer,
  what: string,
  reqs: { method: string; target: string; headers: [string, string][]; sent: Uint8Array }[],
) {
  const before = await stored(server);
  const stalled = await Promise.all(reqs.map((r) => openStalled(server, r)));
  try {
    for (const a of await Promise.all(stalled.map((s) => s.answer))) {
      assert.equal(a?.status, 401, `${what}: answered 401 while the body is still unsent`);
      assert.equal(a.text, UNAUTHORIZED_TEXT, what);
    }
    // Looked at while the connections are still open: nothing was written for them.
    assert.deepEqual(await stored(server), before, `${what}: nothing stored`);
  } finally {
    for (const s of stalled) s.close();
  }
}

forEachBlobStore(
  "An unauthenticated put (unknown adapter, JWT a.b.c) is 401 before its body is read; four parallel 300 MB puts write nothing",
  async (server) => {
    const put = {
      method: "PUT",
      target: "/doc-storage/v1/x.bin/put",
      headers: putHeaders("nope", "a.b.c", MB300),
      sent: new Uint8Array(64 * 1024).fill(1),
    };
    await assertRefusedUnread(server, "unknown adapter", [put, put, put, put]);
    // A registered adapter without a JWT, or with a garbage one, is the same.
    const ad = await newProviderAdapter(server, "unauth");
    await assertRefusedUnread(server, "garbage JWT", [
      { ...put, headers: putHeaders(ad.name, "a.b.c", MB300) },
      { ...put, headers: putHeaders(ad.name, "", MB300).filter(([k]) => !k.endsWith("jwt")) },
    ]);
  },
);

forEachBlobStore(
  "A badly signed put, or one signed for another request, is 401 before its body is read",
  async (server) => {
    const ad = await newProviderAdapter(server, "badsig");
    const target = "/doc-storage/v1/doc.bin/put";
    const signed = (edit: (c: any) => void = () => {}, secret = ad.secret) => {
      const c = providerClaims(ad.name, {
        method: "PUT",
        path: target,
        contentType: "application/octet-stream",
        length: MB300,
        sha256: "0".repeat(64),
      });
      edit(c);
      return signJwt(PROVIDER_JWT_HEADER, c, secret);
    };
    const put = (jwt: string) => ({
      method: "PUT",
      target,
      headers: putHeaders(ad.name, jwt, MB300),
      sent: new Uint8Array(64 * 1024).fill(2),
    });
    await assertRefusedUnread(server, "signature", [
      put(signed(undefined, "w".repeat(40))),
      put(signed().slice(0, -2) + "AA"),
    ]);
    await assertRefusedUnread(server, "claims and signed fields", [
      put(signed((c) => (c.exp = c.iat - 1))),
      put(signed((c) => (c.request.path = "/doc-storage/v1/other.bin/put"))),
      put(signed((c) => (c.request.method = "POST"))),
      put(signed((c) => (c.request.content_length = 10))),
      put(signed((c) => delete c.request.content_type)),
      put(signed((c) => (c.request.adapter = "other"))),
    ]);
    assert.equal(await findChildByName(server.kv, ad.userSeq, null, "doc.bin"), null);
  },
);

forEachBlobStore(
  "A replayed put is 401 before its body is read, also when copies race in parallel",
  async (server) => {
    const ad = await newProviderAdapter(server, "replayput");
    const target = "/doc-storage/v1/doc.bin/put";
    const body = new Uint8Array(1024 * 1024).fill(3);
    const jwtFor = (bytes: Uint8Array) => putJwt(ad, target, bytes.byteLength, sha256(bytes));
    const used = jwtFor(body);
    const first = await providerRawRequest(server.url, ad, {
      method: "PUT",
      target,
      contentType: "application/octet-stream",
      body,
      jwt: used,
    });
    assert.equal(first!.status, 200);
    const stalled = (jwt: string) => ({
      method: "PUT",
      target,
      headers: putHeaders(ad.name, jwt, body.byteLength),
      sent: body.subarray(0, 1024),
    });
    await assertRefusedUnread(server, "replay", [stalled(used), stalled(used)]);

    // Four copies of one fresh JWT at once: the jti is recorded before any body is read, so
    // exactly one goes on to read its body and the other three are refused unread.
    const fresh = jwtFor(body);
    const before = await stored(server);
    const copies = await Promise.all([1, 2, 3, 4].map(() => openStalled(server, stalled(fresh))));
    try {
      const statuses: (number | null | undefined)[] = [undefined, undefined, undefined, undefined];
      await new Promise<void>((resolve) => {
        let answered = 0;
        copies.forEach((c, i) =>
          c.answer.then((a) => {
            statuses[i] = a?.status ?? null;
            if (++answered === 3) resolve();
          })
        );
      });
      assert.equal(statuses.filter((s) => s === 401).length, 3, JSON.stringify(statuses));
      const reading = statuses.indexOf(undefined);
      assert.ok(reading >= 0, `one copy is still reading its body: ${JSON.stringify(statuses)}`);
      const during = await stored(server);
      assert.equal(during.blobs, before.blobs);
      assert.ok(during.temp <= before.temp + 1, `at most one write in progress: ${during.temp}`);
      // That one is the request the JWT signs: given the rest of its body, it is stored.
      await copies[reading].send(body.subarray(1024));
      assert.equal((await copies[reading].answer)?.status, 200);
    } finally {
      for (const c of copies) c.close();
    }
  },
);

forEachBlobStore(
  "A put whose body does not match the signed hash is 401, leaves no temporary data, and its jti stays used",
  async (server) => {
    const ad = await newProviderAdapter(server, "mismatch");
    const target = "/doc-storage/v1/doc.bin/put";
    const signedBody = new Uint8Array(2 * 1024 * 1024).fill(4);
    const sentBody = new Uint8Array(2 * 1024 * 1024).fill(5);
    const jwt = putJwt(ad, target, signedBody.byteLength, sha256(signedBody));
    const send = (body: Uint8Array) =>
      providerRawRequest(server.url, ad, {
        method: "PUT",
        target,
        contentType: "application/octet-stream",
        body,
        jwt,
      });
    const before = await stored(server);
    const wrong = await send(sentBody);
    assert.equal(wrong!.status, 401);
    assert.equal(new TextDecoder().decode(wrong!.body), UNAUTHORIZED_TEXT);
    assert.deepEqual(await stored(server), before, "the temporary data is gone");
    assert.equal(await findChildByName(server.kv, ad.userSeq, null, "doc.bin"), null);
    // The jti was recorded before the body was read: the same JWT with the bytes it signs is
    // a replay now (the spec: a retry is signed with a fresh jti).
    const replay = await send(signedBody);
    assert.equal(replay!.status, 401);
    assert.deepEqual(await stored(server), before);
    assert.equal(await findChildByName(server.kv, ad.userSeq, null, "doc.bin"), null);
    // A fresh JWT for the right bytes is stored.
    assert.equal((await ad.client.put(["doc.bin"], signedBody)).ok, true);
  },
);

forEachBlobStore(
  "JSON operations: an unauthenticated or replayed lock/unlock/mkdir/rename is 401 before its body is read",
  async (server) => {
    const ad = await newProviderAdapter(server, "jsonfirst");
    assert.equal((await ad.client.put(["a.txt"], enc("a"))).ok, true);
    const json = (op: string, target: string, jwt: string, adapter = ad.name) => ({
      method: "POST",
      target,
      headers: [
        ["x-doc-storage-adapter", adapter],
        ["x-doc-storage-request-jwt", jwt],
        ["content-type", "application/json"],
        ["content-length", "16384"],
      ] as [string, string][],
      sent: enc(op === "lock" || op === "unlock" ? '{"owner":"' : '{"name":"'),
    });
    await assertRefusedUnread(server, "unauthenticated JSON", [
      json("lock", "/doc-storage/v1/a.txt/lock", "a.b.c", "nope"),
      json("unlock", "/doc-storage/v1/a.txt/unlock", "a.b.c"),
      json("mkdir", "/doc-storage/v1/mkdir", "a.b.c"),
      json("rename", "/doc-storage/v1/a.txt/rename", "a.b.c"),
    ]);
    // A used JWT of a mkdir, sent again with its body stalled.
    const body = enc('{"name":"made"}');
    const claims = providerClaims(ad.name, {
      method: "POST",
      path: "/doc-storage/v1/mkdir",
      contentType: "application/json",
      length: body.byteLength,
      sha256: sha256(body),
    });
    const jwt = signJwt(PROVIDER_JWT_HEADER, claims, ad.secret);
    const first = await providerRawRequest(server.url, ad, {
      method: "POST",
      target: "/doc-storage/v1/mkdir",
      contentType: "application/json",
      body,
      jwt,
    });
    assert.equal(first!.status, 204);
    const replay = json("mkdir", "/doc-storage/v1/mkdir", jwt);
    replay.headers[3] = ["content-length", String(body.byteLength)];
    await assertRefusedUnread(server, "replayed JSON", [replay]);
  },
);

forEachBlobStore(
  "Provider error messages name the protocol's terms: the body's name field, the path segment",
  async (server) => {
    const ad = await newProviderAdapter(server, "messages");
    const text = (r: { body: Uint8Array } | null) => new TextDecoder().decode(r!.body);
    /** A 400 whose message matches `names` and not `not` (the wire's short field names). */
    const refused = async (
      method: string,
      target: string,
      body: string,
      names: RegExp,
      not: RegExp,
    ) => {
      const contentType = method === "PUT" ? "application/octet-stream" : "application/json";
      const r = await providerRawRequest(server.url, ad, {
        method,
        target: `/doc-storage/v1/${target}`,
        contentType,
        body: enc(body),
      });
      assert.equal(r!.status, 400, `${target} ${body}`);
      assert.match(text(r), names, text(r));
      assert.doesNotMatch(text(r), not, text(r));
    };
    for (const name of [" ", "\u3000"]) {
      await refused("POST", "mkdir", JSON.stringify({ name }), /\bname\b/, /\bfn\b/);
    }
    await refused("POST", "x/rename", '{"name":"  "}', /\bname\b/, /\brn\b/);
    // put names the document by its last path segment; there is no name field to blame.
    await refused("PUT", "%20/put", "x", /path segment/, /^name\b|\bfn\b/);
  },
);

forEachBlobStore(
  "A put that the adapter refuses (put not offered: 501; read-only: 403) has its body verified but never written",
  async (server) => {
    const body = new Uint8Array(2 * 1024 * 1024).fill(6);
    const cases: [string, { operations?: string[]; readOnly?: boolean }, number][] = [
      ["noput", { operations: ["list"] }, 501],
      ["readonly", { readOnly: true }, 403],
    ];
    for (const [name, opts, status] of cases) {
      const ad = await newProviderAdapter(server, name, opts);
      const target = "/doc-storage/v1/doc.bin/put";
      const jwtFor = (sha: string) => putJwt(ad, target, body.byteLength, sha);
      const before = await stored(server);
      const half = await openStalled(server, {
        method: "PUT",
        target,
        headers: putHeaders(ad.name, jwtFor(sha256(body)), body.byteLength),
        sent: body.subarray(0, body.byteLength / 2),
      });
      try {
        // Authenticated, so the server reads the body: give it time to start writing one.
        await new Promise((r) => setTimeout(r, 300));
        assert.deepEqual(await stored(server), before, `${name}: nothing written while reading`);
        await half.send(body.subarray(body.byteLength / 2));
        assert.equal((await half.answer)?.status, status, name);
      } finally {
        half.close();
      }
      assert.deepEqual(await stored(server), before, name);
      // The body is verified before the refusal: a mismatch is 401, never the 501 or 403.
      const forged = await providerRawRequest(server.url, ad, {
        method: "PUT",
        target,
        contentType: "application/octet-stream",
        body,
        jwt: jwtFor("0".repeat(64)),
      });
      assert.equal(forged!.status, 401, name);
    }
  },
);
