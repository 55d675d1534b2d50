/**
 * What the per-request ops middleware costs (api/ops/request_log.ts: request id, one log line,
 * the request metrics): the same small GETs against four servers on one KV file that differ only
 * in it (bench/serve_middleware.ts): `none` (the routes without it, the baseline), `error`
 * (metrics and ids, log lines dropped by level), `info-json` and `info-text` (a line per request
 * to stdout, as main.ts logs).
 *
 * Each round runs every workload on every server in turn (so drift in the machine's load hits
 * all of them alike), CLIENTS concurrent keep-alive clients, REQUESTS requests; figures are
 * medians over the rounds. Two measures: requests per second, and server CPU per request
 * (utime + stime of the server process from /proc/<pid>/stat), which other load on the machine
 * disturbs far less.
 *
 * `--before <dir>` also starts the four servers of another checkout (its own KV file; e.g. a copy
 * of the tree before a change) and runs them in the same rotation, so a before/after comparison
 * shares the machine's load; rows are then labelled `before`/`after`.
 *
 * Usage: deno run -A bench/middleware.ts [--rounds 5] [--requests 6000] [--before <dir>] [--json]
 */
import { parseArgs } from "node:util";
import { ADMIN_TOKEN, benchApiKey, type BenchServer, startServer } from "./lib.ts";

const { values: args } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    requests: { type: "string", default: "6000" },
    json: { type: "boolean", default: false },
    before: { type: "string" },
  },
});
const ROUNDS = Number(args.rounds);
const REQUESTS = Number(args.requests);
const CLIENTS = 8;
const VARIANTS = ["none", "error", "info-json", "info-text"] as const;
type Variant = typeof VARIANTS[number];
const SERVER = "bench/serve_middleware.ts";
const CLK_TCK = 100;
const THIS_TREE = new URL("..", import.meta.url).pathname;

/** A checkout whose four servers run: this one (`after` when comparing) or `--before`. */
interface Tree {
  name: string;
  root: string;
  /** Where its servers keep their KV file. */
  dir: string;
}

interface Server extends BenchServer {
  tree: Tree;
  variant: Variant;
}

async function startVariant(tree: Tree, variant: Variant): Promise<Server> {
  // Its own deno.json and lock file, as that checkout would run; the request log on stdout is
  // dropped and the port comes on stderr.
  const server = await startServer(SERVER, [variant, tree.dir, ADMIN_TOKEN], {
    cwd: tree.root,
    portOn: "stderr",
  });
  return { ...server, tree, variant };
}

/** CPU seconds the process has used so far (user + system). */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the file, 12 and 13 after "pid (comm) ".
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

