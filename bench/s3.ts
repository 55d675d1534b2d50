/**
 * The s3 blob store against a plain S3 client on the same SeaweedFS in the same run:
 *   deno run -A bench/s3.ts [--mib 256] [--runs 3]
 * Upload: BlobStore.write (blobs/s3.ts: KV marker, SHA-256, 8 MiB parts, at most two in flight,
 * marker cleared) against aws4fetch alone doing the same multipart upload (8 MiB parts, two in
 * flight, no hash, no KV). Download: BlobStore.read's stream against aws4fetch's GET, both read
 * to the end. The body comes from memory (1 MiB pieces of a 16 MiB random block), so the disk of
 * this machine is only SeaweedFS's. Rounds alternate which goes first; medians are reported, with
 * this process's peak RSS growth during the store's transfers (sampled every 20 ms).
 * Target (issue 26): the store moves >= 0.8x what the plain client does, each way.
 */
import { AwsClient } from "aws4fetch";
import { openWriteLeases } from "../blobs/leases.ts";
import { openS3BlobStore, PART_SIZE } from "../blobs/s3.ts";
import { openS3Client } from "../blobs/s3_client.ts";
import { s3StoreKeys } from "../kv/keys.ts";
import { startS3Server } from "../tests/helpers/s3_server.ts";
import { median, MiB, numberArg } from "./lib.ts";

const SIZE = numberArg("mib", 256) * MiB;
const RUNS = numberArg("runs", 3);
const UNSIGNED = { "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD" };

const block = new Uint8Array(16 * MiB);
for (let off = 0; off < block.length; off += 65_536) {
  crypto.getRandomValues(block.subarray(off, off + 65_536));
}

/** SIZE bytes in 1 MiB pieces (what a network body looks like to the store, coarsely). */
function body(): ReadableStream<Uint8Array> {
  let done = 0;
  return new ReadableStream({
    pull(c) {
      if (done >= SIZE) return c.close();
      const at = done % block.length;
      c.enqueue(block.slice(at, at + MiB));
      done += MiB;
    },
  });
}

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const chunk of stream) n += chunk.byteLength;
  return n;
}

/** Runs `fn`, returning its MiB/s for SIZE bytes and the RSS growth (MiB) it peaked at. */
async function measure(fn: () => Promise<unknown>): Promise<{ rate: number; rss: number }> {
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 20);
  const t = performance.now();
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - t) / 1000;
  return { rate: SIZE / MiB / seconds, rss: (peak - before) / MiB };
}

