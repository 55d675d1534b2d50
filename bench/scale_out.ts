/**
 * Scale-out (issue 26), in one run against a real denokv and a real SeaweedFS on 127.0.0.1:
 *   deno run -A bench/scale_out.ts [--only commit,metadata,bytes,cpu,memory,mixed] [--mib 256]
 *     [--runs 3]
 *     [--memory-mib 1024] [--mixed-s 20] [--clients 8]
 * - commit: the floor under every KV Connect figure: a bare `kv.get` loop and `kv.set` commits of
 *   100 B to 8 KB, on denokv and on a SQLite file (median ms of 40 each).
 * - bytes: 256 MiB up (multipart POST /files) and down (GET /files/{rs}/download) through main.ts
 *   with the s3 store on denokv, against the same file PUT and GET straight to the same bucket;
 *   curl is the client of both (`--aws-sigv4` for the bucket), alternating who goes first.
 * - cpu: where an upload's time goes: CPU time (/proc/<pid>/stat) of main.ts and of SeaweedFS for
 *   one `--mib` upload through main.ts on the s3 store, through a second main.ts on the fs store,
 *   and straight to the bucket.
 * - memory: one 1 GiB file up and down through the same main.ts with curl, the server's VmRSS
 *   sampled every 50 ms (target: < 64 MiB growth).
 * - mixed: `--clients` loops (create a folder, upload 256 KiB into it, list it, download the
 *   file) for `--mixed-s` seconds against one host, then split over two hosts on the same denokv
 *   and bucket: operations per second in aggregate, and the CPU each process used.
 * - metadata: bench/kv_connect.ts (folder create, provider list of 1,000, provider info; SQLite
 *   file against denokv, median ms per request), run as a child process with `--rounds`.
 */
import { startDenoKv } from "../tests/helpers/denokv_server.ts";
import { startS3Server } from "../tests/helpers/s3_server.ts";
import { cpuMs, median, MiB, numberArg, stringArg } from "./lib.ts";
import {
  bytesOf,
  drain,
  type Host,
  hostUser,
  multipartBody,
  rssDuring,
  startHost,
} from "./scale_out_lib.ts";

const ONLY = (stringArg("only") ?? "commit,metadata,bytes,cpu,memory,mixed").split(",");
const SIZE = numberArg("mib", 256) * MiB;
const RUNS = numberArg("runs", 3);
const MEMORY_SIZE = numberArg("memory-mib", 1024) * MiB;
const MIXED_MS = numberArg("mixed-s", 20) * 1000;
const CLIENTS = numberArg("clients", 8);

const block = new Uint8Array(16 * MiB);
for (let off = 0; off < block.length; off += 65_536) {
  crypto.getRandomValues(block.subarray(off, off + 65_536));
}

async function medianMs(n: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(i);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

async function commitSizes(denokvUrl: string): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench-scale-commit-" });
  const stores = { "SQLite file": `${dir}/drive.kv`, denokv: denokvUrl };
  const sizes = [100, 500, 900, 1_000, 2_000, 4_000, 8_000];
  console.log("\n## commit: median ms of 40 sequential calls\n");
  console.log(`| call | ${Object.keys(stores).join(" | ")} |`);
  console.log(`|---|${Object.keys(stores).map(() => "---:").join("|")}|`);
  const kvs = await Promise.all(Object.values(stores).map((p) => Deno.openKv(p)));
  try {
    const row = async (label: string, op: (kv: Deno.Kv, i: number) => Promise<unknown>) => {
      const cells = [];
      for (const kv of kvs) cells.push((await medianMs(40, (i) => op(kv, i))).toFixed(2));
      console.log(`| ${label} | ${cells.join(" | ")} |`);
    };
    await row("get", (kv, i) => kv.get(["bench", i % 8]));
    for (const size of sizes) {
      const value = "x".repeat(size);
      await row(`set of ${size} B`, (kv, i) => kv.set(["bench", i % 8], value));
    }
  } finally {
    for (const kv of kvs) kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** bench/kv_connect.ts's rows (its own denokv and servers), as a table. */
async function metadata(): Promise<void> {
  const { stdout, success } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./kv_connect.ts", import.meta.url).pathname, "--json"]
      .concat(["--rounds", String(RUNS)]),
    stderr: "inherit",
  }).output();
  if (!success) throw new Error("bench/kv_connect.ts failed");
  const text = new TextDecoder().decode(stdout).trim().split("\n").at(-1)!;
  const rows = JSON.parse(text) as { op: string; sqliteMs: number; denokvMs: number }[];
  console.log(`\n## metadata: median ms per request, ${RUNS} rounds (bench/kv_connect.ts)\n`);
  console.log("| operation | SQLite file | denokv | ratio |");
  console.log("|---|---:|---:|---:|");
  for (const r of rows) {
    console.log(
      `| ${r.op} | ${r.sqliteMs} | ${r.denokvMs} | ×${(r.denokvMs / r.sqliteMs).toFixed(1)} |`,
    );
  }
}

