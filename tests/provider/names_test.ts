/**
 * Names through the storage provider protocol: NFD and NFC path segments address one entry
 * (stored NFC), and a path segment or new name with a lone surrogate, a bidirectional control or
 * an invisible format character is 400 naming the character, before anything is stored.
 */
import assert from "node:assert/strict";
import { listResourcesOwnedBy } from "../../kv/tree/resources.ts";
import type { HostResult } from "../../provider/host/answers.ts";
import { withServer } from "../helpers/server.ts";
import { newProviderAdapter, octetBody, providerRawRequest } from "../helpers/provider.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const NFD = "Cafe\u0301.docx";
const NFC = "Caf\u00e9.docx";

function assertOk<T>(r: HostResult<T>, what: string): T {
  if (!r.ok) assert.fail(`${what}: ${r.status} ${r.problems.join("; ")}`);
  return r.value;
}

function assertRefused(r: HostResult<unknown>, cp: string, what: string) {
  assert.equal(r.status, 400, `${what}: ${JSON.stringify(r)}`);
  assert.ok(!r.ok && r.message.includes(cp), `${what}: ${!r.ok && r.message}`);
}

Deno.test("Provider: NFD and NFC segments are one entry, stored NFC, in either order", async () => {
  await withServer(async (server) => {
    for (const [first, second] of [[NFD, NFC], [NFC, NFD]]) {
      const { client, userSeq } = await newProviderAdapter(
        server,
        first === NFD ? "nfd-first" : "nfc-first",
      );
      const a = assertOk(await client.put([first], enc("one")), "put");
      const b = assertOk(await client.put([second], enc("two")), "put other spelling");
      assert.equal(b.docId, a.docId, "the second put is a new version of the same document");
      const entries = assertOk(await client.list([]), "list");
      assert.deepEqual(entries.map((e) => e.name), [NFC]);
      assert.equal(assertOk(await client.info([second]), "info")?.size, 3);
      // A folder in one spelling blocks the other.
      assertOk(await client.mkdir([], first.replace(".docx", "")), "mkdir");
      assert.equal((await client.mkdir([], second.replace(".docx", ""))).status, 409);
      const names = (await listResourcesOwnedBy(server.kv, userSeq)).map((r) => r.name).sort();
      assert.deepEqual(names, ["Caf\u00e9", NFC]);
    }
  });
});

Deno.test("Provider: lone surrogates, bidi controls and invisible characters in a path or name are 400", async () => {
  await withServer(async (server) => {
    const ad = await newProviderAdapter(server, "names");
    const { client } = ad;
    assertOk(await client.mkdir([], "dir"), "mkdir");
    assertOk(await client.put(["dir", "ok.txt"], enc("x")), "put");

    assertRefused(await client.put(["invoice\u202efdp.exe"], enc("x")), "U+202E", "put bidi");
    assertRefused(await client.put(["dir", "a\u200bb.txt"], enc("x")), "U+200B", "put ZWSP");
    assertRefused(await client.info(["dir\u2067"]), "U+2067", "info bidi");
    assertRefused(await client.mkdir([], "x\u202e"), "U+202E", "mkdir bidi");
    assertRefused(await client.mkdir([], "a\ud800b"), "U+D800", "mkdir lone surrogate");
    assertRefused(await client.rename(["dir", "ok.txt"], "\udfff.txt"), "U+DFFF", "rename");
    assertRefused(await client.rename(["dir"], "\ufeffdir"), "U+FEFF", "rename BOM");

    // A surrogate cannot even be percent-encoded as UTF-8: the decoder refuses it.
    const raw = await providerRawRequest(server.url, ad, {
      method: "PUT",
      target: "/doc-storage/v1/x%ED%A0%80.bin/put",
      ...octetBody(enc("x")),
    });
    assert.equal(raw?.status, 400);

    const names = (await listResourcesOwnedBy(server.kv, ad.userSeq)).map((r) => r.name).sort();
    assert.deepEqual(names, ["dir", "ok.txt"], "nothing else was stored");
  });
});
