import assert from "node:assert/strict";
import { Hono } from "hono";
import { DriveError } from "../../kv/errors.ts";
import { limitBody } from "./body_limit.ts";

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