interface Rig {
  host: Host;
  key: string;
  api: (path: string, init?: RequestInit) => Promise<Response>;
  s3: { objectUrl: (key: string) => string; user: string };
}

/** A small upload through fetch (the mixed load's clients). */
async function upload(rig: Rig, size: number, name: string, folder?: number): Promise<number> {
  const { body, contentType } = multipartBody(block, size, name, folder);
  const res = await rig.api("/files", {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
  const json = await res.json();
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${JSON.stringify(json)}`);
  return json.data.resourceSeq;
}

async function download(rig: Rig, rs: number): Promise<number> {
  const res = await rig.api(`/files/${rs}/download`);
  if (!res.ok) throw new Error(`download: ${res.status}`);
  return await drain(res.body!);
}

/**
 * curl, the one client of every big transfer (to the service and straight to the bucket alike;
 * Deno's fetch with a streamed body moved a third of curl's rate here): its stdout, whose last
 * line is "<status> <bytes up> <bytes down>", and the seconds it took.
 */
async function curl(args: string[]): Promise<{ out: string; seconds: number }> {
  const t = performance.now();
  const { stdout, success } = await new Deno.Command("curl", {
    args: ["-sS", "-w", "\n%{http_code} %{size_upload} %{size_download}", ...args],
    stderr: "inherit",
  }).output();
  const seconds = (performance.now() - t) / 1000;
  const out = new TextDecoder().decode(stdout);
  const status = out.slice(out.lastIndexOf("\n") + 1).split(" ")[0];
  if (!success || !status.startsWith("2")) throw new Error(`curl ${args.at(-1)}: ${out}`);
  return { out, seconds };
}

/** `size` bytes of the random block written to a temp file (curl's upload source). */
async function fileOf(size: number): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "bench-scale-", suffix: ".bin" });
  const file = await Deno.open(path, { write: true });
  for await (const chunk of bytesOf(block, size)) await file.write(chunk);
  file.close();
  return path;
}

const oursUp = async (rig: Rig, path: string, name: string) => {
  const r = await curl([
    "-H",
    `authorization: Bearer ${rig.key}`,
    "-F",
    `file=@${path};filename=${name}`,
    `${rig.host.url}/api/external/v1/files`,
  ]);
  return { ...r, rs: JSON.parse(r.out.slice(0, r.out.lastIndexOf("\n"))).data.resourceSeq };
};
const oursDown = (rig: Rig, rs: number) =>
  curl([
    "-o",
    "/dev/null",
    "-H",
    `authorization: Bearer ${rig.key}`,
    `${rig.host.url}/api/external/v1/files/${rs}/download`,
  ]);
const sigv4 = (rig: Rig) => [
  "--aws-sigv4",
  "aws:amz:us-east-1:s3",
  "--user",
  rig.s3.user,
  "-H",
  "x-amz-content-sha256: UNSIGNED-PAYLOAD",
];
const plainUp = (rig: Rig, path: string, key: string) =>
  curl([...sigv4(rig), "-o", "/dev/null", "-T", path, rig.s3.objectUrl(key)]);
const plainDown = (rig: Rig, key: string) =>
  curl([...sigv4(rig), "-o", "/dev/null", rig.s3.objectUrl(key)]);

async function bytes(rig: Rig): Promise<void> {
  const path = await fileOf(SIZE);
  const rows: Record<string, number[]> = { up: [], plainUp: [], down: [], plainDown: [] };
  const rate = (s: number) => SIZE / MiB / s;
  try {
    // One unmeasured round first: SeaweedFS grows its first volumes on the first writes.
    for (let round = -1; round < RUNS; round++) {
      const key = `plain/${round}`;
      let rs = 0;
      const ours = async () => {
        const r = await oursUp(rig, path, `big-${round}.bin`);
        rs = r.rs;
        return r.seconds;
      };
      const plain = async () => (await plainUp(rig, path, key)).seconds;
      const [su, pu] = round % 2 === 0
        ? [await ours(), await plain()]
        : await plain().then(async (p) => [await ours(), p]);
      const od = async () => (await oursDown(rig, rs)).seconds;
      const pdn = async () => (await plainDown(rig, key)).seconds;
      const [sd, pd] = round % 2 === 0
        ? [await od(), await pdn()]
        : await pdn().then(async (p) => [await od(), p]);
      await (await rig.api(`/files/${rs}/delete`, { method: "PATCH" })).body?.cancel();
      if (round < 0) continue;
      rows.up.push(rate(su));
      rows.plainUp.push(rate(pu));
      rows.down.push(rate(sd));
      rows.plainDown.push(rate(pd));
      console.log(
        `round ${round + 1}: up ${rate(su).toFixed(0)} / plain ${rate(pu).toFixed(0)} MiB/s, ` +
          `down ${rate(sd).toFixed(0)} / plain ${rate(pd).toFixed(0)} MiB/s`,
      );
    }
  } finally {
    await Deno.remove(path);
  }
  const m = (k: string) => median(rows[k]);
  console.log(`\n## bytes: ${SIZE / MiB} MiB with curl, median of ${RUNS} rounds\n`);
  console.log("| way | through main.ts (s3 store) | straight to the bucket | ratio | target |");
  console.log("|---|---:|---:|---:|---|");
  for (const [way, a, b] of [["upload", "up", "plainUp"], ["download", "down", "plainDown"]]) {
    console.log(
      `| ${way} | ${m(a).toFixed(0)} MiB/s | ${m(b).toFixed(0)} MiB/s | ${
        (m(a) / m(b)).toFixed(2)
      } | ≥ 0.8 |`,
    );
  }
}

/** SeaweedFS's process: this process's child running weed. */
async function weedPid(): Promise<number> {
  const { stdout } = await new Deno.Command("pgrep", { args: ["-P", String(Deno.pid), "weed"] })
    .output();
  return Number(new TextDecoder().decode(stdout).trim().split("\n")[0]);
}

async function cpu(rig: Rig, fsRig: Rig): Promise<void> {
  const path = await fileOf(SIZE);
  const weed = await weedPid();
  const row = async (what: string, pid: number | null, run: () => Promise<unknown>) => {
    const [m0, w0] = [pid ? await cpuMs(pid) : 0, await cpuMs(weed)];
    const t = performance.now();
    await run();
    const wall = (performance.now() - t) / 1000;
    const main = pid ? `${(await cpuMs(pid)) - m0} ms` : "(none)";
    console.log(`| ${what} | ${wall.toFixed(1)} s | ${main} | ${(await cpuMs(weed)) - w0} ms |`);
  };
  try {
    console.log(`\n## cpu: one ${SIZE / MiB} MiB upload with curl\n`);
    console.log("| upload | wall | main.ts CPU | SeaweedFS CPU |");
    console.log("|---|---:|---:|---:|");
    await row("through main.ts, s3 store", rig.host.pid, () => oursUp(rig, path, "cpu.bin"));
    await row("through main.ts, fs store", fsRig.host.pid, () => oursUp(fsRig, path, "cpu.bin"));
    await row("curl PUT straight to the bucket", null, () => plainUp(rig, path, "plain/cpu"));
  } finally {
    await Deno.remove(path);
  }
}

async function memory(rig: Rig): Promise<void> {
  const path = await fileOf(MEMORY_SIZE);
  try {
    const up = await rssDuring(rig.host.pid, () => oursUp(rig, path, "huge.bin"));
    const down = await rssDuring(rig.host.pid, () => oursDown(rig, up.value.rs));
    await (await rig.api(`/files/${up.value.rs}/delete`, { method: "PATCH" })).body?.cancel();
    console.log(`\n## memory: one ${MEMORY_SIZE / MiB} MiB file, server VmRSS every 50 ms\n`);
    console.log("| way | MiB/s | RSS before | peak | growth (target < 64 MiB) |");
    console.log("|---|---:|---:|---:|---:|");
    for (const [way, r] of [["upload", up], ["download", down]] as const) {
      console.log(
        `| ${way} | ${(MEMORY_SIZE / MiB / r.seconds).toFixed(0)} | ${r.before.toFixed(0)} MiB | ${
          r.peak.toFixed(0)
        } MiB | ${(r.peak - r.before).toFixed(1)} MiB |`,
      );
    }
  } finally {
    await Deno.remove(path);
  }
}

/** `clients` loops split over `hosts` for MIXED_MS: operations per second, CPU ms per process. */
async function mixedOn(hosts: Host[], keys: string[][], clients: number) {
  const deadline = performance.now() + MIXED_MS;
  const before = await Promise.all(hosts.map((h) => cpuMs(h.pid)));
  let ops = 0;
  const piece = 256 * 1024;
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    const h = c % hosts.length;
    const key = keys[h][Math.floor(c / hosts.length) % keys[h].length];
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${hosts[h].url}/api/external/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...init.headers },
      });
    const rig = { api } as Rig;
    for (let i = 0; performance.now() < deadline; i++) {
      const made = await api("/folders", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ fn: `mixed-${c}-${i}-${crypto.randomUUID().slice(0, 6)}` }),
      });
      const folder = (await made.json()).data.resourceSeq;
      const rs = await upload(rig, piece, "f.bin", folder);
      await (await api(`/resources?pfs=${folder}`)).body?.cancel();
      if (await download(rig, rs) !== piece) throw new Error("short mixed download");
      ops += 4;
    }
  }));
  const after = await Promise.all(hosts.map((h) => cpuMs(h.pid)));
  return { perSec: ops / (MIXED_MS / 1000), cpu: after.map((a, i) => a - before[i]) };
}

