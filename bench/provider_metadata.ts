/**
 * Provider metadata load (issue 13): signed `info` and `list` of a 1,000-file directory from 16
 * clients, each request with a fresh JWT, against a real server process (`main.ts`), beside the
 * store's own 16-way commit ceiling (`bench/kv_ceiling.ts`) measured in the same run; then a
 * 16-client mixed drive load (uploads, downloads, listings); and the floors of the list and the
 * mixed load (bench/serve_list_floor.ts, bench/serve_mixed_floor.ts: the least work those requests
 * need, on a bare `Deno.serve`) with the same clients and flags.
 * Server peak RSS per phase from
 * `/proc/<pid>/status` VmHWM, reset through `/proc/<pid>/clear_refs` before each phase.
 *
 *   deno run -A bench/provider_metadata.ts [--rounds 3] [--json]
 *     [--before <dir>]          also runs main.ts of another checkout, alternating with this one
 *     [--server-flags "<flags>"] V8 or deno flags for the servers (e.g. --v8-flags=...)
 *     [--variant "label|<deno flags>|K=V,K=V"]  (repeatable) one more server of this tree, with
 *                               its own flags and environment (memory settings side by side)
 *     [--no-ceiling]            skip kv_ceiling.ts
 *     [--phases info,list,mixed] the phases to run (e.g. one alone under --cpu-prof)
 *     [--clients 16]            concurrent clients (the targets are for 16; more shows what
 *                               bounds the server's memory when many list at once)
 */
import { AdminClient } from "../tests/helpers/admin.ts";
import { newProviderAdapter } from "../tests/helpers/provider.ts";
import type { ProviderHostClient } from "../provider/host/client.ts";
import {
  ADMIN_TOKEN,
  currentRssMiB,
  driveApi,
  freePort,
  mainEnv,
  median,
  numberArg,
  peakRssMiB,
  rate,
  resetPeak,
  startServer as startBenchServer,
  stringArg,
  waitFor,
} from "./lib.ts";

const INFO_REQUESTS = 4000;
const LIST_REQUESTS = 320;
const LIST_FILES = 1000;
const MIXED_MS = 8000;
/** Provider `list` of 1,000 from 16 clients as issue 13 measured it; its target is 5x this. */
const ISSUE_LIST_RATE = 32;
const ROOT = new URL("..", import.meta.url).pathname;

const ROUNDS = numberArg("rounds", 3);
/** Concurrent clients of every phase (issue 13 states its targets for 16). */
const CLIENTS = numberArg("clients", 16);
const BEFORE = stringArg("before");
const PHASES = new Set((stringArg("phases") ?? "info,list,mixed").split(","));
const SERVER_FLAGS = (stringArg("server-flags") ?? "").split(" ").filter((s) => s !== "");

interface Server {
  label: string;
  url: string;
  child: Deno.ChildProcess;
  client: ProviderHostClient;
  admin: AdminClient;
  dataDir: string;
}

/** `--variant` arguments: label, deno flags, environment. */
const VARIANTS = Deno.args.flatMap((a, i) => Deno.args[i - 1] === "--variant" ? [a] : []).map(
  (v) => {
    const [label, flags = "", env = ""] = v.split("|");
    return {
      label,
      flags: flags.split(" ").filter((f) => f !== ""),
      env: Object.fromEntries(env.split(",").filter((e) => e !== "").map((e) => e.split("="))),
    };
  },
);

async function startServer(
  label: string,
  cwd: string,
  flags = SERVER_FLAGS,
  extraEnv: Record<string, string> = {},
): Promise<Server> {
  const dataDir = await Deno.makeTempDir({ prefix: `provider-meta-${label}-` });
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ...flags, "main.ts"],
    cwd,
    env: { ...mainEnv(port, dataDir), ...extraEnv },
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  await waitFor(`${url}/healthz`);
  const admin = new AdminClient(url, ADMIN_TOKEN);
  const { client } = await newProviderAdapter({ url, admin }, "bench", { timeoutMs: 120_000 });
  const small = await client.put(["small.txt"], new TextEncoder().encode("hello"));
  if (!small.ok) throw new Error(JSON.stringify(small));
  const mk = await client.mkdir([], "big");
  if (!mk.ok) throw new Error(JSON.stringify(mk));
  let made = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (made < LIST_FILES) {
      const i = made++;
      const r = await client.put(["big", `file-${i}.txt`], new TextEncoder().encode(`f${i}`));
      if (!r.ok) throw new Error(JSON.stringify(r));
    }
  }));
  return { label, url, child, client, admin, dataDir };
}

/**
 * One signed request with a fresh JWT, its answer read whole but not validated: the load's
 * client shares the 2 cores with the server, so it does as little as it can. The answers were
 * validated once by the host client before the phase (`checkAnswers`).
 */