/** `total` GETs of `path` over CLIENTS keep-alive clients; each answer must be 200. */
async function load(url: string, path: string, headers: HeadersInit, total: number) {
  let next = 0;
  const client = async () => {
    while (next < total) {
      next++;
      const res = await fetch(url + path, { headers });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
}

async function measure(server: Server, path: string, headers: HeadersInit) {
  const cpuBefore = await cpuSeconds(server.pid);
  const started = performance.now();
  await load(server.url, path, headers, REQUESTS);
  const seconds = (performance.now() - started) / 1000;
  const cpu = (await cpuSeconds(server.pid)) - cpuBefore;
  return { rps: REQUESTS / seconds, cpuMicros: (cpu / REQUESTS) * 1e6 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** A tenant, a user with an API key and a folder on `server`'s KV; the workloads on it. */
async function workloadsOn(server: Server) {
  const apiKey = await benchApiKey(server.url);
  const auth = { authorization: `Bearer ${apiKey}` };
  const folder = await fetch(`${server.url}/api/external/v1/folders`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ fn: "Bench" }),
  }).then((r) => r.json());
  const rs = folder.data.resourceSeq;
  return [
    { name: "GET /healthz", path: "/healthz", headers: {} },
    {
      name: "GET /resources/{rs} (API key)",
      path: `/api/external/v1/resources/${rs}`,
      headers: auth,
    },
  ];
}

const trees: Tree[] = [{
  name: args.before ? "after" : "",
  root: THIS_TREE,
  dir: await Deno.makeTempDir({ prefix: "drive-bench-middleware-" }),
}];
if (args.before) {
  trees.push({
    name: "before",
    root: args.before,
    dir: await Deno.makeTempDir({ prefix: "drive-bench-middleware-before-" }),
  });
}
const servers: Server[] = [];
try {
  // One after the other: a tree's first start creates its KV file and runs the migrations.
  for (const tree of trees) {
    for (const variant of VARIANTS) servers.push(await startVariant(tree, variant));
  }
  // The same workloads (names) on every tree, each with its own folder and key.
  const workloadsOf = new Map<Tree, Awaited<ReturnType<typeof workloadsOn>>>();
  for (const tree of trees) {
    workloadsOf.set(
      tree,
      await workloadsOn(servers.find((s) => s.tree === tree && s.variant === "error")!),
    );
  }
  const workloadNames = workloadsOf.get(trees[0])!.map((w) => w.name);
  const workload = (s: Server, name: string) =>
    workloadsOf.get(s.tree)!.find((w) => w.name === name)!;
  // Warm-up: JIT and KV caches of every server.
  for (const s of servers) {
    for (const w of workloadsOf.get(s.tree)!) await load(s.url, w.path, w.headers, 1000);
  }

  const label = (s: Server) => (s.tree.name ? `${s.tree.name} ${s.variant}` : s.variant);
  const samples = new Map<string, { rps: number[]; cpuMicros: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of workloadNames) {
      // Rotate the order every round, so no server always runs first.
      for (let i = 0; i < servers.length; i++) {
        const s = servers[(i + round) % servers.length];
        const w = workload(s, name);
        const m = await measure(s, w.path, w.headers);
        const key = `${name}|${label(s)}`;
        const entry = samples.get(key) ?? { rps: [], cpuMicros: [] };
        entry.rps.push(m.rps);
        entry.cpuMicros.push(m.cpuMicros);
        samples.set(key, entry);
      }
    }
  }

  const rows = workloadNames.flatMap((name) =>
    servers.map((s) => {
      // Each tree against its own baseline.
      const base = samples.get(`${name}|${label({ ...s, variant: "none" })}`)!;
      const x = samples.get(`${name}|${label(s)}`)!;
      return {
        workload: name,
        server: label(s),
        rps: Math.round(median(x.rps)),
        cpuMicros: Math.round(median(x.cpuMicros) * 10) / 10,
        rpsVsNone: Math.round((median(x.rps) / median(base.rps)) * 100) / 100,
        cpuVsNone: Math.round((median(x.cpuMicros) / median(base.cpuMicros)) * 100) / 100,
        cpuOverNone: Math.round((median(x.cpuMicros) - median(base.cpuMicros)) * 10) / 10,
      };
    })
  );
  if (args.json) {
    console.log(JSON.stringify({ rounds: ROUNDS, requests: REQUESTS, clients: CLIENTS, rows }));
  } else {
    console.log(
      `${ROUNDS} rounds x ${REQUESTS} requests, ${CLIENTS} clients; medians (vs none)\n` +
        "| workload | server | req/s | server CPU µs/req | CPU over none |\n" +
        "| --- | --- | ---: | ---: | ---: |",
    );
    for (const r of rows) {
      console.log(
        `| ${r.workload} | ${r.server} | ${r.rps} (${r.rpsVsNone}x) | ` +
          `${r.cpuMicros} (${r.cpuVsNone}x) | ${r.cpuOverNone} |`,
      );
    }
  }
} finally {
  for (const s of servers) await s.stop();
  for (const tree of trees) await Deno.remove(tree.dir, { recursive: true });
}