const denokv = await startDenoKv();
const s3 = await startS3Server();
const hosts: Host[] = [];
try {
  if (ONLY.includes("commit")) await commitSizes(denokv.url);
  if (ONLY.includes("metadata")) await metadata();
  const bucket = await s3.newBucket();
  const env = { DRIVE_KV: denokv.url, ...denokv.env, ...s3.env(bucket) };
  hosts.push(await startHost(env));
  const a = hosts[0];
  const alice = await hostUser(a.url, "alice");
  const rig: Rig = {
    host: a,
    key: alice.key,
    api: (path, init = {}) =>
      fetch(`${a.url}/api/external/v1${path}`, {
        ...init,
        headers: { authorization: `Bearer ${alice.key}`, ...init.headers },
      }),
    s3: {
      objectUrl: (key) => `${s3.endpoint}/${bucket}/${key}`,
      user: `${s3.accessKeyId}:${s3.secretAccessKey}`,
    },
  };
  if (ONLY.includes("bytes")) await bytes(rig);
  if (ONLY.includes("cpu")) {
    // A KV of its own (a second denokv): hosts with different blob stores must not share one.
    const fsKv = await startDenoKv();
    const dataDir = await Deno.makeTempDir({ prefix: "bench-scale-fs-" });
    const fsHost = await startHost({
      DRIVE_KV: fsKv.url,
      ...fsKv.env,
      DRIVE_BLOB_STORE: "fs",
      DRIVE_DATA_DIR: dataDir,
    });
    try {
      const fsUser = await hostUser(fsHost.url, "fs-bench");
      await cpu(rig, { ...rig, host: fsHost, key: fsUser.key });
    } finally {
      await fsHost.stop();
      await fsKv.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  }
  if (ONLY.includes("memory")) await memory(rig);
  if (ONLY.includes("mixed")) {
    // One user per client (keys made on A; every host reads the same KV).
    const keys = [];
    for (let c = 0; c < CLIENTS; c++) keys.push((await hostUser(a.url, `m${c}`)).key);
    const one = await mixedOn([a], [keys], CLIENTS);
    hosts.push(await startHost(env));
    const half = [keys.filter((_, i) => i % 2 === 0), keys.filter((_, i) => i % 2 === 1)];
    const two = await mixedOn(hosts, half, CLIENTS);
    console.log(`\n## mixed: ${CLIENTS} clients, ${MIXED_MS / 1000} s each\n`);
    console.log("| hosts | operations/s (aggregate) | CPU ms per host process |");
    console.log("|---|---:|---|");
    console.log(`| one | ${one.perSec.toFixed(1)} | ${one.cpu.join(", ")} |`);
    console.log(`| two | ${two.perSec.toFixed(1)} | ${two.cpu.join(", ")} |`);
    console.log(`two / one: ${(two.perSec / one.perSec).toFixed(2)}`);
  }
} finally {
  for (const h of hosts) await h.stop();
  await s3.stop();
  await denokv.stop();
}
