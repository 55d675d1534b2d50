/**
 * The host client against fake providers: it signs what it sends (checked by the fake with the
 * provider's own verification code) and rejects every response the spec's host-side rules
 * reject: framing, media types, entry/list/docId schemas, unsupported bodies, size limits.
 */
// deno-lint-ignore-file no-explicit-any
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { verifyJwtSignature } from "../../provider/jwt.ts";
import type { HostResult } from "../../provider/host/answers.ts";
import { normalizeBaseUrl, ProviderHostClient } from "../../provider/host/client.ts";
import { claimsOk } from "../../provider/verify.ts";
import { FILE_ENTRY } from "../helpers/provider.ts";

const SECRET = "s".repeat(40);

type Handler = (req: Request) => Response | Promise<Response>;

/** A fake provider whose answer each case sets; it checks every request's signature. */
async function withFake(
  fn: (client: ProviderHostClient, set: (h: Handler) => void) => Promise<void>,
) {
  let handler: Handler = () => new Response(null, { status: 500 });
  const seenJti = new Set<string>();
  const signatureProblems: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = new Uint8Array(await req.arrayBuffer());
    const payload = verifyJwtSignature(
      req.headers.get("x-doc-storage-request-jwt") ?? "",
      SECRET,
    ) as any;
    const now = Math.floor(Date.now() / 1000);
    const path = req.url.slice(req.url.indexOf("/", 8));
    if (!payload || !claimsOk(payload, now)) signatureProblems.push("bad jwt");
    else {
      const r = payload.request;
      if (r.path !== path || r.method !== req.method || r.adapter !== "fake") {
        signatureProblems.push("fields");
      }
      if (r.content_length !== body.byteLength) signatureProblems.push("length");
      if (r.content_sha256 !== createHash("sha256").update(body).digest("hex")) {
        signatureProblems.push("hash");
      }
      if ((r.content_type ?? null) !== req.headers.get("content-type")) {
        signatureProblems.push("type");
      }
      if (seenJti.has(payload.jti)) signatureProblems.push("jti reused");
      seenJti.add(payload.jti);
    }
    return await handler(req);
  });
  const client = new ProviderHostClient({
    baseUrl: `http://127.0.0.1:${server.addr.port}/base/`,
    adapter: "fake",
    secret: SECRET,
  });
  try {
    await fn(client, (h) => (handler = h));
  } finally {
    await server.shutdown();
  }
  assert.deepEqual(signatureProblems, [], "every request was signed correctly");
}

const json = (v: unknown, init: ResponseInit = {}) => {
  const bytes = new TextEncoder().encode(typeof v === "string" ? v : JSON.stringify(v));
  return new Response(bytes, {
    status: init.status ?? 200,
    headers: {
      "content-type": "application/json",
      "content-length": String(bytes.byteLength),
      ...(init.headers ?? {}),
    },
  });
};

function assertProblem(r: HostResult<unknown>, pattern: RegExp, what: string) {
  assert.equal(r.ok, false, `${what}: expected a rejection`);
  if (!r.ok) {
    assert.ok(r.problems.some((p) => pattern.test(p)), `${what}: ${JSON.stringify(r.problems)}`);
  }
}

