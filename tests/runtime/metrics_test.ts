/**
 * GET /metrics: counters that move with the traffic that feeds them (requests, latency, bytes,
 * provider operations, KV conflicts and retries, blob store totals, connections, memory), the
 * DRIVE_METRICS_TOKEN gate, and one registry per service.
 */
import assert from "node:assert/strict";
import { createMetrics } from "../../api/ops/metrics.ts";
import type { BlobStore } from "../../blobs/store.ts";
import type { DirectoryListing } from "../../provider/entries.ts";
import pLimit from "p-limit";
import { openListPool } from "../../provider/list_pool.ts";
import { commit, commitWithRetry, CONFLICT, observeCommits } from "../../kv/db.ts";
import { seqKey } from "../../kv/keys.ts";
import { newApiUser } from "../helpers/api.ts";
import { newProviderAdapter, providerRawRequest } from "../helpers/provider.ts";
import { type TestServer, withServer } from "../helpers/server.ts";

/** The value of one series (`name{labels}` exactly as exposed, labels sorted by prom-client). */
function sample(text: string, series: string): number {
  for (const line of text.split("\n")) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return 0;
}

async function scrape(server: TestServer, token?: string): Promise<string> {
  const res = await fetch(`${server.url}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
  return await res.text();
}

const HEALTHZ = 'drive_http_requests_total{method="GET",route="/healthz",status="200"}';

Deno.test("requests, latency, bytes, provider operations, blobs, connections and memory move", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const content = new Uint8Array(5000).fill(7);
    const rs = await alice.newFile("data.bin", content);
    const before = await scrape(server);

    for (let i = 0; i < 3; i++) await (await fetch(`${server.url}/healthz`)).body?.cancel();
    const download = await alice.fetch(`/files/${rs}/download`);
    assert.equal((await download.arrayBuffer()).byteLength, content.length);
    await alice.newFile("more.bin", content);
    const missing = await fetch(`${server.url}/no/such/${crypto.randomUUID()}`);
    await missing.body?.cancel();
    const adapter = await newProviderAdapter(server, "office");
    assert.equal((await adapter.client.info([])).ok, true);
    const refused = await providerRawRequest(server.url, adapter, {
      method: "GET",
      target: "/doc-storage/v1/info",
      jwt: "not.a.jwt",
    });
    assert.equal(refused!.status, 401);
    const after = await scrape(server);

    assert.equal(sample(after, HEALTHZ) - sample(before, HEALTHZ), 3);
    const route = '{method="GET",route="/api/external/v1/files/:resourceSeq/download"}';
    assert.equal(sample(after, `drive_http_request_duration_seconds_count${route}`), 1);
    assert.ok(sample(after, `drive_http_request_duration_seconds_sum${route}`) > 0);
    // The raw path of an unmatched request is no label: it would grow without bound.
    assert.equal(
      sample(after, 'drive_http_requests_total{method="GET",route="(unmatched)",status="404"}'),
      1,
    );
    assert.equal(after.includes("/no/such/"), false);
    const bytesIn = sample(after, "drive_http_request_bytes_total") -
      sample(before, "drive_http_request_bytes_total");
    assert.ok(bytesIn >= content.length, `bytes in ${bytesIn}`);
    const bytesOut = sample(after, "drive_http_response_bytes_total") -
      sample(before, "drive_http_response_bytes_total");
    assert.ok(bytesOut >= content.length, `bytes out ${bytesOut}`);
    assert.equal(
      sample(after, 'drive_provider_operations_total{operation="info",status="200"}'),
      1,
    );
    assert.equal(
      sample(after, 'drive_provider_operations_total{operation="info",status="401"}'),
      1,
    );
    // The first scrape listed the store (one file then); later ones reuse that within a minute.
    assert.equal(sample(before, 'drive_blob_store_objects{store="fs"}'), 1);
    assert.equal(sample(before, 'drive_blob_store_bytes{store="fs"}'), content.length);
    // The scrape itself is an open connection.
    assert.ok(sample(after, "drive_open_connections") >= 1);
    assert.ok(sample(after, "process_resident_memory_bytes") > 1_000_000);
    assert.ok(sample(after, 'deno_memory_heap_bytes{kind="used"}') > 0);
    // boot() feeds the listing gauge from the service's listing pool: nothing building now.
    assert.match(after, /^drive_listings\{state="waiting"\} 0$/m);
  });
});

Deno.test("listings building and waiting for their turn are gauged", async () => {
  const metrics = createMetrics(
    { kind: "kv", list: async function* () {} } as unknown as BlobStore,
  );
  const pool = openListPool(":memory:", 0, pLimit(1));
  metrics.countListingsWith(pool.counts);
  let finish = () => {};
  const held = new Promise<void>((open) => (finish = open));
  const listing = {} as DirectoryListing;
  const answers = [1, 2, 3].map(() =>
    pool.run(listing, async () => {
      await held;
      return new Uint8Array(0);
    })
  );
  await new Promise((r) => setTimeout(r, 10));
  const text = await metrics.registry.metrics();
  assert.equal(sample(text, 'drive_listings{state="building"}'), 1);
  assert.equal(sample(text, 'drive_listings{state="waiting"}'), 2);
  finish();
  await Promise.all(answers);
  assert.equal(
    sample(await metrics.registry.metrics(), 'drive_listings{state="waiting"}'),
    0,
  );
});

Deno.test("KV commit conflicts and retries are counted for the commits a request makes", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    // No blob is involved: a store that lists nothing.
    const metrics = createMetrics(
      { kind: "kv", list: async function* () {} } as unknown as BlobStore,
    );
    let attempts = 0;
    const value = await observeCommits(metrics.commits, () =>
      commitWithRetry(async () => {
        const entry = await kv.get<number>(seqKey("metrics-test"));
        // Another writer commits between this attempt's read and its commit, twice.
        if (++attempts <= 2) await kv.set(seqKey("metrics-test"), attempts * 10);
        const next = (entry.value ?? 0) + 1;
        const ok = await commit(kv.atomic().check(entry).set(seqKey("metrics-test"), next));
        return ok === true ? next : CONFLICT;
      }));
    assert.equal(attempts, 3);
    assert.equal(value, 21);
    const text = await metrics.registry.metrics();
    assert.equal(sample(text, "drive_kv_commit_conflicts_total"), 2);
    assert.equal(sample(text, 'drive_kv_commit_retries_total{reason="conflict"}'), 2);
    // Outside an observed scope nothing is counted (and nothing fails).
    await commitWithRetry(async () => {
      const entry = await kv.get<number>(seqKey("metrics-test"));
      if (attempts++ === 3) await kv.set(seqKey("metrics-test"), 0);
      const ok = await commit(kv.atomic().check(entry).set(seqKey("metrics-test"), 1));
      return ok === true ? 1 : CONFLICT;
    });
    assert.equal(sample(await metrics.registry.metrics(), "drive_kv_commit_conflicts_total"), 2);
  } finally {
    kv.close();
  }
});

Deno.test("DRIVE_METRICS_TOKEN gates /metrics; two services in one process count apart", async () => {
  const token = "metrics-token-0123456789";
  await withServer(async (a) => {
    await withServer(async (b) => {
      const none = await fetch(`${a.url}/metrics`);
      assert.equal(none.status, 401);
      assert.equal((await none.json()).error, "OPS_001");
      assert.match(none.headers.get("www-authenticate") ?? "", /^Bearer/);
      const wrong = await fetch(`${a.url}/metrics`, {
        headers: { authorization: `Bearer ${token}x` },
      });
      assert.equal(wrong.status, 401);
      await wrong.body?.cancel();

      for (let i = 0; i < 4; i++) await (await fetch(`${a.url}/healthz`)).body?.cancel();
      assert.equal(sample(await scrape(a, token), HEALTHZ), 4);
      assert.equal(sample(await scrape(b), HEALTHZ), 0);
    });
  }, { env: { DRIVE_METRICS_TOKEN: token } });
});
