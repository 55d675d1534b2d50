/**
 * The one name rule through the drive API (kv/tree/resources.ts validateName): a multipart
 * filename must be valid UTF-8, names must not hold lone surrogates, bidirectional controls or
 * invisible format characters (RESOURCE_004 naming the character and the field), and names are
 * stored NFC and unique per folder whichever normalization form the client sends.
 */
import assert from "node:assert/strict";
import { listResourcesOwnedBy } from "../../kv/tree/resources.ts";
import { withServer } from "../helpers/server.ts";
import { ApiUser, newApiUser } from "../helpers/api.ts";
import { type JsonResponse, readJson } from "../helpers/http.ts";

const NFD = "Cafe\u0301.txt";
const NFC = "Caf\u00e9.txt";

/** A one-file upload whose Content-Disposition parameter bytes are given raw (any bytes). */
function rawUpload(user: ApiUser, disposition: Uint8Array) {
  const enc = new TextEncoder();
  const boundary = "----names-test-boundary";
  const body = new Uint8Array([
    ...enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; `),
    ...disposition,
    ...enc.encode(`\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`),
  ]);
  return user.fetch("/files", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
    body,
  }).then(readJson);
}

Deno.test("Upload: a filename that is not valid UTF-8 is RESOURCE_004 naming filename, never U+FFFD", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));
    const bad: [string, number[]][] = [
      ["a stray continuation byte", [...ascii('filename="bad'), 0x80, ...ascii('.txt"')]],
      ["0xFF", [...ascii('filename="bad'), 0xff, ...ascii('.txt"')]],
      ["a truncated sequence", [...ascii('filename="caf'), 0xc3, ...ascii('.txt"')]],
      ["an encoded surrogate", [...ascii('filename="x'), 0xed, 0xa0, 0x80, ...ascii('.txt"')]],
      ["an overlong slash", [...ascii('filename="a'), 0xc0, 0xaf, ...ascii('b.txt"')]],
      ["filename* with %FF", ascii("filename*=UTF-8''bad%FF.txt")],
      ["filename* with an encoded surrogate", ascii("filename*=UTF-8''x%ED%A0%80.txt")],
    ];
    for (const [what, bytes] of bad) {
      const res = await rawUpload(alice, new Uint8Array(bytes));
      assert.equal(res.status, 400, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.errorCode, "RESOURCE_004", what);
      assert.match(res.body.message, /^filename is not valid UTF-8/, what);
    }
    assert.deepEqual(await listResourcesOwnedBy(server.kv, alice.userSeq), [], "nothing stored");
    // Valid UTF-8 bytes in the quoted filename, as browsers send them, still work.
    const ok = await rawUpload(
      alice,
      new TextEncoder().encode('filename="caf\u00e9 \u{1F600}.txt"'),
    );
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(ok.body.data.resourceName, "caf\u00e9 \u{1F600}.txt");
  });
});

Deno.test("Bidi controls, invisible characters and lone surrogates are refused wherever a name is given", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const spoof = "invoice\u202efdp.exe";
    const expectRefused = (res: JsonResponse, field: string, cp: string) => {
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.errorCode, "RESOURCE_004");
      assert.ok(res.body.message.startsWith(`${field} must not contain`), res.body.message);
      assert.ok(res.body.message.includes(cp), res.body.message);
    };
    expectRefused(await alice.call("POST", "/folders", { fn: spoof }), "fn", "U+202E");
    expectRefused(await alice.upload(spoof, "x"), "filename", "U+202E");
    expectRefused(await alice.upload("a\u200bb.txt", "x"), "filename", "U+200B");
    const folder = await alice.newFolder("Plans");
    const file = await alice.newFile("plan.txt", "x");
    expectRefused(
      await alice.call("PATCH", `/folders/${folder}/rename`, { rn: "Pl\u2066ans" }),
      "rn",
      "U+2066",
    );
    expectRefused(
      await alice.call("PATCH", `/files/${file}/rename`, { rn: spoof }),
      "rn",
      "U+202E",
    );
    // JSON.stringify writes a lone surrogate as the escape \ud800, which JSON.parse gives back.
    expectRefused(await alice.call("POST", "/folders", { fn: "a\ud800b" }), "fn", "U+D800");
    expectRefused(
      await alice.call("PATCH", `/files/${file}/rename`, { rn: "x\udc00.txt" }),
      "rn",
      "U+DC00",
    );
    const names = (await listResourcesOwnedBy(server.kv, alice.userSeq)).map((r) => r.name);
    assert.deepEqual(names.sort(), ["Plans", "plan.txt"]);
  });
});

Deno.test("NFD and NFC spellings are one name: stored NFC, and the second is a conflict", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    for (const [first, second] of [[NFD, NFC], [NFC, NFD]]) {
      const parent = await alice.newFolder(`order ${first === NFD ? "NFD first" : "NFC first"}`);
      const created = await alice.call("POST", "/folders", { fn: first, pfs: parent });
      assert.equal(created.status, 201);
      assert.equal(created.body.data.resourceName, NFC, "stored NFC");
      const again = await alice.call("POST", "/folders", { fn: second, pfs: parent });
      assert.equal(again.status, 409, JSON.stringify(again.body));
      assert.equal(again.body.errorCode, "RESOURCE_003");
      // A file renamed to the other spelling collides too; an upload gets a numbered name.
      const other = await alice.newFile("other.txt", "x", parent);
      const renamed = await alice.call("PATCH", `/files/${other}/rename`, { rn: second });
      assert.equal(renamed.status, 409, JSON.stringify(renamed.body));
      assert.equal(renamed.body.errorCode, "RESOURCE_003");
      const uploaded = await alice.upload(second, "y", { pfs: parent });
      assert.equal(uploaded.status, 201);
      assert.equal(uploaded.body.data.resourceName, "Caf\u00e9 (1).txt");
    }
    const stored = (await listResourcesOwnedBy(server.kv, alice.userSeq)).map((r) => r.name);
    assert.ok(stored.every((n) => n === n.normalize("NFC")), JSON.stringify(stored));
  });
});