Deno.test("Host client: entry schema of info (unknown, duplicate or null fields, names, types, sizes, times, path)", async () => {
  await withFake(async (client, set) => {
    const cases: [string, unknown, RegExp][] = [
      ["unknown field", { ...FILE_ENTRY, extra: 1 }, /unknown field "extra"/],
      [
        "duplicate field",
        '{"path":"a.txt","path":"a.txt","name":"a.txt","type":"file","size":3,"readable":true,"writable":true,"locked":false}',
        /duplicate field/,
      ],
      ["required null", { ...FILE_ENTRY, locked: null }, /"locked" is missing or null/],
      ["required missing", { ...FILE_ENTRY, readable: undefined }, /"readable" is missing/],
      ["name not the last segment", { ...FILE_ENTRY, name: "b.txt" }, /not the last segment/],
      ["empty name", { ...FILE_ENTRY, name: "" }, /name/],
      ["bad type", { ...FILE_ENTRY, type: "folder" }, /type/],
      ["negative size", { ...FILE_ENTRY, size: -1 }, /size/],
      ["fractional size", { ...FILE_ENTRY, size: 1.5 }, /size/],
      ["size over 314,572,800", { ...FILE_ENTRY, size: 314_572_801 }, /size/],
      ["directory with a size", { ...FILE_ENTRY, type: "directory", size: 5 }, /must be 0/],
      ["boolean as string", { ...FILE_ENTRY, writable: "true" }, /writable/],
      ["bad timestamp", { ...FILE_ENTRY, modifiedAt: "yesterday" }, /RFC 3339/],
      ["timestamp without zone", { ...FILE_ENTRY, createdAt: "2026-01-01T00:00:00" }, /RFC 3339/],
      ["locker too long", { ...FILE_ENTRY, locker: "l".repeat(256) }, /locker/],
      ["revision too long", { ...FILE_ENTRY, revision: "r".repeat(1025) }, /revision/],
      [
        "path differs from the request",
        { ...FILE_ENTRY, path: "b/a.txt" },
        /not the requested path/,
      ],
      ["array body", [FILE_ENTRY], /not a JSON object/],
      ["trailing content", `${JSON.stringify(FILE_ENTRY)} x`, /not strict JSON/],
    ];
    for (const [what, body, pattern] of cases) {
      set(() => json(body));
      assertProblem(await client.info(["a.txt"]), pattern, what);
    }
    set(() =>
      json({
        ...FILE_ENTRY,
        locker: null,
        createdAt: "2026-01-01T00:00:00.5+02:00",
        revision: null,
      })
    );
    const ok = await client.info(["a.txt"]);
    assert.equal(ok.ok, true, JSON.stringify(ok));
    set(() => new Response("gone", { status: 404 }));
    const absent = await client.info(["a.txt"]);
    assert.equal(absent.ok && absent.value, null);
    set(() => json({ ...FILE_ENTRY, path: "", name: "root", type: "file" }));
    assertProblem(await client.info([]), /root must be a directory/, "root as a file");
  });
});

Deno.test("Host client: framing and media types (chunked, compressed, missing or short length, over 5 MiB, redirects)", async () => {
  await withFake(async (client, set) => {
    set(() =>
      new Response(ReadableStream.from([new TextEncoder().encode(JSON.stringify(FILE_ENTRY))]), {
        headers: { "content-type": "application/json" },
      })
    );
    assertProblem(
      await client.info(["a.txt"]),
      /Content-Length is missing|Transfer-Encoding/,
      "chunked",
    );
    set(async () => {
      const gz = new Uint8Array(
        await new Response(
          new Blob([JSON.stringify(FILE_ENTRY)]).stream().pipeThrough(
            new CompressionStream("gzip"),
          ),
        ).arrayBuffer(),
      );
      return new Response(gz, {
        headers: {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(gz.byteLength),
        },
      });
    });
    assertProblem(await client.info(["a.txt"]), /Content-Encoding "gzip"/, "gzip");
    set(() =>
      new Response(JSON.stringify(FILE_ENTRY), { headers: { "content-type": "text/plain" } })
    );
    assertProblem(await client.info(["a.txt"]), /not application\/json/, "media type");
    set(() =>
      json(FILE_ENTRY, { headers: { "content-type": "application/json; charset=latin1" } })
    );
    assertProblem(await client.info(["a.txt"]), /not application\/json/, "charset");
    set(() => new Response(null, { status: 302, headers: { location: "http://127.0.0.1:1/" } }));
    assertProblem(await client.info(["a.txt"]), /redirect/, "redirect");
    set(() => json(FILE_ENTRY, { headers: { "content-type": "application/json" } }));
    assert.equal((await client.info(["a.txt"])).ok, true);
  });
});

Deno.test("Host client: raw framing failures (early end of stream, declared length over 5 MiB)", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let answer = "";
  const accepting = (async () => {
    for await (const conn of listener) {
      const buf = new Uint8Array(65536);
      await conn.read(buf).catch(() => null);
      await conn.write(new TextEncoder().encode(answer)).catch(() => {});
      conn.close();
    }
  })();
  try {
    const client = new ProviderHostClient({
      baseUrl: `http://127.0.0.1:${listener.addr.port}`,
      adapter: "fake",
      secret: SECRET,
    });
    answer =
      'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\nconnection: close\r\n\r\n{"path":';
    const short = await client.info(["a.txt"]);
    assert.equal(short.ok, false);
    answer =
      "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 5242881\r\nconnection: close\r\n\r\n{}";
    assertProblem(await client.info(["a.txt"]), /over the limit of 5242880/, "over 5 MiB");
    answer =
      "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: 314572801\r\nconnection: close\r\n\r\nab";
    assertProblem(await client.get(["a.txt"]), /over the limit of 314572800/, "get over 300 MiB");
  } finally {
    listener.close();
    await accepting.catch(() => {});
  }
});

