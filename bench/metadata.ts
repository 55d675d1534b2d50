/**
 * Metadata speed of the service beside its peer, in one run: sequential folder creates (keep-alive,
 * one client) against `rclone serve webdav` MKCOL on a scratch directory; all pages of a
 * 10,000-entry folder (1,000 per page) against rclone PROPFIND Depth 1; and folder creates from
 * 1 and from 3 server processes on one KV file. Each server runs alone while it is measured.
 * Compare with bench/kv_ceiling.ts (the store alone), run just before, and with the create floor
 * (bench/serve_create_floor.ts: one getMany and one 3-key commit per create over bare HTTP).
 *
 *   deno run -A bench/metadata.ts     (--json; --creates N default 2000; --entries N default 10000)
 *   deno run -A bench/metadata.ts --creates-only   (the ceiling, sequential creates and MKCOL)
 * Needs rclone (`apt-get install -y rclone`).
 */
import { AdminClient } from "../tests/helpers/admin.ts";
import {
  ADMIN_TOKEN,
  freePort,
  median,
  numberArg,
  peakRssMiB,
  startApp,
  startServer,
  waitFor,
} from "./lib.ts";

const CREATES = numberArg("creates", 2000);
const ENTRIES = numberArg("entries", 10_000);
const REPS = 3;
const LIST_REPS = 5;
const MULTI_MS = 5000;
const CLIENTS_PER_PROCESS = 16;
const json = Deno.args.includes("--json");
const CREATES_ONLY = Deno.args.includes("--creates-only");
const root = new URL("..", import.meta.url).pathname;

async function newKey(url: string): Promise<string> {
  const admin = new AdminClient(url, ADMIN_TOKEN);
  const tenant = await admin.createTenant(`bench-${crypto.randomUUID().slice(0, 8)}`);
  const user = await admin.createUser(tenant.id, `bench-${crypto.randomUUID().slice(0, 8)}`, {
    quotaBytes: 1024 ** 3,
  });
  return await admin.createKey(user.userSeq);
}

function api(url: string, key: string) {
  return async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/external/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body ? { "content-type": "application/json" } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
}

