/**
 * Memory under a create-and-list load (issue 22, item 9): is RSS that stays high after a load
 * V8's heap sizing, memory the allocator keeps, or a leak? A real server process (`main.ts`, fs
 * blob store, KV file) is started with the V8 inspector on loopback, which gives its JavaScript
 * heap figures (`Runtime.getHeapUsage`), a full garbage collection
 * (`HeapProfiler.collectGarbage`) and heap snapshots, with no hook in the service. Each round
 * runs `--seconds` of folder creates and listings from 16 connections, then the same from 64,
 * idles `--idle` seconds, collects garbage and samples again: RSS split into anonymous and file
 * pages, and V8's heap. A leak of JavaScript objects shows as heap used after GC climbing round
 * after round; with `--snapshots`, a heap snapshot after each round's GC, compared by
 * constructor with the one before, names what grew (leave it off for the RSS figures: the
 * server serializes each snapshot in native memory, which malloc then keeps). The largest resident anonymous mappings at the end say where
 * the rest of RSS lives (`[heap]` is glibc's main arena).
 *
 *   deno run -A bench/memory_load.ts [--rounds 3] [--seconds 10] [--idle 10] [--small]
 *     [--env NAME=VALUE ...] [--malloc-trim] [--snapshots]
 *
 * `--small` starts the server as `deno task start:small` does (V8 heap capped, one malloc
 * arena); `--env` adds a variable to the server's environment (e.g. `MALLOC_ARENA_MAX=1`,
 * `GLIBC_TUNABLES=...`); `--malloc-trim` ends by calling glibc's malloc_trim(0) in the server
 * through gdb: what RSS then drops by was freed memory malloc kept, not memory in use (a native
 * leak would stay). Bounded: fixed durations, loopback only.
 */
import { benchDriveApi, currentRssMiB, freePort, mainEnv, MiB, numberArg, waitFor } from "./lib.ts";

const ROUNDS = numberArg("rounds", 3);
const SECONDS = numberArg("seconds", 10);
const IDLE = numberArg("idle", 10);
const SMALL = Deno.args.includes("--small");
/** `--env NAME=VALUE` (repeatable): the server's malloc settings (`--small` sets one arena). */
const EXTRA_ENV: Record<string, string> = SMALL ? { MALLOC_ARENA_MAX: "1" } : {};
for (const [i, arg] of Deno.args.entries()) {
  const m = arg === "--env" ? /^([A-Z_]+)=(.*)$/.exec(Deno.args[i + 1] ?? "") : null;
  if (m) EXTRA_ENV[m[1]] = m[2];
}
/** At the end, call malloc_trim(0) in the server through gdb (a diagnosis: needs gdb, ptrace). */
const TRIM = Deno.args.includes("--malloc-trim");
/** Heap snapshots after each GC; serializing one costs the server native memory of its own. */
const SNAPSHOTS = Deno.args.includes("--snapshots");
const CONNECTIONS = [16, 64];
const ROOT = new URL("..", import.meta.url).pathname;

/** A Chrome DevTools Protocol session on the server's inspector. */
async function inspector(url: string) {
  const ws = new WebSocket(url);
  await new Promise((ok, fail) => {
    ws.onopen = ok;
    ws.onerror = fail;
  });
  let nextId = 0;
  const pending = new Map<number, (result: unknown) => void>();
  const chunks: string[] = [];
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.method === "HeapProfiler.addHeapSnapshotChunk") chunks.push(m.params.chunk);
    else if (m.id) pending.get(m.id)?.(m.result);
  };
  const call = <T>(method: string, params = {}) =>
    new Promise<T>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve as (r: unknown) => void);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call("HeapProfiler.enable");
  return {
    heap: () =>
      call<{ usedSize: number; totalSize: number; backingStorageSize: number }>(
        "Runtime.getHeapUsage",
      ),
    gc: () => call("HeapProfiler.collectGarbage"),
    /** A heap snapshot, summed by constructor: name → [count, self bytes]. */
    async snapshot(): Promise<Summary> {
      chunks.length = 0;
      await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
      return summarize(JSON.parse(chunks.join("")));
    },
    close: () => ws.close(),
  };
}

interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

function summarize(s: HeapSnapshot): Summary {
  const fields = s.snapshot.meta.node_fields;
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
  const types = s.snapshot.meta.node_types[0];
  const out: Summary = new Map();
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + typeAt]];
    const name = type === "object" || type === "closure"
      ? `${type === "closure" ? "(closure) " : ""}${s.strings[s.nodes[i + nameAt]]}`
      : `(${type})`;
    const row = out.get(name) ?? [0, 0];
    row[0]++;
    row[1] += s.nodes[i + sizeAt];
    out.set(name, row);
  }
  return out;
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);

/**
 * The process's largest resident anonymous mappings (/proc/<pid>/smaps) as "size→resident MiB":
 * V8's heap pages sit in its pointer-compression cage (one huge reservation, resident where
 * used), malloc's arenas in 64 MiB mappings and `[heap]`.
 */
async function anonMappings(pid: number, top = 8): Promise<string> {
  const smaps = await Deno.readTextFile(`/proc/${pid}/smaps`);
  const rows: { name: string; size: number; rss: number }[] = [];
  for (const block of smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/)) {
    const [head] = block.split("\n");
    const parts = head.trim().split(/\s+/);
    const path = parts[5] ?? "";
    if (path && !path.startsWith("[")) continue; // file-backed
    const kib = (f: string) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, "m").exec(block)?.[1] ?? 0);
    rows.push({ name: path || "anon", size: kib("Size"), rss: kib("Rss") });
  }
  return rows.sort((a, b) => b.rss - a.rss).slice(0, top)
    .map((r) => `${r.name} ${mib(r.size * 1024)}→${mib(r.rss * 1024)}`).join(", ");
}

type Summary = Map<string, [number, number]>;

/** The constructors whose self size grew most from `a` to `b`, as "name +count (+KiB)". */
function growthOf(a: Summary, b: Summary, top = 6): string {
  return [...b].map(([name, [count, size]]) => {
    const [c0, s0] = a.get(name) ?? [0, 0];
    return { name, count: count - c0, bytes: size - s0 };
  }).sort((x, y) => y.bytes - x.bytes).slice(0, top)
    .map((r) =>
      `${r.name.slice(0, 40)} ${r.count >= 0 ? "+" : ""}${r.count} (${
        (r.bytes / 1024).toFixed(0)
      } KiB)`
    ).join(", ");
}

const dataDir = await Deno.makeTempDir({ prefix: "drive-memory-" });
const port = freePort();
const url = `http://127.0.0.1:${port}`;
const child = new Deno.Command(Deno.execPath(), {
  args: [
    "run",
    "-A",
    "--inspect=127.0.0.1:0",
    ...(SMALL ? ["--v8-flags=--max-old-space-size=64,--max-semi-space-size=2"] : []),
    "main.ts",
  ],
  cwd: ROOT,
  env: { ...mainEnv(port, dataDir), ...EXTRA_ENV },
  stdout: "null",
  stderr: "piped",
}).spawn();
const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
let banner = "";
while (!/ws:\/\/\S+/.test(banner)) {
  const r = await stderr.read();
  if (r.done) throw new Error(`main.ts exited: ${banner}`);
  banner += r.value;
}
(async () => {
  while (!(await stderr.read()).done) { /* drained, or a full pipe would stall the server */ }
})().catch(() => {});