Deno.test("Host client: list schema (direct children only, no duplicates, no extra fields, at most 10,000)", async () => {
  await withFake(async (client, set) => {
    const child = (name: string, dir = "d") => ({ ...FILE_ENTRY, path: `${dir}/${name}`, name });
    const cases: [string, unknown, RegExp][] = [
      [
        "nested entry",
        { entries: [{ ...FILE_ENTRY, path: "d/x/a.txt", name: "a.txt" }] },
        /not a direct child/,
      ],
      ["entry outside", { entries: [child("a.txt", "e")] }, /not a direct child/],
      ["the directory itself", {
        entries: [{ ...FILE_ENTRY, type: "directory", size: 0, path: "d", name: "d" }],
      }, /directory itself/],
      ["duplicate path", { entries: [child("a.txt"), child("a.txt")] }, /duplicate path/],
      ["extra field", { entries: [], total: 0 }, /unknown field "total"/],
      ["cursor", { entries: [], cursor: "x" }, /unknown field "cursor"/],
      ["entries not an array", { entries: {} }, /not an array/],
      [
        "10,001 entries",
        { entries: Array.from({ length: 10_001 }, (_, i) => child(`f${i}`)) },
        /more than 10000/,
      ],
      ["bad entry", { entries: [{ ...child("a.txt"), size: "3" }] }, /entries\[0\]\.size/],
    ];
    for (const [what, body, pattern] of cases) {
      set(() => json(body));
      assertProblem(await client.list(["d"]), pattern, what);
    }
    set(() => json({ entries: Array.from({ length: 10_000 }, (_, i) => child(`f${i}`)) }));
    const max = await client.list(["d"]);
    assert.equal(max.ok && max.value.length, 10_000);
  });
});

Deno.test("Host client: unsupported declarations must be exact; 501 is never accepted for info or get", async () => {
  await withFake(async (client, set) => {
    set(() =>
      json({ code: "LIST_NOT_SUPPORTED" }, {
        status: 501,
        headers: { "content-type": "application/json; charset=utf-8" },
      })
    );
    const ok = await client.list([]);
    assert.equal(!ok.ok && ok.unsupported, true);
    const cases: [string, () => Response, RegExp][] = [
      [
        "another operation's code",
        () => json({ code: "PUT_NOT_SUPPORTED" }, { status: 501 }),
        /exactly/,
      ],
      [
        "extra field",
        () => json({ code: "LIST_NOT_SUPPORTED", why: "x" }, { status: 501 }),
        /exactly/,
      ],
      [
        "empty body",
        () => new Response(null, { status: 501, headers: { "content-type": "application/json" } }),
        /not valid JSON/,
      ],
      [
        "HTML",
        () =>
          new Response("<h1>no</h1>", { status: 501, headers: { "content-type": "text/html" } }),
        /not application\/json/,
      ],
      [
        "over 8 KiB",
        () => json(`{"code":"LIST_NOT_SUPPORTED"${" ".repeat(9000)}}`, { status: 501 }),
        /8 KiB/,
      ],
    ];
    for (const [what, h, pattern] of cases) {
      set(h);
      const r = await client.list([]);
      assertProblem(r, pattern, what);
      assert.equal(!r.ok && r.unsupported, false, what);
    }
    set(() => json({ code: "LIST_NOT_SUPPORTED" }, { status: 501 }));
    assertProblem(await client.info([]), /not an accepted answer/, "info 501");
    assertProblem(await client.get(["a"]), /not an accepted answer/, "get 501");
    set(() => new Response("nope", { status: 404 }));
    const missing = await client.list([]);
    assert.equal(!missing.ok && missing.unsupported, false, "404 is not unsupported");
  });
});

