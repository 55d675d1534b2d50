/** The If header grammar (RFC 4918 10.4) and its evaluation, including litmus's conditional PUTs. */
import assert from "node:assert/strict";
import {
  evaluateIf,
  IF_HEADER_MAX,
  IfHeaderError,
  type IfResourceState,
  parseIfHeader,
  resourcesOf,
  tokensOf,
} from "./if_header.ts";

const TOKEN = "urn:uuid:181d4fae-7d8c-11d0-a765-00a0c91e6bf2";
const ETAG = '"abc123"';

Deno.test("untagged lists: tokens, ETags, Not, several conditions and lists", () => {
  assert.deepEqual(parseIfHeader(`(<${TOKEN}>)`), [
    { resource: null, conditions: [{ not: false, token: TOKEN }] },
  ]);
  assert.deepEqual(parseIfHeader(`(<${TOKEN}> [${ETAG}]) (Not <DAV:no-lock> [W/"x y"])`), [
    { resource: null, conditions: [{ not: false, token: TOKEN }, { not: false, etag: ETAG }] },
    {
      resource: null,
      conditions: [{ not: true, token: "DAV:no-lock" }, { not: false, etag: 'W/"x y"' }],
    },
  ]);
  // Spacing is free, "not" is any case, and may touch what follows.
  assert.deepEqual(parseIfHeader(` ( NOT<${TOKEN}>[${ETAG}] ) `)[0].conditions, [
    { not: true, token: TOKEN },
    { not: false, etag: ETAG },
  ]);
});

Deno.test("tagged lists: each list belongs to the resource tag before it", () => {
  const lists = parseIfHeader(
    `<http://h/dav/a/> (<${TOKEN}>) ([${ETAG}]) </dav/b> (Not <urn:uuid:1>)`,
  );
  assert.deepEqual(lists.map((l) => l.resource), ["http://h/dav/a/", "http://h/dav/a/", "/dav/b"]);
  assert.deepEqual(resourcesOf(lists), ["http://h/dav/a/", "/dav/b"]);
  assert.deepEqual(tokensOf(lists), [TOKEN, "urn:uuid:1"]);
});

Deno.test("malformed headers are refused with IfHeaderError", () => {
  for (
    const bad of [
      "",
      "   ",
      "<urn:uuid:1>",
      "()",
      `(<${TOKEN}>`,
      `<${TOKEN}`,
      `(<>)`,
      `(<not a uri>)`,
      `(<no-scheme>)`,
      `([abc])`,
      `(["unclosed])`,
      `(Not)`,
      `(Nope <${TOKEN}>)`,
      `(<${TOKEN}>) </a> (<${TOKEN}>)`,
      `</a> (<${TOKEN}>) (<${TOKEN}>) x`,
      `</a> </b> (<${TOKEN}>)`,
      `(${TOKEN})`,
      "(<urn:a>)".repeat(IF_HEADER_MAX / 9 + 1),
    ]
  ) {
    assert.throws(() => parseIfHeader(bad), IfHeaderError, JSON.stringify(bad).slice(0, 80));
  }
});

const locked: IfResourceState = { etag: ETAG, tokens: new Set([TOKEN]) };
const free: IfResourceState = { etag: ETAG, tokens: new Set() };

function check(header: string, state: IfResourceState) {
  return evaluateIf(parseIfHeader(header), () => state);
}

Deno.test("litmus's conditional PUTs evaluate as RFC 4918 says", () => {
  // cond_put: the lock's token and the current ETag.
  assert.deepEqual(check(`(<${TOKEN}> [${ETAG}])`, locked), {
    ok: true,
    submitted: new Set([TOKEN]),
  });
  // fail_cond_put and fail_cond_put_unlocked: DAV:no-lock never names a lock.
  assert.equal(check(`(<DAV:no-lock> [${ETAG}])`, locked).ok, false);
  assert.equal(check(`(<DAV:no-lock>)`, free).ok, false);
  // cond_put_with_not: the first list holds, submitting the token.
  assert.deepEqual(check(`(<${TOKEN}>) (Not <DAV:no-lock>)`, locked).submitted, new Set([TOKEN]));
  // cond_put_corrupt_token: the header holds through its second list but submits no token,
  // so the lock still refuses the PUT (423, not 412).
  assert.deepEqual(check(`(<${TOKEN}x>) (Not <DAV:no-lock>)`, locked), {
    ok: true,
    submitted: new Set(),
  });
  // complex_cond_put and fail_complex_cond_put.
  assert.equal(check(`(<${TOKEN}> [${ETAG}]) (Not <DAV:no-lock> [${ETAG}])`, locked).ok, true);
  const other = '"abc124"';
  assert.equal(check(`(<${TOKEN}> [${other}]) (Not <DAV:no-lock> [${other}])`, locked).ok, false);
});

Deno.test("a token of a lock that is gone, Not, weak ETags and a missing resource", () => {
  assert.equal(check(`(<${TOKEN}>)`, free).ok, false);
  assert.equal(check(`(Not <${TOKEN}>)`, free).ok, true);
  assert.equal(check(`(Not [${ETAG}])`, locked).ok, false);
  assert.equal(check(`([W/${ETAG}])`, locked).ok, true);
  assert.equal(check(`([${ETAG}])`, { etag: null, tokens: new Set() }).ok, false);
});

Deno.test("each tagged list is checked against its own resource", () => {
  const states = new Map<string | null, IfResourceState>([["/dav/a/", locked], ["/dav/b", free]]);
  const stateOf = (r: string | null) => states.get(r) ?? { etag: null, tokens: new Set() };
  const both = parseIfHeader(`</dav/b> (<${TOKEN}>) </dav/a/> (<${TOKEN}>)`);
  assert.deepEqual(evaluateIf(both, stateOf), { ok: true, submitted: new Set([TOKEN]) });
  assert.equal(evaluateIf(parseIfHeader(`</dav/b> (<${TOKEN}>)`), stateOf).ok, false);
});
