/**
 * Storage provider protocol conformance, transport side: URL shape, verification order,
 * authentication (every claim and signed field), replay across instances, framing on the wire
 * and the limits table. Each test names the spec section or row it checks.
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { findChildByName } from "../../kv/tree/resources.ts";
import { UNAUTHORIZED_TEXT } from "../../provider/responses.ts";
import { type TestServer, withServer, withTwoServersOnOneKv } from "../helpers/server.ts";
import {
  jsonBody,
  newProviderAdapter,
  octetBody,
  providerRawRequest,
} from "../helpers/provider.ts";
import { rawHttp, type RawHttpResponse } from "../helpers/http.ts";

const text = (r: RawHttpResponse | null) => new TextDecoder().decode(r!.body);
const header = (r: RawHttpResponse, name: string) =>
  r.headers.filter(([k]) => k === name).map(([, v]) => v);
const enc = (s: string) => new TextEncoder().encode(s);

async function folderExists(server: TestServer, userSeq: number, name: string) {
  return (await findChildByName(server.kv, userSeq, null, name)) !== null;
}

Deno.test("URL shape rule 3: '.', '..', slashes, backslashes, control characters, invalid UTF-8 and empty segments are 400, even when signed", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "shape");
    const targets = [
      "/doc-storage/v1/../info",
      "/doc-storage/v1/a/../info",
      "/doc-storage/v1/./info",
      "/doc-storage/v1/%2e%2e/info",
      "/doc-storage/v1/%2E/info",
      "/doc-storage/v1/a%2Fb/info",
      "/doc-storage/v1/a%5Cb/info",
      "/doc-storage/v1/a\\b/info",
      "/doc-storage/v1/a%00b/info",
      "/doc-storage/v1/a%1Fb/info",
      "/doc-storage/v1/a%7Fb/info",
      "/doc-storage/v1/%C3%28/info",
      "/doc-storage/v1/%FF/info",
      "/doc-storage/v1/%ZZ/info",
      "/doc-storage/v1//info",
      "/doc-storage/v1/a//info",
      "/doc-storage/v1/a/%/info",
    ];
    for (const target of targets) {
      const r = await providerRawRequest(server.url, ad, { method: "GET", target });
      assert.equal(r!.status, 400, target);
      assert.match(header(r!, "content-type")[0], /^text\/plain; charset=utf-8$/);
    }
    // mkdir under an attacking path creates nothing.
    const r = await providerRawRequest(server.url, ad, {
      method: "POST",
      target: "/doc-storage/v1/../mkdir",
      ...jsonBody('{"name":"escaped"}'),
    });
    assert.equal(r!.status, 400);
    assert.equal(await folderExists(server, ad.userSeq, "escaped"), false);
  });
});

Deno.test("URL shape rule 4: any query string (even a bare '?') is 400; unknown operation 404; wrong method 405", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "query");
    for (
      const target of [
        "/doc-storage/v1/info?",
        "/doc-storage/v1/info?x=1",
        "/doc-storage/v1/a/get?a",
      ]
    ) {
      const r = await providerRawRequest(server.url, ad, { method: "GET", target });
      assert.equal(r!.status, 400, target);
    }
    const unknown = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/a/frobnicate",
    });
    assert.equal(unknown!.status, 404);
    const wrong = await providerRawRequest(server.url, ad, {
      method: "POST",
      target: "/doc-storage/v1/info",
    });
    assert.equal(wrong!.status, 405);
    assert.deepEqual(header(wrong!, "allow"), ["GET"]);
    const del = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/a/delete",
    });
    assert.equal(del!.status, 405);
  });
});

Deno.test("Common request headers: media types (415), missing Content-Length (411), bodies on body-less operations (400), compressed bodies (415)", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "framing");
    const cases: { name: string; status: number; req: Parameters<typeof providerRawRequest>[2] }[] =
      [
        {
          name: "info with a Content-Type",
          status: 415,
          req: { method: "GET", target: "/doc-storage/v1/info", contentType: "application/json" },
        },
        {
          name: "put as text/plain",
          status: 415,
          req: {
            method: "PUT",
            target: "/doc-storage/v1/a.txt/put",
            contentType: "text/plain",
            body: enc("x"),
          },
        },
        {
          name: "put as octet-stream with a parameter",
          status: 415,
          req: {
            method: "PUT",
            target: "/doc-storage/v1/a.txt/put",
            contentType: "application/octet-stream; x=1",
            body: enc("x"),
          },
        },
        {
          name: "mkdir as text/plain",
          status: 415,
          req: {
            method: "POST",
            target: "/doc-storage/v1/mkdir",
            contentType: "text/plain",
            body: enc('{"name":"x"}'),
          },
        },
        {
          name: "mkdir without Content-Type",
          status: 415,
          req: { method: "POST", target: "/doc-storage/v1/mkdir", body: enc('{"name":"x"}') },
        },
        {
          name: "gzip-encoded put",
          status: 415,
          req: {
            method: "PUT",
            target: "/doc-storage/v1/a.txt/put",
            ...octetBody(enc("x")),
            headers: [["content-encoding", "gzip"]],
          },
        },
        {
          name: "chunked put (no Content-Length)",
          status: 411,
          req: {
            method: "PUT",
            target: "/doc-storage/v1/a.txt/put",
            contentType: "application/octet-stream",
            headers: [["transfer-encoding", "chunked"]],
            body: enc("1\r\nx\r\n0\r\n\r\n"),
          },
        },
        {
          name: "lock without Content-Length",
          status: 411,
          req: {
            method: "POST",
            target: "/doc-storage/v1/a/lock",
            contentType: "application/json",
          },
        },
        {
          name: "info with a body",
          status: 400,
          req: { method: "GET", target: "/doc-storage/v1/info", body: enc("x") },
        },
      ];
    for (const c of cases) {
      const r = await providerRawRequest(server.url, ad, c.req);
      assert.equal(r!.status, c.status, c.name);
      assert.equal(await folderExists(server, ad.userSeq, "x"), false, c.name);
    }
    assert.equal((await ad.client.info(["a.txt"])).ok, true);
    assert.equal(
      (await ad.client.info(["a.txt"]) as { value: unknown }).value,
      null,
      "nothing stored",
    );
  });
});

Deno.test("Authentication 3: unknown adapter, bad signature, every bad claim and every mismatched signed field give 401 with one identical body, and touch nothing", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "auth");
    const mkdir = (
      edit?: (claims: any, header: any) => void,
      extra: Partial<Parameters<typeof providerRawRequest>[2]> = {},
    ) =>
      providerRawRequest(server.url, ad, {
        method: "POST",
        target: "/doc-storage/v1/mkdir",
        ...jsonBody('{"name":"made"}'),
        edit,
        ...extra,
      });
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, (c: any, h: any) => void][] = [
      ["header alg HS512", (_c, h) => (h.alg = "HS512")],
      ["header alg none", (_c, h) => (h.alg = "none")],
      ["header typ JWT", (_c, h) => (h.typ = "JWT")],
      ["header without typ", (_c, h) => delete h.typ],
      ["iss", (c) => (c.iss = "someone-else")],
      ["iss missing", (c) => delete c.iss],
      ["aud", (c) => (c.aud = "other-audience")],
      ["aud with two elements", (c) => (c.aud = ["doc-http-storage-provider", "x"])],
      ["iat in the future", (c) => ((c.iat = now + 30), (c.exp = now + 60))],
      ["iat not an integer", (c) => (c.iat = now - 0.5)],
      ["exp in the past", (c) => ((c.iat = now - 120), (c.exp = now - 70))],
      ["exp equal to now", (c) => ((c.iat = now - 10), (c.exp = now))],
      ["exp - iat over 60 s", (c) => ((c.iat = now - 1), (c.exp = now + 60))],
      ["exp equal to iat", (c) => ((c.iat = now), (c.exp = now))],
      ["jti missing", (c) => delete c.jti],
      ["jti empty", (c) => (c.jti = "")],
      ["jti over 64 characters", (c) => (c.jti = "j".repeat(65))],
      ["request missing", (c) => delete c.request],
      ["request.adapter differs", (c) => (c.request.adapter = "other")],
      ["request.method differs", (c) => (c.request.method = "PUT")],
      ["request.method lowercase", (c) => (c.request.method = "post")],
      ["request.path differs", (c) => (c.request.path = "/doc-storage/v1/x/mkdir")],
      ["request.path with a trailing slash", (c) => (c.request.path = "/doc-storage/v1/mkdir/")],
      [
        "request.content_type differs",
        (c) => (c.request.content_type = "application/json; charset=utf-8"),
      ],
      ["request.content_type missing", (c) => delete c.request.content_type],
      ["request.content_length differs", (c) => (c.request.content_length = 14)],
      ["request.content_sha256 differs", (c) => (c.request.content_sha256 = "0".repeat(64))],
      [
        "request.content_sha256 uppercase",
        (c) => (c.request.content_sha256 = c.request.content_sha256.toUpperCase()),
      ],
      ["arguments not an object", (c) => (c.request.arguments = "save")],
      [
        "client_metadata over 2,048 bytes",
        (
          c,
        ) => (c.request.client_metadata = {
          a: "x".repeat(500),
          b: "x".repeat(500),
          c: "x".repeat(500),
          d: "x".repeat(500),
          e: "x".repeat(100),
        }),
      ],
      [
        "client_metadata string over 512",
        (c) => (c.request.client_metadata = { a: "x".repeat(513) }),
      ],
      ["client_metadata blank key", (c) => (c.request.client_metadata = { " ": 1 })],
      ["client_metadata key over 64", (c) => (c.request.client_metadata = { ["k".repeat(65)]: 1 })],
      ["client_metadata depth 9", (c) => {
        let o: any = {};
        c.request.client_metadata = o;
        for (let i = 0; i < 9; i++) o = o.n = {};
      }],
    ];
    const bodies = new Set<string>();
    for (const [name, edit] of cases) {
      const r = await mkdir(edit);
      assert.equal(r!.status, 401, name);
      bodies.add(text(r));
    }
    // Not a JWT / wrong secret / unknown adapter / header problems.
    const otherSecret = { name: ad.name, secret: "x".repeat(40) };
    const wrongKey = await providerRawRequest(server.url, otherSecret, {
      method: "POST",
      target: "/doc-storage/v1/mkdir",
      ...jsonBody('{"name":"made"}'),
    });
    const unknown = await providerRawRequest(server.url, { name: "nobody", secret: ad.secret }, {
      method: "GET",
      target: "/doc-storage/v1/info",
    });
    const garbage = await mkdir(undefined, { jwt: "not.a.jwt" });
    const bearer = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/info",
      headers: [["x-doc-storage-request-jwt", `Bearer ${"x".repeat(20)}`]],
    });
    const noJwt = await rawHttp(server.url, {
      method: "GET",
      target: "/doc-storage/v1/info",
      headers: [["x-doc-storage-adapter", ad.name]],
    });
    const huge = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/info",
      // An unknown claim is ignored, but the whole JWT is over 5,120 bytes.
      edit: (c) => (c.pad = "p".repeat(5000)),
    });
    for (const r of [wrongKey, unknown, garbage, bearer, noJwt, huge]) {
      assert.equal(r!.status, 401);
      bodies.add(text(r));
    }
    assert.deepEqual([...bodies], [UNAUTHORIZED_TEXT], "one identical 401 body");
    assert.equal(await folderExists(server, ad.userSeq, "made"), false, "storage untouched");
    // aud as a one-element array is fine.
    const ok = await mkdir((c) => (c.aud = ["doc-http-storage-provider"]));
    assert.equal(ok!.status, 204);
    assert.equal(await folderExists(server, ad.userSeq, "made"), true);
  });
});

Deno.test("Verification order 5: a reused JWT is 401; a JWT whose request failed an earlier check is not consumed, one whose body failed its hash is", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "replay");
    const body = enc('{"name":"once"}');
    const jti = crypto.randomUUID();
    const fixed = (c: any) => (c.jti = jti);
    const mkdir = (extra: Partial<Parameters<typeof providerRawRequest>[2]>) =>
      providerRawRequest(server.url, ad, {
        method: "POST",
        target: "/doc-storage/v1/mkdir",
        contentType: "application/json",
        body,
        ...extra,
      });
    // Wrong Content-Type (step 1) and a mismatched signed length (step 4) fail before the jti
    // is recorded...
    const badType = await mkdir({ edit: fixed, headers: [["content-type", "text/plain"]] });
    assert.equal(badType!.status, 415);
    const badLength = await mkdir({
      edit: (c) => {
        c.jti = jti;
        c.request.content_length = body.byteLength + 1;
      },
    });
    assert.equal(badLength!.status, 401);
    // ...so the same jti is still usable once, and then never again.
    const first = await mkdir({ edit: fixed });
    assert.equal(first!.status, 204);
    // The body's hash is compared only after the jti is recorded (the body is read only after
    // authentication, docs/provider.md): a mismatch is 401 and uses the jti up.
    const hashJti = crypto.randomUUID();
    const badBody = await mkdir({
      edit: (c) => {
        c.jti = hashJti;
        c.request.content_sha256 = createHash("sha256").update("other").digest("hex");
      },
    });
    assert.equal(badBody!.status, 401);
    const sameJti = await mkdir({ edit: (c) => (c.jti = hashJti), body: enc('{"name":"twice"}') });
    assert.equal(sameJti!.status, 401);
    assert.equal(await folderExists(server, ad.userSeq, "twice"), false);
    const again = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/info",
      edit: fixed,
    });
    assert.equal(again!.status, 401);
    assert.equal(text(again), UNAUTHORIZED_TEXT);
  });
});

Deno.test("Verification order 5: replay is refused across two app instances on one KV file", async () => {
  // Both instances need the same secrets key to read the adapter's stored secret.
  const env = { DRIVE_SECRETS_KEY: btoa(String.fromCharCode(...new Uint8Array(32).fill(7))) };
  await withTwoServersOnOneKv(async (a, b) => {
    const ad = await newProviderAdapter(a, "twin");
    const jwt = ad.client.signedHeaders("info", [], { bytes: null })["x-doc-storage-request-jwt"];
    const send = (s: TestServer) =>
      providerRawRequest(s.url, ad, { method: "GET", target: "/doc-storage/v1/info", jwt });
    const onA = await send(a);
    assert.equal(onA!.status, 200);
    const onB = await send(b);
    assert.equal(onB!.status, 401, "instance B sees the jti instance A recorded");
    // And B itself serves fresh requests of the adapter A created (shared KV and secrets key).
    const fresh = await providerRawRequest(b.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/info",
    });
    assert.equal(fresh!.status, 200);
  }, { env });
});

Deno.test("Verification order 5: concurrent copies of one info or list JWT, whose reads overlap the jti commit, answer once", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "copies");
    assert.equal((await ad.client.put(["a.txt"], enc("a"))).ok, true);
    for (
      const [op, target] of [["info", "/doc-storage/v1/a.txt/info"], [
        "list",
        "/doc-storage/v1/list",
      ]] as const
    ) {
      const segments = op === "info" ? ["a.txt"] : [];
      const jwt =
        ad.client.signedHeaders(op, segments, { bytes: null })["x-doc-storage-request-jwt"];
      const answers = await Promise.all(
        Array.from(
          { length: 8 },
          () => providerRawRequest(server.url, ad, { method: "GET", target, jwt }),
        ),
      );
      const statuses = answers.map((r) => r!.status).sort();
      assert.deepEqual(statuses, [200, 401, 401, 401, 401, 401, 401, 401], op);
      // The refused copies carry the one 401 text, never the entry the overlapped reads found.
      for (const r of answers.filter((r) => r!.status === 401)) {
        assert.equal(text(r), UNAUTHORIZED_TEXT, op);
      }
    }
  });
});

Deno.test("Unsupported responses come only after authentication and the replay check", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "order501", { operations: ["put"] });
    const bad = await providerRawRequest(server.url, { name: ad.name, secret: "y".repeat(40) }, {
      method: "GET",
      target: "/doc-storage/v1/list",
    });
    assert.equal(bad!.status, 401);
    const jwt = ad.client.signedHeaders("list", [], { bytes: null })["x-doc-storage-request-jwt"];
    const first = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/list",
      jwt,
    });
    assert.equal(first!.status, 501);
    const replay = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/list",
      jwt,
    });
    assert.equal(replay!.status, 401);
  });
});

Deno.test("get and JSON responses on the wire: one exact Content-Length, no chunked or compressed framing, even when the client accepts gzip", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "wire");
    const doc = new Uint8Array(300_000).map((_, i) => (i * 7) & 0xff);
    assert.equal((await ad.client.put(["doc.bin"], doc)).ok, true);
    for (
      const target of [
        "/doc-storage/v1/doc.bin/get",
        "/doc-storage/v1/doc.bin/info",
        "/doc-storage/v1/list",
      ]
    ) {
      const r = await providerRawRequest(server.url, ad, {
        method: "GET",
        target,
        headers: [["accept-encoding", "gzip, br, deflate"]],
      });
      assert.equal(r!.status, 200, target);
      assert.equal(header(r!, "transfer-encoding").length, 0, target);
      assert.equal(header(r!, "content-encoding").length, 0, target);
      const lengths = header(r!, "content-length");
      assert.equal(lengths.length, 1, target);
      assert.equal(Number(lengths[0]), r!.body.byteLength, target);
      if (target.endsWith("/get")) {
        assert.deepEqual(header(r!, "content-type"), ["application/octet-stream"]);
        assert.deepEqual(r!.body, doc);
      } else {
        assert.deepEqual(header(r!, "content-type"), ["application/json"]);
      }
    }
    // An empty file: 200 with length 0.
    assert.equal((await ad.client.put(["empty.txt"], new Uint8Array())).ok, true);
    const empty = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/empty.txt/get",
    });
    assert.equal(empty!.status, 200);
    assert.deepEqual(header(empty!, "content-length"), ["0"]);
    // An empty directory lists as exactly {"entries":[]} (14 bytes).
    assert.equal((await ad.client.mkdir([], "void")).ok, true);
    const list = await providerRawRequest(server.url, ad, {
      method: "GET",
      target: "/doc-storage/v1/void/list",
    });
    assert.equal(text(list), '{"entries":[]}');
  });
});

Deno.test("Limits: JSON request bodies of 16,384 bytes are read, 16,385 are 413 from Content-Length", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "jsonlimit");
    assert.equal((await ad.client.put(["a.txt"], enc("a"))).ok, true);
    const owner = (total: number) => enc(`{"owner":"${"o".repeat(total - 12)}"}`);
    assert.equal(owner(16_384).byteLength, 16_384);
    const ok = await providerRawRequest(server.url, ad, {
      method: "POST",
      target: "/doc-storage/v1/a.txt/lock",
      contentType: "application/json",
      body: owner(16_384),
    });
    assert.equal(ok!.status, 204);
    // Only the headers are sent: the answer must not wait for the body.
    const over = await providerRawRequest(server.url, ad, {
      method: "POST",
      target: "/doc-storage/v1/a.txt/unlock",
      contentType: "application/json",
      body: owner(16_385),
      endAfter: 0,
    });
    assert.equal(over!.status, 413);
  });
});

Deno.test("Limits: put of 314,572,801 bytes is 413 from Content-Length before any byte is read; 314,572,800 is stored and served", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "biglimit");
    const over = await rawHttp(server.url, {
      method: "PUT",
      target: "/doc-storage/v1/big.bin/put",
      headers: [
        ["x-doc-storage-adapter", ad.name],
        ["x-doc-storage-request-jwt", "unsigned-but-never-checked"],
        ["content-type", "application/octet-stream"],
        ["content-length", "314572801"],
      ],
      endAfter: 0,
    });
    assert.equal(over!.status, 413);
    const max = new Uint8Array(314_572_800);
    max[0] = 1;
    max[max.byteLength - 1] = 2;
    const put = await ad.client.put(["big.bin"], max);
    assert.equal(put.ok, true, JSON.stringify(put));
    const info = await ad.client.info(["big.bin"]);
    assert.equal(info.ok && info.value?.size, 314_572_800);
    let got = 0;
    const hash = createHash("sha256");
    const get = await ad.client.get(["big.bin"], {
      sink: (c) => {
        got += c.byteLength;
        hash.update(c);
      },
    });
    assert.equal(get.ok, true);
    assert.equal(got, 314_572_800);
    assert.equal(hash.digest("hex"), createHash("sha256").update(max).digest("hex"));
  });
});

Deno.test("Limits: DRIVE_PROVIDER_MAX_DOC_BYTES lowers the document limit for put, get, info and list (limit allowed, one byte over 413)", async () => {
  const limit = 64 * 1024;
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "lowlimit");
    const atLimit = await ad.client.put(["at.bin"], new Uint8Array(limit));
    assert.equal(atLimit.ok, true);
    const over = await ad.client.put(["over.bin"], new Uint8Array(limit + 1));
    assert.equal(over.ok || over.status, 413);
    assert.equal((await ad.client.info(["over.bin"]) as { value: unknown }).value, null);
    // A bigger file stored through the drive itself cannot be described or served.
    const { storeGeneratedFile } = await import("../../kv/tree/content.ts");
    await storeGeneratedFile(server.deps, {
      ownerSeq: ad.userSeq,
      parentRs: null,
      name: "drive-big.bin",
      bytes: new Uint8Array(limit + 1),
      actorSeq: ad.userSeq,
      onConflict: "fail",
      quotaCode: "RESOURCE_015",
      reason: "upload",
    });
    for (
      const r of [
        await ad.client.info(["drive-big.bin"]),
        await ad.client.get(["drive-big.bin"]),
        await ad.client.list([]),
      ]
    ) {
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.status, 413);
    }
  }, { env: { DRIVE_PROVIDER_MAX_DOC_BYTES: String(limit) } });
});

Deno.test("JWT jti: 1 to 64 characters counted as characters (64 non-BMP characters are accepted, 65 are 401)", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "jtichars");
    const info = (jti: string) =>
      providerRawRequest(server.url, ad, {
        method: "GET",
        target: "/doc-storage/v1/info",
        edit: (c) => (c.jti = jti),
      });
    assert.equal((await info("\u{1F600}".repeat(64)))!.status, 200);
    assert.equal((await info("\u{1F601}".repeat(65)))!.status, 401);
    assert.equal((await info("j".repeat(64)))!.status, 200);
  });
});