const server = await startS3Server();
const kvDir = await Deno.makeTempDir({ prefix: "bench-s3-" });
const kv = await Deno.openKv(`${kvDir}/drive.kv`);
try {
  const bucket = await server.newBucket();
  const settings = {
    endpoint: server.endpoint,
    bucket,
    region: "us-east-1",
    pathStyle: true,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
  };
  const store = openS3BlobStore(
    kv,
    openS3Client(settings),
    s3StoreKeys,
    openWriteLeases(kv, s3StoreKeys.lease, "s3"),
  );
  const aws = new AwsClient({ ...settings, service: "s3" });
  const url = (key: string, q = "") => `${server.endpoint}/${bucket}/${key}${q}`;

  /** The plain client's multipart upload: the same parts and parallelism, nothing else. */
  const plainUpload = async (key: string): Promise<void> => {
    const created = await aws.fetch(url(key, "?uploads"), { method: "POST", headers: UNSIGNED });
    const uploadId = /<UploadId>(.*?)<\/UploadId>/.exec(await created.text())![1];
    const q = (n: number) => `?partNumber=${n}&uploadId=${encodeURIComponent(uploadId)}`;
    const etags: Promise<string>[] = [];
    let part = new Uint8Array(PART_SIZE);
    let fill = 0;
    let waited = 0;
    const send = (bytes: Uint8Array<ArrayBuffer>) => {
      const n = etags.length + 1;
      etags.push(
        aws.fetch(url(key, q(n)), { method: "PUT", headers: UNSIGNED, body: bytes }).then(
          async (res) => {
            await res.body?.cancel();
            if (!res.ok) throw new Error(`part ${n}: ${res.status}`);
            return res.headers.get("ETag")!;
          },
        ),
      );
    };
    for await (const chunk of body()) {
      part.set(chunk, fill);
      fill += chunk.byteLength;
      if (fill === PART_SIZE) {
        send(part);
        part = new Uint8Array(PART_SIZE);
        fill = 0;
        while (etags.length - waited >= 2) await etags[waited++];
      }
    }
    if (fill > 0) send(part.subarray(0, fill));
    const parts = (await Promise.all(etags)).map((e, i) =>
      `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`
    ).join("");
    const done = await aws.fetch(url(key, `?uploadId=${encodeURIComponent(uploadId)}`), {
      method: "POST",
      headers: UNSIGNED,
      body: `<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>`,
    });
    const text = await done.text();
    if (!done.ok || text.includes("<Error>")) throw new Error(`complete: ${text}`);
  };

  const rows = {
    storeUp: [],
    plainUp: [],
    storeDown: [],
    plainDown: [],
    upRss: [],
    downRss: [],
    plainUpRss: [],
  } as Record<string, number[]>;
  // One unmeasured round first: SeaweedFS grows its first volumes on the first writes.
  for (let round = -1; round < RUNS; round++) {
    let blobId = "";
    const key = `plain/${round}`;
    // Who goes first alternates: a volume SeaweedFS grows, or a collection, hits both alike.
    const storeUp = () => measure(async () => (blobId = (await store.write(body())).blobId));
    const plainUp = () => measure(() => plainUpload(key));
    const [su, pu] = round % 2 === 0
      ? [await storeUp(), await plainUp()]
      : await plainUp().then(async (p) => [await storeUp(), p]);
    const storeDown = () =>
      measure(async () => {
        if (await drain(await store.read(blobId)) !== SIZE) throw new Error("short read");
      });
    const plainDown = () =>
      measure(async () => {
        const res = await aws.fetch(url(key), { headers: UNSIGNED });
        if (await drain(res.body!) !== SIZE) throw new Error("short plain read");
      });
    const [sd, pd] = round % 2 === 0
      ? [await storeDown(), await plainDown()]
      : await plainDown().then(async (p) => [await storeDown(), p]);
    await store.delete(blobId);
    await (await aws.fetch(url(key), { method: "DELETE", headers: UNSIGNED })).body?.cancel();
    if (round < 0) continue;
    rows.storeUp.push(su.rate);
    rows.plainUp.push(pu.rate);
    rows.storeDown.push(sd.rate);
    rows.plainDown.push(pd.rate);
    rows.upRss.push(su.rss);
    rows.downRss.push(sd.rss);
    rows.plainUpRss.push(pu.rss);
    console.log(
      `round ${round + 1}: up store ${su.rate.toFixed(0)} / plain ${pu.rate.toFixed(0)} MiB/s, ` +
        `down store ${sd.rate.toFixed(0)} / plain ${pd.rate.toFixed(0)} MiB/s`,
    );
  }
  const m = (name: string) => median(rows[name]);
  console.log(`\n${SIZE / MiB} MiB, median of ${RUNS} rounds (SeaweedFS on 127.0.0.1):`);
  console.log(
    `upload:   store ${m("storeUp").toFixed(0)} MiB/s, plain aws4fetch ${
      m("plainUp").toFixed(0)
    } MiB/s, ratio ${(m("storeUp") / m("plainUp")).toFixed(2)} (target >= 0.8)`,
  );
  console.log(
    `download: store ${m("storeDown").toFixed(0)} MiB/s, plain aws4fetch ${
      m("plainDown").toFixed(0)
    } MiB/s, ratio ${(m("storeDown") / m("plainDown")).toFixed(2)} (target >= 0.8)`,
  );
  console.log(
    `peak RSS growth of this process: store up ${m("upRss").toFixed(0)} MiB, down ${
      m("downRss").toFixed(0)
    } MiB; plain up ${m("plainUpRss").toFixed(0)} MiB`,
  );
} finally {
  kv.close();
  await server.stop();
  await Deno.remove(kvDir, { recursive: true });
}
