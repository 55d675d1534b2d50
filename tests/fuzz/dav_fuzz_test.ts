/**
 * Fuzzing the WebDAV edge (/dav, docs/webdav.md): every method it serves (and some it does not)
 * on own, shared, foreign and hostile paths, with generated Depth, Destination, Overwrite, If,
 * Range, Timeout and Lock-Token headers and XML bodies valid, broken, entity-laden or oversized,
 * sent chunked or not, signed in by Basic, Bearer, wrongly or not at all. No answer may be a 5xx,
 * carry a stack trace or internal path, or come late; the server answers /healthz afterwards.
 */
import fc from "./fast_check.ts";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { assertAlive, checkAnswer, fuzz, type FuzzRequest, runsFor, send } from "./harness.ts";
import { basicOf } from "../dav/client.ts";

const METHODS = [
  "OPTIONS",
  "PROPFIND",
  "PROPPATCH",
  "GET",
  "HEAD",
  "PUT",
  "MKCOL",
  "DELETE",
  "COPY",
  "MOVE",
  "LOCK",
  "UNLOCK",
  "PATCH",
  "SEARCH",
  "REPORT",
  "ACL",
];

const SEGMENTS = [
  "docs",
  "docs/",
  "docs/a.txt",
  "a.txt",
  "new.txt",
  "new dir/",
  "Shared",
  "%E2%82%AC.txt",
  "%2e%2e/%2e%2e",
  "..",
  ".",
  "%00",
  "%ff",
  "%",
  "a%2fb",
  "x".repeat(300),
  "caf%C3%A9",
  "%F0%9F%8E%89",
  "._a.txt",
  ".DS_Store",
  "a#frag",
  "a?x=1",
  "docs/a.txt/child",
  "%07bell",
];

const XML = [
  "",
  `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`,
  `<D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>`,
  `<D:propfind xmlns:D="DAV:"><D:prop><D:getetag/><x:y xmlns:x="urn:x"/></D:prop></D:propfind>`,
  `<D:propfind xmlns:D="DAV:"><D:prop/><D:allprop/></D:propfind>`,
  `<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><a xmlns="urn:a">v</a></D:prop></D:set></D:propertyupdate>`,
  `<D:propertyupdate xmlns:D="DAV:"><D:remove><D:prop><D:getetag/></D:prop></D:remove></D:propertyupdate>`,
  `<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>`,
  `<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope></D:lockinfo>`,
  `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>`,
  `<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]><x>&b;</x>`,
  `<x>&undefined;</x>`,
  `<D:propfind xmlns:D="DAV:">`,
  `<a:b xmlns:a=""/>`,
  "not xml at all",
  `<D:propfind xmlns:D="DAV:"><!--${"x".repeat(70_000)}--></D:propfind>`,
  "\u0000\u0001\uffff",
];

const HEADER_VALUES: Record<string, string[]> = {
  depth: ["0", "1", "infinity", "2", "", "-1", "Infinity "],
  overwrite: ["T", "F", "t", "x", ""],
  destination: [
    "/dav/files/fuzz/moved.txt",
    "http://127.0.0.1/dav/files/fuzz/x",
    "http://elsewhere/dav/x",
    "/dav/files/other/x",
    "/dav/shared/Shared/x",
    "::::",
    "/dav/files/fuzz/docs/",
    "/api/x",
    "/dav/files/fuzz/%ff",
    "",
  ],
  if: [
    "(<urn:uuid:00000000-0000-0000-0000-000000000000>)",
    '(["etag"])',
    "(Not <DAV:no-lock>)",
    '<http://x/a> (<urn:uuid:1>) (Not ["x"])',
    "(",
    "((<a>))",
    "<>",
    "",
  ],
  range: ["bytes=0-0", "bytes=5-1", "bytes=-0", "bytes=0-", "bytes=a-b", "bytes=0-1,3-4"],
  "content-range": ["bytes 0-1/2", "x"],
  timeout: ["Second-1", "Infinite", "Second-99999999999", "x", "Second-0"],
  "lock-token": ["<urn:uuid:1>", "urn:uuid:1", "<>", ""],
  "if-match": ['"x"', "*", ""],
  "if-none-match": ["*", '"x"', ""],
  "if-modified-since": ["Mon, 01 Jan 2001 00:00:00 GMT", "garbage"],
  "content-type": ["application/xml", "text/xml; charset=utf-8", "x/y"],
};

Deno.test("fuzz: every WebDAV method, path, header and body answers without a 5xx", async () => {
  await withServer(async (server) => {
    const fuzzUser = await newApiUser(server, "fuzz");
    const owner = await newApiUser(server, "owner", { tenantId: fuzzUser.tenantId });
    const docs = await fuzzUser.newFolder("docs");
    await fuzzUser.newFile("a.txt", "hello", docs);
    const shared = await owner.newFolder("Shared");
    await owner.shareWith(shared, fuzzUser, "cd");
    const auths = [
      basicOf("fuzz", fuzzUser.apiKey),
      basicOf("fuzz@example.com", fuzzUser.apiKey),
      `Bearer ${fuzzUser.apiKey}`,
      basicOf("intruder", "drv_x_y"),
      "Basic ####",
      "",
    ];
    const prefixes = ["/dav/files/fuzz/", "/dav/shared/", "/dav/files/owner/", "/dav/", "/dav/x/"];
    const headerArb = fc.uniqueArray(
      fc.constantFrom(...Object.keys(HEADER_VALUES)).chain((k) =>
        fc.constantFrom(...HEADER_VALUES[k]).map((v) => [k, v] as [string, string])
      ),
      { maxLength: 4, selector: ([k]) => k },
    );
    const arb = fc.record({
      method: fc.constantFrom(...METHODS),
      prefix: fc.constantFrom(...prefixes),
      segment: fc.constantFrom(...SEGMENTS),
      auth: fc.constantFrom(...auths),
      headers: headerArb,
      body: fc.oneof(fc.constantFrom(...XML), fc.string({ maxLength: 200 })),
      chunked: fc.boolean(),
    });
    await fuzz(
      "dav",
      arb,
      async (g) => {
        const headers: [string, string][] = [...g.headers];
        if (g.auth) headers.push(["authorization", g.auth]);
        const bodyless = g.method === "GET" || g.method === "HEAD";
        const req: FuzzRequest = {
          method: g.method,
          target: g.prefix + g.segment,
          headers,
          ...(bodyless || g.body === "" ? {} : { body: g.body, chunked: g.chunked }),
        };
        const answer = await send(server.url, req);
        checkAnswer(req, answer, { secretPaths: [server.config.dataDir] });
      },
      runsFor(300),
    );
    await assertAlive(server.url);
  });
});
