import assert from "node:assert/strict";
import { Hono } from "hono";
import { DriveError } from "../../kv/errors.ts";
import { firstInvalidUtf8, limitBody } from "./body_limit.ts";

/** A tiny app behind limitBody (limit 10 bytes) whose routes echo how many bytes they read. */
function app() {
  const a = new Hono();
  a.onError((err, c) => {
    if (!(err instanceof DriveError)) throw err;
    return c.json({ code: err.code, message: err.message }, err.status as 413);
  });
  a.use(
    "*",
    limitBody({
      maxBytes: 10,
      base: "/v1",
      streamed: [{ method: "POST", path: /^\/upload$/ }],
    }),
  );
  const echo = async (c: { req: { arrayBuffer(): Promise<ArrayBuffer> } }) =>
    Response.json({ read: (await c.req.arrayBuffer()).byteLength });
  a.post("/v1/json", (c) => echo(c));
  a.post("/v1/text", async (c) => Response.json({ text: await c.req.text() }));
  a.post("/v1/parsed", async (c) => Response.json({ parsed: await c.req.json() }));
  a.post("/v1/upload", (c) => echo(c));
  a.get("/v1/json", (c) => c.text("ok"));
  return a;
}

/** A body without a known length: sent chunked. */
function stream(bytes: number): ReadableStream<Uint8Array> {
  return ReadableStream.from([new Uint8Array(bytes)]);
}

Deno.test("limitBody: a declared length over the limit is 413 naming both sizes", async () => {
  // In process, a Request carries no Content-Length unless given one (fetch adds it on the wire).
  const res = await app().request("/v1/json", {
    method: "POST",
    headers: { "content-length": "11" },
    body: new Uint8Array(11),
  });
  assert.equal(res.status, 413);
  const body = await res.json();
  assert.equal(body.code, "REQUEST_002");
  assert.match(body.message, /\(11 bytes\).*10-byte limit/);
});

Deno.test("limitBody: a chunked body is counted and refused past the limit", async () => {
  const over = await app().request("/v1/json", {
    method: "POST",
    body: stream(11),
    duplex: "half",
  } as RequestInit);
  assert.equal(over.status, 413);
  assert.match((await over.json()).message, /more than 10 bytes/);
  const fits = await app().request("/v1/json", {
    method: "POST",
    body: stream(10),
    duplex: "half",
  } as RequestInit);
  assert.deepEqual(await fits.json(), { read: 10 });
});

Deno.test("limitBody: bodies at the limit, GETs and streamed routes pass untouched", async () => {
  const a = app();
  const exact = await a.request("/v1/json", { method: "POST", body: new Uint8Array(10) });
  assert.deepEqual(await exact.json(), { read: 10 });
  assert.equal(await (await a.request("/v1/json")).text(), "ok");
  const upload = await a.request("/v1/upload", { method: "POST", body: new Uint8Array(1000) });
  assert.deepEqual(await upload.json(), { read: 1000 });
  // Only the named method is exempt.
  const other = await a.request("/v1/upload", { method: "PUT", body: new Uint8Array(1000) });
  assert.equal(other.status, 413);
});

const json = (body: BodyInit) => ({
  method: "POST",
  headers: { "content-type": "application/json; charset=utf-8" },
  body,
});

Deno.test("limitBody: a JSON body that is not UTF-8 is 400 REQUEST_005 naming the byte", async () => {
  const a = app();
  // {"n":"\xC3("}: C3 starts a two-byte character, "(" cannot continue it.
  const bad = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]);
  for (const path of ["/v1/text", "/v1/parsed"]) {
    const res = await a.request(path, json(bad));
    assert.equal(res.status, 400, path);
    const body = await res.json();
    assert.equal(body.code, "REQUEST_005");
    assert.match(body.message, /not valid UTF-8: byte 0xC3 at offset 6/);
  }
  // Valid UTF-8 reads the same through every reader; other media types are not decoded here.
  const good = new TextEncoder().encode('{"n":"é"}');
  assert.deepEqual(await (await a.request("/v1/parsed", json(good))).json(), {
    parsed: { n: "é" },
  });
  assert.deepEqual(await (await a.request("/v1/text", json(good))).json(), { text: '{"n":"é"}' });
  const plain = await a.request("/v1/json", { method: "POST", body: new Uint8Array([0xc3, 0x28]) });
  assert.deepEqual(await plain.json(), { read: 2 });
});

Deno.test("firstInvalidUtf8: where well-formed UTF-8 breaks (RFC 3629)", () => {
  const at = (...bytes: number[]) => firstInvalidUtf8(new Uint8Array(bytes));
  assert.equal(at(0x61, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80), -1);
  assert.equal(at(0xc3, 0x28), 0);
  assert.equal(at(0x61, 0xc3), 1); // cut short
  assert.equal(at(0xc0, 0xaf), 0); // overlong "/"
  assert.equal(at(0xe0, 0x80, 0xaf), 0); // overlong
  assert.equal(at(0xed, 0xa0, 0x80), 0); // a surrogate
  assert.equal(at(0xf4, 0x90, 0x80, 0x80), 0); // past U+10FFFF
  assert.equal(at(0x61, 0x80), 1); // a lone continuation byte
  assert.equal(at(0xff), 0);
});
