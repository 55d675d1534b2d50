/**
 * How many KV reads a WebDAV PUT makes (docs/benchmarks.md, "WebDAV, remaining targets"): every
 * read is a round trip to the store, and a small PUT's time is mostly those waits. The reads are
 * counted on the app's own Deno.Kv (the server runs in this process); the change feed's and the
 * webhooks' background work is left out, since it runs beside requests, not in them.
 */
import assert from "node:assert/strict";
import { newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";
import { davAs, driveUrl } from "./client.ts";

type Reader = Pick<Deno.Kv, "get" | "getMany">;

/** The get/getMany calls `fn` makes on `kv` (the keys' families), background work left out. */
async function readsDuring(kv: Deno.Kv, fn: () => Promise<void>): Promise<string[][]> {
  const calls: string[][] = [];
  const own = kv as unknown as Reader;
  const { get, getMany } = own;
  const families = (keys: Deno.KvKey[]) => keys.map((k) => String(k[0]));
  const background = (f: string[]) => f.some((x) => /^(event|webhook)/.test(x));
  const note = (keys: Deno.KvKey[]) => {
    if (!background(families(keys))) calls.push(families(keys));
  };
  own.get = ((key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) => {
    note([key]);
    return get.call(kv, key, o);
  }) as Deno.Kv["get"];
  own.getMany = ((keys: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) => {
    note(keys);
    return getMany.call(kv, keys, o);
  }) as Deno.Kv["getMany"];
  try {
    await fn();
  } finally {
    own.get = get;
    own.getMany = getMany;
  }
  return calls;
}

async function status(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.body?.cancel();
  return r.status;
}

Deno.test("a PUT of a new file into a folder reads KV 6 times: auth 2, walk 2 (owner state beside), commit 1", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    assert.equal(await status(davAs(alice, "MKCOL", driveUrl(alice, "docs"))), 201);
    const reads = await readsDuring(server.kv, async () => {
      const put = davAs(alice, "PUT", driveUrl(alice, "docs/a.txt"), {}, "hello");
      assert.equal(await status(put), 201);
    });
    // Was 14: the owner, the parent, the usage and the lock stamp each read on their own, twice.
    assert.ok(reads.length <= 6, `${reads.length} reads: ${JSON.stringify(reads)}`);
    const res = await davAs(alice, "GET", driveUrl(alice, "docs/a.txt"));
    assert.equal(await res.text(), "hello");
  });
});

Deno.test("a PUT over an existing file (a new version) reads the owner's state once per step", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    assert.equal(await status(davAs(alice, "PUT", driveUrl(alice, "b.txt"), {}, "one")), 201);
    const reads = await readsDuring(server.kv, async () => {
      assert.equal(await status(davAs(alice, "PUT", driveUrl(alice, "b.txt"), {}, "two")), 204);
    });
    const flat = reads.flat();
    // The user and the usage are read once before the bytes (one getMany), once in the commit.
    assert.ok(flat.filter((f) => f === "user").length <= 1, JSON.stringify(reads));
    assert.ok(flat.filter((f) => f === "usage").length <= 2, JSON.stringify(reads));
    const res = await davAs(alice, "GET", driveUrl(alice, "b.txt"));
    assert.equal(await res.text(), "two");
  });
});
