/**
 * Folder ZIP throughput and memory (issue 13): one folder of many small files plus a few big ones
 * (2,000 files of 1-32 KiB and 200 MiB in 4 files by default), downloaded through
 * `GET /folders/download` from the real app (bench/serve_app.ts, fs blob store) over HTTP. In the
 * same run, the baseline: client-zip alone, in this process, over the very same blob files of the
 * server's data directory (opened lazily, as the service does), its output counted and dropped.
 * The server's RSS growth is its /proc high-water mark during a download minus its RSS before it
 * (the mark is reset through /proc/<pid>/clear_refs first); its CPU per download (utime + stime),
 * which load on the machine disturbs less than the rate, is reported beside client-zip's own.
 *
 *   deno run -A bench/folder_zip.ts [--small 2000] [--big-mib 200] [--reps 5] [--json]
 *     [--before <dir>]   also serve the same data from another checkout (its bench/serve_app.ts),
 *                        measured alternately with this one: a before/after in one run.
 *     [--data <dir>]     keep the data directory there, and reuse it when it is already built.
 */
import { downloadZip } from "client-zip";
import { AdminClient } from "../tests/helpers/admin.ts";
import { testBytes } from "../tests/helpers/bytes.ts";
import { ADMIN_TOKEN, cpuMs, median, numberArg, procKiB, startApp, stringArg } from "./lib.ts";

const SMALL = numberArg("small", 2000);
const BIG_MIB = numberArg("big-mib", 200);
const BIG_FILES = 4;
const REPS = numberArg("reps", 5);
const BEFORE = stringArg("before") ?? "";
const DATA = stringArg("data") ?? "";
const json = Deno.args.includes("--json");
const here = new URL("..", import.meta.url).pathname;

/** Deterministic bytes that do not compress to nothing (the ZIP stores, but keep it honest). */
const bytesOf = (size: number, seed: number) => testBytes(size, seed * 2654435761);

/** The folder: SMALL files of 1-32 KiB, BIG_FILES files sharing BIG_MIB. Returns its rs. */
async function buildFolder(url: string): Promise<{ key: string; folder: number }> {
  const admin = new AdminClient(url, ADMIN_TOKEN);
  const tenant = await admin.createTenant("zip-bench");
  const user = await admin.createUser(tenant.id, "zip-bench", { quotaBytes: 64 * 1024 ** 3 });
  const key = await admin.createKey(user.userSeq);
  const call = (path: string, init: RequestInit) =>
    fetch(`${url}/api/external/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...init.headers },
    });
  const made = await call("/folders", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ fn: "zip-bench" }),
  });
  const folder = (await made.json()).data.resourceSeq as number;
  const upload = async (name: string, bytes: Uint8Array<ArrayBuffer>) => {
    const form = new FormData();
    form.append("pfs", String(folder));
    form.append("file", new Blob([bytes]), name);
    const res = await call("/files", { method: "POST", body: form });
    if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
  };
  const bigSize = Math.floor(BIG_MIB * 1024 * 1024 / BIG_FILES);
  const big = bytesOf(bigSize, 99);
  for (let i = 0; i < BIG_FILES; i++) {
    big[0] = i; // distinct contents
    await upload(`big-${i}.bin`, big);
  }
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < SMALL) {
      const i = next++;
      await upload(
        `small-${String(i).padStart(5, "0")}.txt`,
        bytesOf(1024 + (i * 7919) % 31744, i),
      );
    }
  }));
  return { key, folder };
}

/** Downloads the folder's ZIP once: MB/s (10^6 bytes) and the byte count. */
async function zipOnce(url: string, key: string, folder: number) {
  const t0 = performance.now();
  const link = await fetch(`${url}/api/external/v1/folders/${folder}/download-token`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const linkUrl = (await link.json()).data.linkUrl as string;
  const res = await fetch(`${url}${linkUrl}`);
  if (res.status !== 200) throw new Error(`zip: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body!) bytes += chunk.byteLength;
  if (bytes !== Number(res.headers.get("content-length"))) throw new Error("short ZIP");
  return { mbPerSec: bytes / 1e6 / ((performance.now() - t0) / 1000), bytes };
}

