/**
 * Strict UTF-8 (issue 22, item 7): every JSON body is decoded with a fatal decoder, so bytes that
 * are not UTF-8 are a 400 naming the byte, never a name holding U+FFFD. Before, a folder named
 * with the bytes C3 28 was created as "\uFFFD(".
 */
import assert from "node:assert/strict";
import { concatBytes } from "../../lib/bytes.ts";
import { readJson } from "../helpers/http.ts";
import { newApiUser } from "../helpers/api.ts";
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { withServer } from "../helpers/server.ts";

/** `{"<field>":"<C3 28>"}`: C3 begins a two-byte character, and "(" cannot continue it. */
function badName(field: string): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  return concatBytes([enc.encode(`{"${field}":"`), new Uint8Array([0xc3, 0x28]), enc.encode('"}')]);
}

const json = (method: string, body: Uint8Array<ArrayBuffer>, headers: Record<string, string>) => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body,
});

Deno.test("strict UTF-8: drive, admin and public JSON bodies that are not UTF-8 are 400", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const drive = (method: string, path: string, field: string) =>
      alice.fetch(path, json(method, badName(field), {})).then(readJson);
    const admin = (method: string, path: string, field: string) =>
      fetch(
        `${server.url}/admin/api${path}`,
        json(method, badName(field), { authorization: `Bearer ${ADMIN_TOKEN}` }),
      ).then(readJson);
    const offset = /not valid UTF-8: byte 0xC3 at offset \d+/;

    const created = await drive("POST", "/folders", "fn");
    assert.equal(created.status, 400, JSON.stringify(created.body));
    assert.equal(created.body.errorCode, "REQUEST_005");
    assert.match(created.body.message, offset);

    const folder = await alice.newFolder("Plans");
    const renamed = await drive("PATCH", `/folders/${folder}/rename`, "rn");
    assert.equal(renamed.status, 400, JSON.stringify(renamed.body));
    assert.equal(renamed.body.errorCode, "REQUEST_005");

    const tenant = await admin("POST", "/tenants", "name");
    assert.equal(tenant.status, 400, JSON.stringify(tenant.body));
    assert.equal(tenant.body.error, "REQUEST_005");
    assert.match(tenant.body.message, offset);
    const patched = await admin("PATCH", `/tenants/${alice.tenantId}`, "name");
    assert.equal(patched.status, 400, JSON.stringify(patched.body));
    assert.equal(patched.body.error, "REQUEST_005");

    const unlock = await fetch(
      `${server.url}/public/v1/links/nope/access`,
      json("POST", badName("password"), {}),
    ).then(readJson);
    assert.equal(unlock.status, 400, JSON.stringify(unlock.body));
    assert.match(JSON.stringify(unlock.body), /REQUEST_005/);

    // Nothing was stored with a replacement mark; well-formed non-ASCII names still work.
    const accented = await alice.call("POST", "/folders", { fn: "Café (été)" });
    assert.equal(accented.status, 201);
    const stored = [];
    for await (const entry of server.kv.list({ prefix: [] })) stored.push(JSON.stringify(entry));
    assert.equal(stored.filter((e) => e.includes("\uFFFD")).length, 0);
    assert.ok(stored.some((e) => e.includes("Café (été)")));
    assert.ok(stored.some((e) => e.includes('"Plans"')));
    const tenantNow = await server.admin.call("GET", `/tenants/${alice.tenantId}`);
    assert.equal(tenantNow.body.name, "alice-org");
  });
});