Deno.test("Host client: put's docId (grammar, reserved words, only field, no trimming) and the no-content operations", async () => {
  await withFake(async (client, set) => {
    const cases: [string, () => Response, RegExp][] = [
      ["true", () => json({ docId: "true" }), /reserved/],
      ["FALSE", () => json({ docId: "FALSE" }), /reserved/],
      ["space", () => json({ docId: " a" }), /grammar/],
      ["starts with a dot", () => json({ docId: ".a" }), /grammar/],
      ["too long", () => json({ docId: "a".repeat(1025) }), /grammar/],
      ["number", () => json({ docId: 5 }), /not a string/],
      ["extra field", () => json({ docId: "a", rev: "1" }), /unknown field "rev"/],
      ["duplicate field", () => json('{"docId":"a","docId":"b"}'), /duplicate field/],
      ["JSON string", () => json('"a"'), /not a JSON object/],
      ["null", () => json("null"), /not a JSON object/],
      ["trailing content", () => json('{"docId":"a"}x'), /not strict JSON/],
      ["204", () => new Response(null, { status: 204 }), /204 is not allowed/],
      [
        "text",
        () =>
          new Response("a", { headers: { "content-type": "text/plain", "content-length": "1" } }),
        /not application\/json/,
      ],
    ];
    for (const [what, h, pattern] of cases) {
      set(h);
      assertProblem(
        await client.put(["a.txt"], new TextEncoder().encode("abc"), { saveType: "save" }),
        pattern,
        what,
      );
    }
    set(() => json({ docId: "doc:1.v-2_a" }, { status: 201 }));
    const ok = await client.put(["a.txt"], new TextEncoder().encode("abc"));
    assert.equal(ok.ok && ok.value.docId, "doc:1.v-2_a");
    // lock & co: 204, or another 2xx with an optional UTF-8 plain-text result.
    set(() => new Response(null, { status: 204 }));
    assert.equal((await client.lock(["a.txt"], "o")).ok, true);
    set(() => new Response("locked", { headers: { "content-type": "text/plain; charset=utf-8" } }));
    const text = await client.unlock(["a.txt"], "o");
    assert.equal(text.ok && text.value.text, "locked");
    set(() => new Response("<b>x</b>", { headers: { "content-type": "text/html" } }));
    assertProblem(await client.mkdir([], "x"), /text\/plain/, "html result");
    set(() => new Response("x", { status: 409 }));
    const conflict = await client.rename(["a.txt"], "b.txt");
    assert.equal(!conflict.ok && conflict.status, 409);
    assert.equal(!conflict.ok && conflict.message, "x");
    set(() => json({ ...FILE_ENTRY }, { headers: { "content-type": "application/json" } }));
    assertProblem(await client.get(["a.txt"]), /not application\/octet-stream/, "get as JSON");
  });
});

Deno.test("Host client: base URL rule 1 (http/https, prefix kept, no user info, query, fragment or dot segments)", () => {
  assert.deepEqual(normalizeBaseUrl("https://p.example/storage/"), {
    url: "https://p.example/storage",
  });
  assert.deepEqual(normalizeBaseUrl("http://p.example"), { url: "http://p.example" });
  for (
    const bad of [
      "ftp://p.example",
      "https://u:p@p.example",
      "https://p.example/?x",
      "https://p.example/#f",
      "https://p.example/a/../b",
      "https://p.example/%2e%2e/b",
      "nope",
    ]
  ) {
    assert.ok("problem" in normalizeBaseUrl(bad), bad);
  }
  const c = new ProviderHostClient({
    baseUrl: "https://p.example/storage/",
    adapter: "a",
    secret: SECRET,
  });
  assert.equal(c.pathFor("info", []), "/storage/doc-storage/v1/info");
  assert.equal(
    c.pathFor("get", ["dir one", "ä/b.txt"]),
    "/storage/doc-storage/v1/dir%20one/%C3%A4%2Fb.txt/get",
  );
});

Deno.test("Host client: entry names must be usable path segments (no '.', '..', backslash or control characters)", async () => {
  await withFake(async (client, set) => {
    const child = (name: string) => ({ ...FILE_ENTRY, path: `d/${name}`, name });
    for (const name of ["..", ".", "a\\b", "a\u0001b", "a\u0085b"]) {
      set(() => json({ entries: [child(name)] }));
      assertProblem(await client.list(["d"]), /name/, `list entry ${JSON.stringify(name)}`);
    }
    set(() => json({ ...FILE_ENTRY, path: "a\\b", name: "a\\b" }));
    assertProblem(await client.info(["a\\b"]), /name/, "info named a\\b");
    set(() => json({ entries: [child("ok name.txt")] }));
    assert.equal((await client.list(["d"])).ok, true);
    // The root's display name is free text, not a segment.
    set(() => json({ ...FILE_ENTRY, path: "", name: "/", type: "directory", size: 0 }));
    assert.equal((await client.info([])).ok, true);
  });
});

