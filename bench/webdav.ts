/**
 * WebDAV side by side with `rclone serve webdav` (Debian's rclone) in the same run
 * (docs/benchmarks.md): PROPFIND Depth 1 of a collection of `--entries` members (default 10,000;
 * total time, time to the first byte, the server's RSS growth) and `--mkcol` sequential MKCOLs
 * (default 2,000), medians of `--runs` (default 3). The drive runs as bench/serve_app.ts (fs
 * blobs, KV file). The MKCOLs also go to the create floor (bench/serve_create_floor.ts --sets 9: a
 * bare `Deno.serve` doing one `getMany` and one 9-key commit per MKCOL, as many keys as a create
 * of the drive commits), so the ratio any design could reach here shows beside the drive's.
 * Usage: deno run -A bench/webdav.ts [--entries N] [--mkcol N] [--runs N]
 * [--names-only] (PROPFIND of displayname and resourcetype instead of allprop)
 */
import {
  benchApiKey,
  currentRssMiB,
  freePort,
  median,
  numberArg,
  peakRssMiB,
  resetPeak,
  startApp,
  startServer,
  waitFor,
} from "./lib.ts";

const ENTRIES = numberArg("entries", 10_000);
const MKCOLS = numberArg("mkcol", 2_000);
const RUNS = numberArg("runs", 3);
const BODY = Deno.args.includes("--names-only")
  ? `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:displayname/><D:resourcetype/></D:prop></D:propfind>`
  : `<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>`;

interface Target {
  name: string;
  base: string;
  auth: string;
  pid: number;
}

async function send(
  t: Target,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
) {
  const res = await fetch(t.base + path, {
    method,
    headers: { authorization: t.auth, ...headers },
    body,
  });
  return res;
}

/** MKCOLs one after another: per second. */
async function mkcolRate(t: Target, prefix: string, n: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const res = await send(t, "MKCOL", `${prefix}/d${i}`);
    await res.body?.cancel();
    if (res.status !== 201) throw new Error(`${t.name} MKCOL: ${res.status}`);
  }
  return n / ((performance.now() - started) / 1000);
}

/** One PROPFIND Depth 1 of `path`: total ms, first-byte ms, members seen. */
async function propfind(t: Target, path: string) {
  const started = performance.now();
  const res = await send(
    t,
    "PROPFIND",
    path,
    { depth: "1", "content-type": "application/xml" },
    BODY,
  );
  const reader = res.body!.getReader();
  let first = 0;
  let count = 0;
  const decoder = new TextDecoder();
  let tail = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (!first) first = performance.now() - started;
    // A tail shorter than the tag carried over: a tag cut between two reads is counted once.
    const text = tail + decoder.decode(value, { stream: true });
    count += (text.match(/<D:response>|<d:response>/g) ?? []).length;
    tail = text.slice(-11);
  }
  return { total: performance.now() - started, first, count };
}

async function measure(t: Target, listPath: string) {
  const runs = [];
  const before = await currentRssMiB(t.pid);
  await resetPeak(t.pid);
  for (let i = 0; i < RUNS; i++) runs.push(await propfind(t, listPath));
  const growth = (await peakRssMiB(t.pid)) - before;
  return {
    total: median(runs.map((r) => r.total)),
    first: median(runs.map((r) => r.first)),
    members: runs[0].count - 1,
    rssGrowth: growth,
  };
}

const dir = await Deno.makeTempDir({ prefix: "bench-webdav-" });
const rcloneDir = await Deno.makeTempDir({ prefix: "bench-rclone-" });
const app = await startApp(dir);
const floor = await startServer(new URL("./serve_create_floor.ts", import.meta.url).pathname, [
  `${dir}/floor.kv`,
  "--sets",
  "9",
]);
const port = freePort();
const rclone = new Deno.Command("rclone", {
  args: ["serve", "webdav", rcloneDir, "--addr", `127.0.0.1:${port}`, "--config", "/dev/null"],
  stdout: "null",
  stderr: "null",
}).spawn();
try {
  await waitFor(`http://127.0.0.1:${port}/`, { anyAnswer: true });
  const key = await benchApiKey(app.url, 1e12);
  const drive: Target = {
    name: "drive",
    base: `${app.url}/dav/files/bench`,
    auth: `Bearer ${key}`,
    pid: app.pid,
  };
  const rc: Target = {
    name: "rclone",
    base: `http://127.0.0.1:${port}`,
    auth: "",
    pid: rclone.pid,
  };

  const results: Record<string, Record<string, number>> = {};
  const floorTarget: Target = {
    name: "floor",
    base: floor.url,
    auth: "Bearer floor-key",
    pid: floor.pid,
  };
  // The floor's MKCOLs, medians of RUNS rounds (its MKCOLs are fast: a median steadies it).
  const floorRates = [];
  for (let i = 0; i < RUNS; i++) floorRates.push(await mkcolRate(floorTarget, `/f${i}`, MKCOLS));
  const floorMkcol = median(floorRates);
  for (const t of [drive, rc]) {
    await (await send(t, "MKCOL", "/mk")).body?.cancel();
    await (await send(t, "MKCOL", "/big")).body?.cancel();
    const mkcol = await mkcolRate(t, "/mk", MKCOLS);
    // The big collection: rclone's on disk directly; the drive's through MKCOL (8 at a time).
    if (t === rc) {
      for (let i = 0; i < ENTRIES; i++) await Deno.mkdir(`${rcloneDir}/big/e${i}`);
    } else {
      for (let i = 0; i < ENTRIES; i += 8) {
        await Promise.all(Array.from({ length: Math.min(8, ENTRIES - i) }, async (_, j) => {
          const res = await send(t, "MKCOL", `/big/e${i + j}`);
          await res.body?.cancel();
        }));
      }
    }
    const list = await measure(t, "/big/");
    results[t.name] = { mkcolPerS: Math.round(mkcol), ...list };
  }
  console.log(JSON.stringify(results, null, 2));
  const r = (k: string) => (results.drive[k] / results.rclone[k]).toFixed(2);
  console.log(
    `PROPFIND Depth 1 of ${ENTRIES}: drive ${results.drive.total.toFixed(0)} ms (first byte ` +
      `${results.drive.first.toFixed(1)} ms, RSS +${results.drive.rssGrowth} MiB), rclone ` +
      `${results.rclone.total.toFixed(0)} ms: ${r("total")}× rclone's time`,
  );
  console.log(
    `${MKCOLS} sequential MKCOL: drive ${results.drive.mkcolPerS}/s, rclone ` +
      `${results.rclone.mkcolPerS}/s: ${r("mkcolPerS")}× rclone; the create floor ` +
      `${Math.round(floorMkcol)}/s: ${
        (floorMkcol / results.rclone.mkcolPerS).toFixed(2)
      }× rclone, ` +
      `the drive ${(results.drive.mkcolPerS / floorMkcol).toFixed(2)}× the floor`,
  );
} finally {
  rclone.kill("SIGTERM");
  await rclone.status;
  await app.stop();
  await floor.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await Deno.remove(rcloneDir, { recursive: true }).catch(() => {});
}