async function signed(s: Server, op: "info" | "list", segments: string[]): Promise<number> {
  const res = await fetch(`${s.url}${s.client.pathFor(op, segments)}`, {
    headers: s.client.signedHeaders(op, segments, { bytes: null }),
  });
  const bytes = (await res.arrayBuffer()).byteLength;
  if (res.status !== 200) throw new Error(`${op}: ${res.status}`);
  return bytes;
}

async function checkAnswers(s: Server) {
  const info = await s.client.info(["small.txt"]);
  const list = await s.client.list(["big"]);
  if (!info.ok || !list.ok || list.value.length !== LIST_FILES) {
    throw new Error(`${s.label}: ${JSON.stringify([info, list]).slice(0, 300)}`);
  }
}

/**
 * The server's own view of its memory, from `/metrics` (`Deno.memoryUsage`): V8 heap used and
 * total and external memory, MiB. Says whether a peak is live objects, heap V8 kept, or buffers.
 */
async function heapMiB(s: Server, phase: string, push: (k: string, v: number) => void) {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  for (const kind of ["used", "total", "external"]) {
    const m = text.match(new RegExp(`^deno_memory_heap_bytes\\{kind="${kind}"\\} (\\S+)$`, "m"));
    if (m) push(`${phase}Heap_${kind}MiB`, Number(m[1]) / 2 ** 20);
  }
}

async function infoRate(s: Server) {
  return await rate(INFO_REQUESTS, CLIENTS, async () => {
    await signed(s, "info", ["small.txt"]);
  });
}

async function listRate(s: Server) {
  await resetPeak(s.child.pid);
  const rps = await rate(LIST_REQUESTS, CLIENTS, async () => {
    if ((await signed(s, "list", ["big"])) < LIST_FILES * 100) throw new Error("list too short");
  });
  return { rps, peakMiB: await peakRssMiB(s.child.pid) };
}

/**
 * 16 clients for MIXED_MS: each loop uploads a 1 MiB file (multipart), downloads a random
 * earlier one, and lists the folder (ps=100); peak RSS over the phase.
 */
async function mixedLoad(s: Server) {
  const tenant = await s.admin.createTenant("mixed-org");
  const user = await s.admin.createUser(tenant.id, `mixed-${Date.now()}`);
  const key = await s.admin.createKey(user.userSeq);
  return await mixedLoadAt(s.url, key, s.child.pid);
}

/**
 * The mixed floor (bench/serve_mixed_floor.ts, started with the servers' flags): the same 16
 * loops against a bare server doing the least the three requests need.
 */