/** client-zip alone over the blob files under `dir` (each opened when its turn comes). */
async function clientZipAlone(dir: string) {
  const files: { path: string; size: number }[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (/^[0-9a-f]{32}$/.test(e.name)) {
        files.push({ path: p, size: (await Deno.stat(p)).size });
      }
    }
  };
  await walk(dir);
  async function* inputs() {
    for (const [i, f] of files.entries()) {
      yield { name: `zip-bench/f${i}`, size: f.size, input: (await Deno.open(f.path)).readable };
    }
  }
  const t0 = performance.now();
  const cpu0 = await cpuMs("self");
  let bytes = 0;
  for await (const chunk of downloadZip(inputs()).body!) bytes += chunk.byteLength;
  const cpu = await cpuMs("self") - cpu0;
  return { mbPerSec: bytes / 1e6 / ((performance.now() - t0) / 1000), files: files.length, cpu };
}

const dir = DATA || await Deno.makeTempDir({ prefix: "zip-bench-" });
const builtMarker = `${dir}/zip-bench.json`;
const servers: { name: string; root: string }[] = [{ name: "service", root: here }];
if (BEFORE) servers.push({ name: "before", root: BEFORE });
try {
  // Build the data with this checkout, then serve it with each checkout in turn.
  let built: { key: string; folder: number };
  try {
    built = JSON.parse(await Deno.readTextFile(builtMarker));
  } catch {
    await Deno.mkdir(dir, { recursive: true });
    const builder = await startApp(dir, here);
    built = await buildFolder(builder.url);
    await builder.stop();
    if (DATA) await Deno.writeTextFile(builtMarker, JSON.stringify(built));
  }
  const { key, folder } = built;

  const rates: Record<string, number[]> = { clientZipAlone: [] };
  const cpu: Record<string, number[]> = { clientZipAlone: [] };
  const growth: Record<string, number[]> = {};
  let zipBytes = 0;
  let blobFiles = 0;
  for (let rep = 0; rep < REPS; rep++) {
    const alone = await clientZipAlone(dir);
    rates.clientZipAlone.push(alone.mbPerSec);
    cpu.clientZipAlone.push(alone.cpu);
    blobFiles = alone.files;
    // Alternate the order so neither side always runs right after the baseline.
    const order = rep % 2 === 0 ? servers : [...servers].reverse();
    for (const s of order) {
      const service = await startApp(dir, s.root);
      try {
        await zipOnce(service.url, key, folder); // warm-up: JIT and page cache
        await Deno.writeTextFile(`/proc/${service.pid}/clear_refs`, "5");
        const before = await procKiB(service.pid, "VmRSS");
        const cpu0 = await cpuMs(service.pid);
        const run = await zipOnce(service.url, key, folder);
        (cpu[s.name] ??= []).push(await cpuMs(service.pid) - cpu0);
        const peak = await procKiB(service.pid, "VmHWM");
        (rates[s.name] ??= []).push(run.mbPerSec);
        (growth[s.name] ??= []).push((peak - before) / 1024);
        zipBytes = run.bytes;
      } finally {
        await service.stop();
      }
    }
  }
  const result: Record<string, number | string> = {
    load: (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" "),
    files: blobFiles,
    zipMB: Number((zipBytes / 1e6).toFixed(1)),
    clientZipAloneMBps: Math.round(median(rates.clientZipAlone)),
  };
  for (const s of servers) {
    result[`${s.name}MBps`] = Math.round(median(rates[s.name]));
    result[`${s.name}VsClientZip`] = Number(
      (median(rates[s.name]) / median(rates.clientZipAlone)).toFixed(2),
    );
    result[`${s.name}CpuMs`] = median(cpu[s.name]);
    result[`${s.name}RssGrowthMiB`] = Number(median(growth[s.name]).toFixed(1));
    result[`${s.name}RssGrowthMaxMiB`] = Number(Math.max(...growth[s.name]).toFixed(1));
    result[`${s.name}AllMBps`] = rates[s.name].map(Math.round).join(" ");
  }
  result.clientZipAloneCpuMs = median(cpu.clientZipAlone);
  result.clientZipAloneAllMBps = rates.clientZipAlone.map(Math.round).join(" ");
  if (json) console.log(JSON.stringify(result));
  else for (const [k, v] of Object.entries(result)) console.log(`${k.padEnd(28)} ${v}`);
} finally {
  if (!DATA) await Deno.remove(dir, { recursive: true });
}