async function createFolder(call: ReturnType<typeof api>, fn: string, pfs?: number) {
  const r = await call("POST", "/folders", { fn, ...(pfs ? { pfs } : {}) });
  if (r.status !== 201) throw new Error(`create ${fn}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data.resourceSeq as number;
}

/** Sequential creates per second into a fresh folder, median of REPS. */
async function serviceCreates(call: ReturnType<typeof api>): Promise<number> {
  const rates: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const parent = await createFolder(call, `creates-${rep}`);
    const t = performance.now();
    for (let i = 0; i < CREATES; i++) await createFolder(call, `f${i}`, parent);
    rates.push(CREATES / ((performance.now() - t) / 1000));
  }
  return Math.round(median(rates));
}

/**
 * The HTTP floor of the same server and client: sequential `GET /healthz` (request log, metrics,
 * routing, a JSON answer; no KV), median of REPS. A create can be no faster than this.
 */
async function healthzFloor(url: string): Promise<number> {
  const rates: number[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    const t = performance.now();
    for (let i = 0; i < CREATES; i++) await (await fetch(`${url}/healthz`)).arrayBuffer();
    rates.push(CREATES / ((performance.now() - t) / 1000));
  }
  return Math.round(median(rates));
}

/**
 * The floor of any create over HTTP here (bench/serve_create_floor.ts: a bare server doing one
 * getMany and one 3-key commit per create), measured with this script's client, median of REPS.
 */
async function createFloor(): Promise<number> {
  const kvDir = await Deno.makeTempDir({ prefix: "create-floor-" });
  const floor = await startServer(`${root}bench/serve_create_floor.ts`, [`${kvDir}/floor.kv`]);
  try {
    const call = api(floor.url, "floor-key");
    const rates: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const t = performance.now();
      for (let i = 0; i < CREATES; i++) await createFolder(call, `f${rep}-${i}`);
      rates.push(CREATES / ((performance.now() - t) / 1000));
    }
    return Math.round(median(rates));
  } finally {
    await floor.stop();
    await Deno.remove(kvDir, { recursive: true });
  }
}

/** All pages of a folder of ENTRIES entries: total ms and first-page ms, medians. */
async function serviceListing(call: ReturnType<typeof api>) {
  const parent = await createFolder(call, "big");
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < ENTRIES) {
      await createFolder(call, `entry-${String(next++).padStart(6, "0")}`, parent);
    }
  }));
  const totals: number[] = [];
  const firsts: number[] = [];
  for (let rep = 0; rep < LIST_REPS; rep++) {
    let cursor: string | null = null;
    let seen = 0;
    const t = performance.now();
    do {
      const q = new URLSearchParams({ pfs: String(parent), ps: "1000" });
      if (cursor) q.set("cursor", cursor);
      const page = await call("GET", `/resources?${q}`);
      if (seen === 0) firsts.push(performance.now() - t);
      seen += page.body.data.items.length;
      cursor = page.body.data.nextCursor;
    } while (cursor);
    totals.push(performance.now() - t);
    if (seen !== ENTRIES) throw new Error(`listed ${seen} of ${ENTRIES}`);
  }
  return { allPagesMs: median(totals), firstPageMs: median(firsts) };
}

/** rclone serve webdav on a scratch directory: MKCOL rate and PROPFIND Depth 1 of ENTRIES. */
async function rclonePeer(listing: boolean) {
  const scratch = await Deno.makeTempDir({ prefix: "rclone-peer-" });
  // Made before rclone starts: its VFS caches directory listings it has read.
  await Deno.mkdir(`${scratch}/big`);
  for (let i = 0; listing && i < ENTRIES; i++) {
    await Deno.mkdir(`${scratch}/big/entry-${String(i).padStart(6, "0")}`);
  }
  const port = freePort();
  const child = new Deno.Command("rclone", {
    args: ["serve", "webdav", scratch, "--addr", `127.0.0.1:${port}`],
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`${url}/`, {
      init: { method: "PROPFIND", headers: { depth: "0" } },
      anyAnswer: true,
    });
    const rates: number[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      await (await fetch(`${url}/creates-${rep}`, { method: "MKCOL" })).body?.cancel();
      const t = performance.now();
      for (let i = 0; i < CREATES; i++) {
        const r = await fetch(`${url}/creates-${rep}/f${i}`, { method: "MKCOL" });
        await r.body?.cancel();
        if (r.status !== 201) throw new Error(`MKCOL ${r.status}`);
      }
      rates.push(CREATES / ((performance.now() - t) / 1000));
    }
    const lists: number[] = [];
    for (let rep = 0; listing && rep < LIST_REPS; rep++) {
      const t = performance.now();
      const r = await fetch(`${url}/big/`, { method: "PROPFIND", headers: { depth: "1" } });
      const text = await r.text();
      lists.push(performance.now() - t);
      // One response per entry plus the folder itself.
      const n = (text.match(/<(\w+:)?response>/gi) ?? []).length - 1;
      if (n !== ENTRIES) throw new Error(`PROPFIND ${r.status} listed ${n}`);
    }
    return { mkcolPerSec: Math.round(median(rates)), propfindMs: listing ? median(lists) : NaN };
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(scratch, { recursive: true });
  }
}

/** Folder creates from `clients` loops per process for MULTI_MS; creates/s and non-201s. */
async function createLoad(urls: string[], key: string, clients: number) {
  let ok = 0;
  const failures: number[] = [];
  const end = performance.now() + MULTI_MS;
  const start = performance.now();
  await Promise.all(urls.flatMap((url, pi) => {
    const call = api(url, key);
    return Array.from({ length: clients }, async (_, w) => {
      for (let i = 0; performance.now() < end; i++) {
        const r = await call("POST", "/folders", { fn: `m${urls.length}-${pi}-${w}-${i}` });
        if (r.status === 201) ok++;
        else failures.push(r.status);
      }
    });
  }));
  return { perSec: Math.round(ok / ((performance.now() - start) / 1000)), failures };
}

/** bench/kv_ceiling.ts in this run, so every ratio has its store ceiling measured beside it. */
async function kvCeiling(): Promise<Record<string, number>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      `${root}bench/kv_ceiling.ts`,
      "--json",
      ...(CREATES_ONLY ? ["--procs", "1"] : []),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

const dir = await Deno.makeTempDir({ prefix: "metadata-bench-" });
try {
  const ceiling = await kvCeiling();
  const service = await startApp(dir);
  const key = await newKey(service.url);
  const call = api(service.url, key);
  const creates = await serviceCreates(call);
  const healthz = await healthzFloor(service.url);
  // Alone: the service stays up but idle while the floor server is measured.
  const floor = await createFloor();
  // The creates and their ceilings, the same in both reports.
  const createFigures = (mkcolPerSec: number) => ({
    kvSequentialCommitsPerSec: ceiling.sequentialCommitsPerSec,
    // The store's own rate for a commit with a create's 11 mutations (kv_ceiling.ts).
    kvCreateShapedCommitsPerSec: ceiling.sequentialCreateShapedCommitsPerSec,
    createShapedVsKvCommit: Number(
      (ceiling.sequentialCreateShapedCommitsPerSec / ceiling.sequentialCommitsPerSec).toFixed(2),
    ),
    healthzPerSec: healthz,
    createsPerSec: creates,
    createVsKvCommit: Number((creates / ceiling.sequentialCommitsPerSec).toFixed(2)),
    createVsCreateShapedCommit: Number(
      (creates / ceiling.sequentialCreateShapedCommitsPerSec).toFixed(2),
    ),
    createVsHealthz: Number((creates / healthz).toFixed(2)),
    // What no design can beat: one getMany and one 3-key commit per create over HTTP.
    floorCreatesPerSec: floor,
    floorVsKvCommit: Number((floor / ceiling.sequentialCommitsPerSec).toFixed(2)),
    floorVsRclone: Number((floor / mkcolPerSec).toFixed(2)),
    createVsFloor: Number((creates / floor).toFixed(2)),
    rcloneMkcolPerSec: mkcolPerSec,
    createVsRclone: Number((creates / mkcolPerSec).toFixed(2)),
  });
  if (CREATES_ONLY) {
    await service.stop();
    const peer = await rclonePeer(false);
    const result = createFigures(peer.mkcolPerSec);
    if (json) console.log(JSON.stringify(result));
    else for (const [k, v] of Object.entries(result)) console.log(`${k.padEnd(36)} ${v}`);
    await Deno.remove(dir, { recursive: true });
    Deno.exit(0);
  }
  const listing = await serviceListing(call);
  const rss = await peakRssMiB(service.pid);
  // Multi-process: first the one process alone, then three on the same KV file.
  const one = await createLoad([service.url], key, CLIENTS_PER_PROCESS * 3);
  const more = [await startApp(dir), await startApp(dir)];
  const three = await createLoad(
    [service.url, ...more.map((s) => s.url)],
    key,
    CLIENTS_PER_PROCESS,
  );
  for (const s of [service, ...more]) await s.stop();
  const peer = await rclonePeer(true);
  const result = {
    ...createFigures(peer.mkcolPerSec),
    kvScan10000Ms: ceiling.scan10000Ms,
    kvThreeProcessRatio: ceiling.multiProcessRatio,
    list10000AllPagesMs: Number(listing.allPagesMs.toFixed(1)),
    list10000FirstPageMs: Number(listing.firstPageMs.toFixed(1)),
    rclonePropfindMs: Number(peer.propfindMs.toFixed(1)),
    listVsRclone: Number((listing.allPagesMs / peer.propfindMs).toFixed(2)),
    oneProcess48ClientsPerSec: one.perSec,
    threeProcesses16ClientsEachPerSec: three.perSec,
    multiProcessRatio: Number((three.perSec / one.perSec).toFixed(2)),
    clientErrors: [...one.failures, ...three.failures].length,
    serverPeakRssMiB: rss,
  };
  if (json) console.log(JSON.stringify(result));
  else for (const [k, v] of Object.entries(result)) console.log(`${k.padEnd(36)} ${v}`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
