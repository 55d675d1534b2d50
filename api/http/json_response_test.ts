import assert from "node:assert/strict";
import { Hono } from "hono";
import { jsonResponse, knownBodySize, utf8Length } from "./json_response.ts";

Deno.test("utf8Length counts UTF-8 bytes of ASCII, accented, CJK, emoji and long text", () => {
  const encoder = new TextEncoder();
  const samples = [
    "",
    '{"fn":"report.txt"}',
    "résumé",
    "보고서.docx",
    "📁 folder",
    "a".repeat(5000) + "é",
    "가".repeat(400_000), // past the scratch buffer's cap
  ];
  for (const text of samples) {
    assert.equal(utf8Length(text), encoder.encode(text).byteLength, text.slice(0, 20));
  }
});

Deno.test("jsonResponse sends c.json's bytes and headers; its size is known, a bare c.json's not", async () => {
  const app = new Hono();
  const value = { fn: "보고서 📁.docx", size: 3, nested: { ok: true } };
  app.get("/helper", (c) => {
    c.header("cache-control", "no-store");
    return jsonResponse(c, value, 201);
  });
  app.get("/plain", (c) => {
    c.header("cache-control", "no-store");
    return c.json(value, 201);
  });
  const helper = await app.request("/helper");
  const plain = await app.request("/plain");
  const bytes = new Uint8Array(await helper.arrayBuffer());
  assert.equal(helper.status, 201);
  assert.deepEqual(bytes, new Uint8Array(await plain.arrayBuffer()));
  assert.equal(knownBodySize(helper), bytes.byteLength);
  assert.equal(knownBodySize(plain), undefined);
  assert.deepEqual([...helper.headers], [...plain.headers]);
  assert.equal(helper.headers.get("cache-control"), "no-store");
  assert.deepEqual(JSON.parse(new TextDecoder().decode(bytes)), value);
});