Deno.test("Host client: RFC 3339 times are real calendar times (no Feb 30 or hour 24; a leap second is valid)", async () => {
  await withFake(async (client, set) => {
    for (
      const bad of [
        "2026-02-30T00:00:00Z",
        "2025-02-29T00:00:00Z",
        "2026-01-01T24:00:00Z",
        "2026-01-01T00:60:00Z",
        "2026-01-01T00:00:00+24:00",
        "2026-00-10T00:00:00Z",
      ]
    ) {
      set(() => json({ ...FILE_ENTRY, modifiedAt: bad }));
      assertProblem(await client.info(["a.txt"]), /RFC 3339/, bad);
    }
    for (const good of ["2024-02-29T10:00:00Z", "2016-12-31T23:59:60Z", "2026-01-01t00:00:00.1z"]) {
      set(() => json({ ...FILE_ENTRY, createdAt: good }));
      const r = await client.info(["a.txt"]);
      assert.equal(r.ok, true, `${good}: ${JSON.stringify(r)}`);
    }
  });
});

Deno.test("Host client: base URL dot segments in any spelling (.%2e, %2e., backslash, tab) are refused", () => {
  for (
    const bad of [
      "https://p.example/a/.%2e/b",
      "https://p.example/a/%2e./b",
      "https://p.example/a/%2E/b",
      "https://p.example/a\\..\\b",
      "https://p.example/a/.\t./b",
      "https://p.example/a/\n../b",
    ]
  ) {
    assert.ok("problem" in normalizeBaseUrl(bad), JSON.stringify(bad));
  }
  assert.deepEqual(normalizeBaseUrl("https://p.example/a.b/..c/"), {
    url: "https://p.example/a.b/..c",
  });
});

Deno.test("Host client: a request without an answer names its reason (refused, DNS, TLS, timeout), not just 'fetch failed'", async () => {
  const client = (baseUrl: string, timeoutMs?: number) =>
    new ProviderHostClient({ baseUrl, adapter: "fake", secret: SECRET, timeoutMs });
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = probe.addr.port;
  probe.close();
  const refused = await client(`http://127.0.0.1:${closedPort}`).list([]);
  assert.equal(refused.ok, false);
  if (!refused.ok) {
    assert.equal(refused.status, null);
    assert.match(refused.problems[0], /^request failed: fetch failed: .*Connection refused/);
    assert.doesNotMatch(refused.problems[0], /error sending request for url/, "the URL once");
  }
  const dns = await client("http://no-such-host.invalid").list([]);
  assert.ok(!dns.ok && /dns error/.test(dns.problems[0]), JSON.stringify(dns));
  // A plain HTTP server asked over TLS, and one that never answers.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  try {
    const plain = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("x"),
    );
    try {
      const tls = await client(`https://127.0.0.1:${plain.addr.port}`).list([]);
      assert.ok(
        !tls.ok && /request failed: fetch failed: .+/.test(tls.problems[0]),
        JSON.stringify(tls),
      );
    } finally {
      await plain.shutdown();
    }
    const timeout = await client(`http://127.0.0.1:${silent.addr.port}`, 200).list([]);
    assert.ok(!timeout.ok);
    if (!timeout.ok) assert.equal(timeout.problems[0], "request failed: no answer within 200 ms");
  } finally {
    silent.close();
    await accepting.catch(() => {});
    for (const conn of held) conn.close();
  }
});

Deno.test("Host client: a 404 on the root listing suggests the base URL or its prefix is wrong", async () => {
  await withFake(async (client, set) => {
    set(() => new Response("Not found", { status: 404 }));
    const root = await client.list([]);
    assert.equal(root.ok, false);
    if (!root.ok) {
      assert.equal(root.status, 404);
      assert.match(root.problems[0], /^HTTP 404: Not found/);
      assert.match(root.problems[1], /base URL or its path prefix may be wrong/);
      assert.match(root.problems[1], /\/base\/doc-storage\/v1\/list/);
    }
    // Below the root a 404 is an ordinary answer about that directory.
    const below = await client.list(["gone"]);
    assert.ok(!below.ok && below.problems.length === 1, JSON.stringify(below));
  });
});
