/**
 * The listing worker (provider/list_pool.ts): with DRIVE_LIST_WORKERS on a KV file, `list`
 * answers are built on worker threads, byte for byte the answer the main thread builds, with the
 * same refusals (a 413 thrown inside the worker), and the service closes its workers.
 */
import assert from "node:assert/strict";
import { readConfig } from "../../config.ts";
import pLimit from "p-limit";
import { openListPool } from "../../provider/list_pool.ts";
import type { DirectoryListing } from "../../provider/entries.ts";
import { startTestServer, withServer } from "../helpers/server.ts";
import { newProviderAdapter } from "../helpers/provider.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A listing for the pool's own tests (its `inThread` answers; no worker reads it). */
const listingOf = () =>
  ({
    adapter: {
      name: "a",
      userSeq: 1,
      folderSeq: null,
      operations: [],
      readOnly: true,
      createdAt: 0,
      disabled: false,
    },
    ownerSeq: 1,
    parentRs: null,
    dirPath: "",
    maxDocBytes: 1024,
  }) as unknown as DirectoryListing;

async function rawList(
  url: string,
  ad: Awaited<ReturnType<typeof newProviderAdapter>>,
  dir: string[],
) {
  const res = await fetch(`${url}${ad.client.pathFor("list", dir)}`, {
    headers: ad.client.signedHeaders("list", dir, { bytes: null }),
  });
  return { status: res.status, text: await res.text() };
}

Deno.test("a list built on the listing workers is the answer the main thread builds", async () => {
  // Two services on one KV file (one secrets key): one lists on 2 workers, one on its main thread.
  const dir = await Deno.makeTempDir({ prefix: "list-workers-" });
  const env = { DRIVE_SECRETS_KEY: btoa(String.fromCharCode(...new Uint8Array(32).fill(9))) };
  const kvPath = `${dir}/drive.kv`;
  const workers = await startTestServer({ kvPath, env: { ...env, DRIVE_LIST_WORKERS: "2" } });
  const inThread = await startTestServer({ kvPath, env: { ...env, DRIVE_LIST_WORKERS: "0" } });
  try {
    const ad = await newProviderAdapter(workers, "pool", {
      operations: ["put", "mkdir", "list", "lock", "unlock"],
    });
    assert.equal((await ad.client.mkdir([], "docs")).ok, true);
    for (let i = 0; i < 40; i++) {
      assert.equal((await ad.client.put(["docs", `f-${i}.txt`], enc(`body ${i}`))).ok, true);
    }
    assert.equal((await ad.client.mkdir(["docs"], "sub")).ok, true);
    assert.equal((await ad.client.lock(["docs", "f-3.txt"], "editor")).ok, true);
    // Several lists at once, spread over both workers.
    const fromWorkers = await Promise.all(
      [1, 2, 3, 4].map(() => rawList(workers.url, ad, ["docs"])),
    );
    const fromMain = await rawList(inThread.url, ad, ["docs"]);
    assert.equal(fromMain.status, 200);
    for (const r of fromWorkers) {
      assert.equal(r.status, 200);
      assert.equal(r.text, fromMain.text);
    }
    const entries = JSON.parse(fromMain.text).entries as { name: string; locked: boolean }[];
    assert.equal(entries.length, 41);
    assert.equal(entries.find((e) => e.name === "f-3.txt")?.locked, true);
  } finally {
    await workers.close();
    await inThread.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a refusal thrown on a listing worker answers as it would in-thread (413)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "list-worker-" });
  try {
    await withServer(async (server) => {
      const ad = await newProviderAdapter(server, "big", { operations: ["put", "list"] });
      assert.equal((await ad.client.put(["small.txt"], enc("ok"))).ok, true);
      // Over the provider's document limit once stored through the drive: not describable.
      const big = new Uint8Array(2048).fill(1);
      const form = new FormData();
      form.append("file", new Blob([big]), "big.bin");
      const key = await server.admin.createKey(ad.userSeq);
      const up = await fetch(`${server.url}/api/external/v1/files`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      assert.equal(up.status, 201, await up.text());
      const r = await rawList(server.url, ad, []);
      assert.equal(r.status, 413);
      assert.match(r.text, /larger than the provider's limit/);
      // The worker is still there for the next listing.
      assert.equal((await rawList(server.url, ad, [])).status, 413);
    }, {
      kvPath: `${dir}/drive.kv`,
      env: { DRIVE_LIST_WORKERS: "1", DRIVE_PROVIDER_MAX_DOC_BYTES: "1024" },
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("listing workers run only over a KV file and when asked for", async () => {
  // Without workers the pool builds every answer with `inThread`: never on a worker.
  for (const [kvPath, workers] of [[":memory:", 2], ["https://kv.example/db", 2], ["/x.kv", 0]]) {
    const pool = openListPool(kvPath as string, workers as number, pLimit(2));
    const answer = await pool.run(listingOf(), () => Promise.resolve(enc("in-thread")));
    assert.equal(new TextDecoder().decode(answer), "in-thread");
    pool.close();
  }
  const pool = openListPool("/tmp/x.kv", 1, pLimit(2));
  pool.close(); // Never started: nothing to stop, and no listing is pending.
  assert.equal(readConfig({}).listWorkers, 0);
  assert.equal(readConfig({ DRIVE_LIST_WORKERS: "3" }).listWorkers, 3);
  assert.equal(readConfig({}).listConcurrency, 2);
  assert.throws(() => readConfig({ DRIVE_LIST_CONCURRENCY: "0" }), /DRIVE_LIST_CONCURRENCY/);
});

Deno.test("the pool builds at most its share of listings at once; the rest wait their turn", async () => {
  const pool = openListPool(":memory:", 0, pLimit(2));
  let building = 0;
  let most = 0;
  const gates: (() => void)[] = [];
  const answers = Array.from({ length: 6 }, (_, i) =>
    pool.run(listingOf(), async () => {
      building++;
      most = Math.max(most, building);
      await new Promise<void>((open) => gates.push(open));
      building--;
      return enc(`answer ${i}`);
    }));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(pool.counts(), { building: 2, waiting: 4 });
  // Each finished listing lets one waiting listing start.
  while (gates.length > 0) {
    gates.shift()!();
    await new Promise((r) => setTimeout(r, 5));
  }
  const texts = (await Promise.all(answers)).map((a) => new TextDecoder().decode(a));
  assert.deepEqual(texts, [0, 1, 2, 3, 4, 5].map((i) => `answer ${i}`));
  assert.equal(most, 2);
  assert.deepEqual(pool.counts(), { building: 0, waiting: 0 });
});

Deno.test("a listing worker that cannot work hands the listing back to the main thread", async () => {
  const dir = await Deno.makeTempDir({ prefix: "list-worker-bad-" });
  // A KV path the worker cannot open: inside a regular file.
  await Deno.writeTextFile(`${dir}/not-a-dir`, "x");
  const pool = openListPool(`${dir}/not-a-dir/drive.kv`, 1, pLimit(2));
  try {
    const listing = listingOf();
    let fellBack = 0;
    const answer = await pool.run(listing, () => {
      fellBack++;
      return Promise.resolve(enc('{"entries":[]}'));
    });
    assert.equal(fellBack, 1);
    assert.equal(new TextDecoder().decode(answer), '{"entries":[]}');
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});
