/**
 * Storage provider protocol benchmark: info request rate and get/put throughput of a 100 MiB
 * document through the host client, against a real server process (`main.ts`), with the
 * server's peak RSS. Baselines from the same run: /healthz for the request rate, and a bare
 * Deno.serve process that hashes and discards (put) or streams from memory (get) for throughput.
 *
 *   deno run -A bench/provider.ts     (--json: machine-readable; --mib N: document size, default 100)
 */
import { createHash } from "node:crypto";
import { AdminClient } from "../tests/helpers/admin.ts";
import { newProviderAdapter } from "../tests/helpers/provider.ts";
import {
  ADMIN_TOKEN,
  currentRssMiB,
  freePort,
  median,
  numberArg,
  peakRssMiB,
  rate,
  resetPeak,
  timed,
  waitFor,
} from "./lib.ts";

const MIB = 1024 * 1024;
const DOC_BYTES = numberArg("mib", 100) * MIB;
const INFO_REQUESTS = 3000;
const CONCURRENCY = 8;
const ROUNDS = 3;

/** The baseline server: PUT hashes and discards the body, GET streams DOC_BYTES from memory. */
function baselineServer(port: number) {
  const chunk = new Uint8Array(MIB).fill(7);
  Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (req) => {
    if (req.method === "PUT") {
      const hash = createHash("sha256");
      for await (const c of req.body!) hash.update(c);
      return new Response(hash.digest("hex"));
    }
    if (new URL(req.url).pathname === "/healthz") return new Response("ok");
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent >= DOC_BYTES) return c.close();
        c.enqueue(chunk);
        sent += chunk.byteLength;
      },
    });
    return new Response(body, { headers: { "content-length": String(DOC_BYTES) } });
  });
}

function spawn(args: string[], env: Record<string, string>) {
  return new Deno.Command(Deno.execPath(), {
    args,
    env,
    cwd: new URL("..", import.meta.url).pathname,
    stdout: "null",
    stderr: "inherit",
  }).spawn();
}

/** Requests per second of `one`, from CONCURRENCY concurrent loops. */
const rateOf = async (n: number, one: () => Promise<void>) =>
  Math.round(await rate(n, CONCURRENCY, one));

const mibPerS = (bytes: number, ms: number) => Math.round(bytes / MIB / (ms / 1000));

async function main() {
  if (Deno.args[0] === "--baseline-server") return baselineServer(Number(Deno.args[1]));
  const dataDir = await Deno.makeTempDir({ prefix: "provider-bench-" });
  const port = freePort();
  const basePort = freePort();
  const url = `http://127.0.0.1:${port}`;
  const baseUrl = `http://127.0.0.1:${basePort}`;
  const server = spawn(["run", "-A", "main.ts"], {
    PORT: String(port),
    HOST: "127.0.0.1",
    DRIVE_DATA_DIR: dataDir,
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    DRIVE_PUBLIC_URL: url,
  });
  const baseline = spawn(
    [
      "run",
      "-A",
      "bench/provider.ts",
      "--baseline-server",
      String(basePort),
      "--mib",
      String(DOC_BYTES / MIB),
    ],
    {},
  );
  try {
    await Promise.all([waitFor(`${url}/healthz`), waitFor(`${baseUrl}/healthz`)]);
    const startRss = await currentRssMiB(server.pid);
    const { client } = await newProviderAdapter(
      { url, admin: new AdminClient(url, ADMIN_TOKEN) },
      "bench",
      { timeoutMs: 120_000 },
    );

    // Request rate: signed info of a small file vs. an unauthenticated /healthz.
    const small = await client.put(["small.txt"], new TextEncoder().encode("hello"));
    if (!small.ok) throw new Error(JSON.stringify(small));
    const healthzRate = await rateOf(INFO_REQUESTS, async () => {
      await (await fetch(`${url}/healthz`)).arrayBuffer();
    });
    const infoRate = await rateOf(INFO_REQUESTS, async () => {
      const r = await client.info(["small.txt"]);
      if (!r.ok) throw new Error(JSON.stringify(r));
    });
    const afterInfoRss = await peakRssMiB(server.pid);

    // Throughput of a 100 MiB document.
    const doc = new Uint8Array(DOC_BYTES);
    for (let i = 0; i < doc.byteLength; i += 4096) doc[i] = i & 0xff;
    const docHash = createHash("sha256").update(doc).digest("hex");
    const putMs: number[] = [];
    const getMs: number[] = [];
    const basePutMs: number[] = [];
    const baseGetMs: number[] = [];
    let peak = afterInfoRss;
    let putGrowth = 0;
    let getGrowth = 0;
    for (let round = 0; round < ROUNDS; round++) {
      basePutMs.push(
        await timed(async () => {
          await (await fetch(`${baseUrl}/put`, { method: "PUT", body: doc })).text();
        }),
      );
      await resetPeak(server.pid);
      let before = await currentRssMiB(server.pid);
      putMs.push(
        await timed(async () => {
          const r = await client.put(["big.bin"], doc, { saveType: "save" });
          if (!r.ok) throw new Error(JSON.stringify(r));
        }),
      );
      const putPeak = await peakRssMiB(server.pid);
      putGrowth = Math.max(putGrowth, putPeak - before);
      peak = Math.max(peak, putPeak);
      baseGetMs.push(
        await timed(async () => {
          const r = await fetch(`${baseUrl}/get`);
          for await (const _ of r.body!) { /* drain */ }
        }),
      );
      await resetPeak(server.pid);
      before = await currentRssMiB(server.pid);
      getMs.push(
        await timed(async () => {
          const r = await client.get(["big.bin"], { sink: () => {} });
          if (!r.ok || r.value.sha256 !== docHash) throw new Error(JSON.stringify(r));
        }),
      );
      const getPeak = await peakRssMiB(server.pid);
      getGrowth = Math.max(getGrowth, getPeak - before);
      peak = Math.max(peak, getPeak);
    }
    const endRss = await currentRssMiB(server.pid);
    const result = {
      infoRequestsPerS: infoRate,
      healthzRequestsPerS: healthzRate,
      putMiBPerS: mibPerS(DOC_BYTES, median(putMs)),
      baselinePutMiBPerS: mibPerS(DOC_BYTES, median(basePutMs)),
      getMiBPerS: mibPerS(DOC_BYTES, median(getMs)),
      baselineGetMiBPerS: mibPerS(DOC_BYTES, median(baseGetMs)),
      serverRssAtStartMiB: startRss,
      serverPeakRssAfterInfoMiB: afterInfoRss,
      serverPeakRssMiB: peak,
      serverRssAtEndMiB: endRss,
      putPeakRssGrowthMiB: putGrowth,
      getPeakRssGrowthMiB: getGrowth,
    };
    if (Deno.args.includes("--json")) console.log(JSON.stringify(result));
    else console.table(result);
  } finally {
    server.kill("SIGTERM");
    baseline.kill("SIGTERM");
    await Promise.all([server.status, baseline.status]);
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
}

await main();