async function mixedFloor() {
  const dir = await Deno.makeTempDir({ prefix: "mixed-floor-" });
  const floor = await startBenchServer(`${ROOT}bench/serve_mixed_floor.ts`, [dir], {
    cwd: ROOT,
    flags: SERVER_FLAGS,
  });
  try {
    return await mixedLoadAt(floor.url, "floor", floor.pid);
  } finally {
    await floor.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

async function mixedLoadAt(url: string, key: string, pid: number) {
  const api = driveApi(url, key);
  const body = new Uint8Array(1024 * 1024).fill(42);
  const files: number[] = [];
  const counts = { uploads: 0, downloads: 0, listings: 0, errors: 0 };
  // A failed request is named on stderr (its status and body): a count alone says nothing.
  const failed = (what: string, status: number, body: unknown) => {
    counts.errors++;
    console.error(`mixed: ${what} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  };
  await resetPeak(pid);
  const end = performance.now() + MIXED_MS;
  await Promise.all(Array.from({ length: CLIENTS }, async (_, w) => {
    for (let i = 0; performance.now() < end; i++) {
      const form = new FormData();
      form.append("file", new Blob([body]), `w${w}-${i}.bin`);
      const up = await api("/files", { method: "POST", body: form });
      const upJson = await up.json();
      if (up.status === 201) {
        files.push(upJson.data.resourceSeq);
        counts.uploads++;
      } else failed("upload", up.status, upJson);
      const rs = files[Math.floor(Math.random() * files.length)];
      const down = await api(`/files/${rs}/download`);
      if (down.status === 200) {
        for await (const _ of down.body!) { /* drain */ }
        counts.downloads++;
      } else failed(`download of ${rs}`, down.status, await down.text());
      const list = await api(`/resources?ps=100`);
      if (list.status === 200) {
        await list.arrayBuffer();
        counts.listings++;
      } else failed("listing", list.status, await list.text());
    }
  }));
  return { ...counts, peakMiB: await peakRssMiB(pid) };
}

/**
 * The list floor (bench/serve_list_floor.ts, started with the servers' flags): the same 16
 * clients, LIST_REQUESTS GETs; its rate and peak RSS, the least any service can list in.
 */
async function listFloor(): Promise<{ rps: number; peakMiB: number }> {
  const dir = await Deno.makeTempDir({ prefix: "list-floor-" });
  const floor = await startBenchServer(`${ROOT}bench/serve_list_floor.ts`, [`${dir}/floor.kv`], {
    cwd: ROOT,
    flags: SERVER_FLAGS,
  });
  try {
    await resetPeak(floor.pid);
    const rps = await rate(LIST_REQUESTS, CLIENTS, async () => {
      const res = await fetch(`${floor.url}/list`);
      if ((await res.arrayBuffer()).byteLength < LIST_FILES * 100) throw new Error("floor list");
    });
    return { rps, peakMiB: await peakRssMiB(floor.pid) };
  } finally {
    await floor.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

async function kvCeiling(): Promise<Record<string, number>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "bench/kv_ceiling.ts", "--json", "--procs", "1"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

async function main() {
  const ceiling = Deno.args.includes("--no-ceiling") ? null : await kvCeiling();
  const servers = [await startServer("current", ROOT)];
  if (BEFORE) servers.push(await startServer("before", BEFORE));
  for (const v of VARIANTS) servers.push(await startServer(v.label, ROOT, v.flags, v.env));
  try {
    const rows: Record<string, Record<string, number[]>> = {};
    const push = (label: string, k: string, v: number) => {
      ((rows[label] ??= {})[k] ??= []).push(v);
    };
    for (const s of servers) {
      await checkAnswers(s);
      push(s.label, "startRssMiB", await currentRssMiB(s.child.pid));
      await heapMiB(s, "start", (k, v) => push(s.label, k, v));
    }
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which server goes first, so a drift of the machine's load hits both alike.
      const order = servers.map((_, i) => servers[(i + round) % servers.length]);
      for (const s of PHASES.has("info") ? order : []) {
        push(s.label, "info16PerS", await infoRate(s));
      }
      for (const s of PHASES.has("list") ? order : []) {
        const l = await listRate(s);
        push(s.label, "list1000x16PerS", l.rps);
        push(s.label, "listPeakRssMiB", l.peakMiB);
        await heapMiB(s, "listEnd", (k, v) => push(s.label, k, v));
      }
      if (PHASES.has("list")) {
        const floor = await listFloor();
        push("floor", "list1000x16PerS", floor.rps);
        push("floor", "listPeakRssMiB", floor.peakMiB);
      }
    }
    for (const s of PHASES.has("mixed") ? servers : []) {
      const m = await mixedLoad(s);
      for (const [k, v] of Object.entries(m)) push(s.label, `mixed_${k}`, v);
    }
    if (PHASES.has("mixed")) {
      for (const [k, v] of Object.entries(await mixedFloor())) push("floor", `mixed_${k}`, v);
    }
    const result: Record<string, unknown> = { ceiling };
    for (const [label, r] of Object.entries(rows)) {
      result[label] = Object.fromEntries(
        Object.entries(r).map((
          [k, v],
        ) => [k, { median: Math.round(median(v)), all: v.map(Math.round) }]),
      );
    }
    if (ceiling && PHASES.has("info")) {
      for (const s of servers) {
        const info = median(rows[s.label].info16PerS);
        result[`${s.label}_info_vs_16way_commits`] = Number(
          (info / ceiling.concurrent16CommitsPerSec).toFixed(2),
        );
      }
    }
    if (ceiling && PHASES.has("list")) {
      for (const s of servers) {
        // The store's own rate for the same work: 16 concurrent scans of a 1,000-value folder.
        const list = median(rows[s.label].list1000x16PerS);
        result[`${s.label}_list_vs_16way_folder_scans`] = Number(
          (list / ceiling.folder1000x16ScansPerSec).toFixed(2),
        );
        // The issue's target: 5x the rate it measured (32 req/s), i.e. 160 req/s.
        result[`${s.label}_list_vs_issue_32`] = Number((list / ISSUE_LIST_RATE).toFixed(2));
      }
    }
    if (PHASES.has("list")) {
      // Against the bare list floor of the same run: its rate, and the memory it cannot go below.
      const floorRate = median(rows.floor.list1000x16PerS);
      const floorPeak = median(rows.floor.listPeakRssMiB);
      for (const s of servers) {
        result[`${s.label}_list_vs_floor`] = Number(
          (median(rows[s.label].list1000x16PerS) / floorRate).toFixed(2),
        );
        result[`${s.label}_list_peak_minus_floor_MiB`] = Math.round(
          median(rows[s.label].listPeakRssMiB) - floorPeak,
        );
      }
    }
    if (Deno.args.includes("--json")) console.log(JSON.stringify(result));
    else {
      console.log("ceiling", JSON.stringify(ceiling));
      for (const [label, r] of Object.entries(rows)) {
        for (const [k, v] of Object.entries(r)) {
          console.log(
            `${label.padEnd(8)} ${k.padEnd(18)} median ${Math.round(median(v))}`.padEnd(48) +
              ` all ${v.map(Math.round).join(", ")}`,
          );
        }
      }
      for (const [k, v] of Object.entries(result)) if (typeof v === "number") console.log(k, v);
    }
  } finally {
    for (const s of servers) {
      s.child.kill("SIGTERM");
      await s.child.status;
      await Deno.remove(s.dataDir, { recursive: true }).catch(() => {});
    }
  }
}

await main();
