/**
 * What the benchmark scripts share: their arguments, the servers they start as child processes
 * (bench/serve_app.ts and the other `serve_*.ts`, which print "PORT <n>" once listening), the
 * memory and CPU figures read from /proc, and timing (medians, rates). Not part of the service.
 */
import { createHash } from "node:crypto";
import { AdminClient } from "../tests/helpers/admin.ts";

/** The admin token every benchmark's service is started with. */
export const ADMIN_TOKEN = "bench-admin-token-0123456789abcdef";

/** On the server at `url`: a tenant and a user "bench" (with `quotaBytes`), its read-write key. */
export async function benchApiKey(url: string, quotaBytes?: number): Promise<string> {
  const admin = new AdminClient(url, ADMIN_TOKEN);
  const user = await admin.createUser((await admin.createTenant("bench")).id, "bench", {
    quotaBytes,
  });
  return await admin.createKey(user.userSeq);
}

/** A fetch of the drive API at `url` (paths under /api/external/v1) with API key `key`. */
export const driveApi = (url: string, key: string) => (path: string, init: RequestInit = {}) =>
  fetch(`${url}/api/external/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, ...init.headers },
  });

/** The drive API (driveApi) of a new user "bench" (benchApiKey) on the server at `url`. */
export const benchDriveApi = async (url: string, quotaBytes?: number) =>
  driveApi(url, await benchApiKey(url, quotaBytes));

export const MiB = 1024 * 1024;

/** `--name <value>` from the command line, else undefined. */
export function stringArg(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

/** `--name <number>` from the command line, else `fallback`. */
export function numberArg(name: string, fallback: number): number {
  const value = stringArg(name);
  return value === undefined ? fallback : Number(value);
}

/** The middle value (the upper one of an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Milliseconds `fn` took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/**
 * Medians of `a` and `b` over `runs` rounds, measured alternately so drift and warm-up hit both
 * alike (after 5 warm-up rounds).
 */
export async function alternatingMedians(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  runs: number,
): Promise<[number, number]> {
  for (let i = 0; i < 5; i++) await Promise.all([a(), b()]);
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < runs; i++) {
    const order: [() => Promise<unknown>, number[]][] = [[a, ta], [b, tb]];
    if (i % 2) order.reverse();
    for (const [fn, out] of order) out.push(await timed(fn));
  }
  return [median(ta), median(tb)];
}

/** Runs `one` from `clients` concurrent loops, `n` calls in all; calls per second. */
export async function rate(n: number, clients: number, one: () => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < n) {
      next++;
      await one();
    }
  }));
  return n / ((performance.now() - started) / 1000);
}

/** A free TCP port on 127.0.0.1 (for a server started with a fixed port). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/**
 * Waits until `url` answers (with a 2xx, unless `anyAnswer`), for up to a minute: the first start
 * of a server after a change loads and compiles its module graph.
 */
export async function waitFor(url: string, opts: { init?: RequestInit; anyAnswer?: boolean } = {}) {
  for (let i = 0; i < 600; i++) {
    try {
      const r = await fetch(url, opts.init);
      await r.body?.cancel();
      if (r.ok || opts.anyAnswer) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** A server in a child process. */
export interface BenchServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `deno run -A <script> ...args` (in `cwd`, default here) and waits for the "PORT <n>"
 * line it prints once listening, on stdout (or on stderr with `portOn: "stderr"`, for a server
 * whose stdout is its request log, which is then dropped). What it prints after on that stream
 * is drained, or a full pipe would stall it.
 */
export async function startServer(
  script: string,
  args: string[],
  /** `flags`: deno run flags for the server (e.g. --v8-flags=...). */
  opts: {
    cwd?: string;
    env?: Record<string, string>;
    flags?: readonly string[];
    portOn?: "stdout" | "stderr";
  } = {},
): Promise<BenchServer> {
  const onStderr = opts.portOn === "stderr";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...(opts.flags ?? []), script, ...args],
    cwd: opts.cwd,
    env: opts.env,
    stdout: onStderr ? "null" : "piped",
    stderr: onStderr ? "piped" : "inherit",
  }).spawn();
  const reader = (onStderr ? child.stderr : child.stdout)
    .pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/PORT (\d+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited before listening: ${out}`);
    out += value;
  }
  (async () => {
    while (!(await reader.read()).done) { /* discard */ }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${/PORT (\d+)/.exec(out)![1]}`,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

/** bench/serve_app.ts (the real app, fs blob store) of checkout `root` on the data in `dir`. */
export function startApp(dir: string, root = new URL("..", import.meta.url).pathname) {
  return startServer(`${root.replace(/\/$/, "")}/bench/serve_app.ts`, [dir, ADMIN_TOKEN], {
    cwd: root,
  });
}

/** A memory figure of a process from /proc/<pid>/status (VmRSS, VmHWM...), in KiB. */
export async function procKiB(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? "0");
}

/** Peak resident set size of a process (VmHWM), in MiB. */
export async function peakRssMiB(pid: number): Promise<number> {
  return Math.round((await procKiB(pid, "VmHWM")) / 1024);
}

/** Current resident set size of a process (VmRSS), in MiB. */
export async function currentRssMiB(pid: number): Promise<number> {
  return Math.round((await procKiB(pid, "VmRSS")) / 1024);
}

/** Resets the process's VmHWM to its current RSS, so the next peak belongs to the next phase. */
export async function resetPeak(pid: number) {
  await Deno.writeTextFile(`/proc/${pid}/clear_refs`, "5").catch(() => {});
}

/** utime + stime of a process in ms (clock ticks of 10 ms): CPU spent, which load disturbs less. */
export async function cpuMs(pid: number | "self"): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The lean way to hash a body while writing it to `file` (the baseline and floor servers): fill
 * a 1 MiB buffer with a BYOB reader, hash it, write it, reuse it. Hashing and writing each ~64 KiB
 * chunk as it comes runs ~300 MiB/s here: per-call costs, not SHA-256, would set a baseline then.
 * Closes `file`; returns the size and the hex SHA-256.
 */
export async function hashIntoFile(body: ReadableStream<Uint8Array>, file: Deno.FsFile) {
  const hash = createHash("sha256");
  const reader = body.getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(MiB);
  let size = 0;
  for (let done = false; !done;) {
    let filled = 0;
    while (filled < buffer.byteLength) {
      const r = await reader.read(new Uint8Array(buffer, filled));
      if (r.done) {
        done = true;
        if (r.value) buffer = r.value.buffer as ArrayBuffer;
        break;
      }
      buffer = r.value.buffer as ArrayBuffer;
      filled += r.value.byteLength;
    }
    const piece = new Uint8Array(buffer, 0, filled);
    hash.update(piece);
    for (let at = 0; at < filled;) at += await file.write(piece.subarray(at));
    size += filled;
  }
  file.close();
  return { size, sha256: hash.digest("hex") };
}

/** A value shaped like a resource record (a listing index entry), for the store-only benches. */
export function recordValue(i: number, name = `file-${i}.txt`) {
  return {
    rs: i,
    ownerSeq: 1,
    tenantId: 1,
    parentRs: 7,
    name,
    type: "FILE",
    size: i * 10,
    mime: "text/plain",
    blobId: crypto.randomUUID(),
    sha256: "0".repeat(64),
    version: 1,
    createdAt: Date.now(),
    updatedAt: Date.now(),
    createdBy: 1,
    updatedBy: 1,
    trashedAt: null,
  };
}

/** The environment a bench gives `main.ts` on `port`, with its data in `dataDir`. */
export function mainEnv(port: number, dataDir: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    DRIVE_DATA_DIR: dataDir,
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    DRIVE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    DRIVE_LOG_LEVEL: "error",
  };
}

/**
 * Runs `transfer` of `bytes` against the server process `pid`: its MiB/s and the server's peak
 * RSS growth meanwhile, in MiB (VmHWM after, reset to VmRSS through clear_refs first, minus
 * VmRSS before), with what `transfer` returned.
 */
export async function measureTransfer<T>(pid: number, bytes: number, transfer: () => Promise<T>) {
  Deno.writeTextFileSync(`/proc/${pid}/clear_refs`, "5");
  const before = await procKiB(pid, "VmRSS");
  const t0 = performance.now();
  const value = await transfer();
  const seconds = (performance.now() - t0) / 1000;
  const growthMiB = ((await procKiB(pid, "VmHWM")) - before) / 1024;
  return { mibPerSec: bytes / MiB / seconds, growthMiB, value };
}

/** The figures of every run of each named transfer, and their summary table. */
export class TransferRuns {
  readonly runs: Record<string, { mibPerSec: number[]; growthMiB: number[] }> = {};

  add(name: string, run: { mibPerSec: number; growthMiB: number }): void {
    this.runs[name] ??= { mibPerSec: [], growthMiB: [] };
    this.runs[name].mibPerSec.push(run.mibPerSec);
    this.runs[name].growthMiB.push(run.growthMiB);
  }

  /** Per transfer, in the order first run: median and best MiB/s, largest RSS growth. */
  rows() {
    return Object.entries(this.runs).map(([name, r]) => ({
      name,
      median: median(r.mibPerSec),
      best: Math.max(...r.mibPerSec),
      growthMiB: Math.max(...r.growthMiB),
    }));
  }

  /** Prints the rows as a Markdown table whose first column is headed `what`. */
  printTable(what: string): void {
    console.log(`| ${what} | MiB/s (median) | MiB/s (best) | peak server RSS growth (MiB, max) |`);
    console.log("|---|---:|---:|---:|");
    for (const r of this.rows()) {
      console.log(
        `| ${r.name} | ${r.median.toFixed(0)} | ${r.best.toFixed(0)} | ${r.growthMiB.toFixed(1)} |`,
      );
    }
  }
}