try {
  const v8 = await inspector(/ws:\/\/\S+/.exec(banner)![0]);
  await waitFor(`${url}/healthz`);
  const api = await benchDriveApi(url);
  const newFolder = async (fn: string, pfs?: number) => {
    const res = await api("/folders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(pfs === undefined ? { fn } : { fn, pfs }),
    });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    return (await res.json()).data.resourceSeq as number;
  };

  /** `clients` loops of create-then-list for `seconds`; operations done. */
  const load = async (clients: number, seconds: number, round: number) => {
    const end = performance.now() + seconds * 1000;
    let ops = 0;
    await Promise.all(Array.from({ length: clients }, async (_, c) => {
      const parent = await newFolder(`r${round}-c${clients}-${c}`);
      for (let i = 0; performance.now() < end; i++) {
        await newFolder(`f-${i}`, parent);
        const res = await api(`/resources?pfs=${parent}&ps=100`);
        if (res.status !== 200) throw new Error(`list: ${res.status}`);
        await res.body?.cancel();
        ops += 2;
      }
    }));
    return ops;
  };

  const sample = async () => {
    const h = await v8.heap();
    const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
    // Anonymous memory (heap, allocator) apart from file pages (the KV file SQLite maps).
    const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]);
    return `RSS ${await currentRssMiB(child.pid)} MiB (anon ${mib(kib("RssAnon") * 1024)}, file ${
      mib(kib("RssFile") * 1024)
    }, shmem ${mib(kib("RssShmem") * 1024)}), heap used ${mib(h.usedSize)} / total ${
      mib(h.totalSize)
    } MiB, array buffers ${mib(h.backingStorageSize)} MiB`;
  };
  const afterGc = async () => {
    await v8.gc();
    return { line: await sample(), used: (await v8.heap()).usedSize };
  };

  await load(4, 2, 0); // warm-up: modules compiled, caches of a first request filled
  const base = await afterGc();
  const snapshots = SNAPSHOTS ? [await v8.snapshot()] : [];
  const envText = Object.entries(EXTRA_ENV).map(([k, v]) => `${k}=${v}`).join(" ") || "none";
  const setting = `${SMALL ? "start:small" : "V8 defaults"}, extra env: ${envText}`;
  console.log(`${setting}; baseline after GC: ${base.line}`);
  const usedAfterGc = [base.used];
  for (let round = 1; round <= ROUNDS; round++) {
    const ops: string[] = [];
    for (const clients of CONNECTIONS) {
      const n = await load(clients, SECONDS, round);
      ops.push(`${clients} conns ${Math.round(n / SECONDS)} ops/s`);
    }
    const loaded = await sample();
    await new Promise((r) => setTimeout(r, IDLE * 1000));
    const idle = await sample();
    const gc = await afterGc();
    usedAfterGc.push(gc.used);
    if (SNAPSHOTS) snapshots.push(await v8.snapshot());
    console.log(`round ${round} (${ops.join(", ")})`);
    console.log(`  after load:          ${loaded}`);
    console.log(`  after ${IDLE} s idle:     ${idle}`);
    console.log(`  after idle + GC:     ${gc.line}`);
  }
  const growth = usedAfterGc.slice(1).map((u, i) => mib(u - usedAfterGc[i]));
  console.log(`heap used after GC, growth per round (MiB): ${growth.join(", ")}`);

  if (SNAPSHOTS) {
    console.log("largest heap growth by constructor after GC, each round against the one before:");
  }
  for (const [i, snap] of snapshots.slice(1).entries()) {
    console.log(`  round ${i + 1}: ${growthOf(snapshots[i], snap)}`);
  }
  console.log(`largest resident anonymous mappings now: ${await anonMappings(child.pid)}`);
  if (TRIM) {
    // Hands malloc's free pages back to the system: what RSS drops by was freed memory malloc
    // kept, not memory still in use (a native leak would stay).
    const gdb = await new Deno.Command("gdb", {
      args: ["-p", String(child.pid), "-batch", "-ex", "call (int) malloc_trim(0)"],
      stdout: "null",
      stderr: "null",
    }).output();
    console.log(`after malloc_trim(0) (gdb exit ${gdb.code}): ${await sample()}`);
  }
  v8.close();
} finally {
  child.kill("SIGTERM");
  await child.status;
  await Deno.remove(dataDir, { recursive: true });
}
