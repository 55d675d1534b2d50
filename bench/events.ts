/**
 * The change feed (docs/changes.md), against the real app in a child process (bench/serve_app.ts):
 * 1. feed cost per change: read 100 of a user's changes after a cursor (GET /changes, ps=100,
 *    median of 30 reads) with about 100 and then about 100,000 events in the log;
 * 2. long-poll: 1,000 clients waiting on GET /changes/wait; the server's CPU time and RSS over
 *    an idle window, then how long until all 1,000 answer after one change.
 * Usage: deno run -A bench/events.ts [--json] [--big N] (default N = 100000)
 */
import { appendEvent, type DriveEvent } from "../kv/events/log.ts";
import { AdminClient } from "../tests/helpers/admin.ts";
import { ADMIN_TOKEN, numberArg, startApp } from "./lib.ts";

const JSON_OUT = Deno.args.includes("--json");
const BIG = numberArg("big", 100_000);
const WAITERS = 1000;
const IDLE_MS = 10_000;

const dir = await Deno.makeTempDir({ prefix: "drive-bench-events-" });
const server = await startApp(dir);
const base = server.url;

const admin = new AdminClient(base, ADMIN_TOKEN);
const tenant = await admin.createTenant("bench");
const user = await admin.createUser(tenant.id, "bench");
const key = await admin.createKey(user.userSeq, ["api:read", "api:write"]);
const auth = { authorization: `Bearer ${key}` };
const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${base}/api/external/v1${path}`, {
    method,
    headers: { ...auth, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return await res.json();
};

// Other tenants' events, written into the log through the real pipeline (pending, sequenced by
// the server), so the log is long but none of it is the bench user's.
const kv = await Deno.openKv(`${dir}/drive.kv`);
let logged = 0;
async function seedLog(total: number) {
  const event: DriveEvent = {
    kind: "created",
    at: Date.now(),
    tenantId: 999_999,
    actor: { userSeq: 999_999 },
    resource: { rs: 1, type: "FOLDER", name: "other", parentRs: null, ownerSeq: 999_999 },
  };
  while (logged < total) {
    const op = kv.atomic();
    const n = Math.min(400, total - logged);
    for (let i = 0; i < n; i++) appendEvent(op, event);
    try {
      if ((await op.commit()).ok) logged += n;
    } catch { /* the server holds the SQLite writer; try again */ }
  }
}

/** Median ms of reading the user's 100 newest changes, after they are sequenced. */
async function feedCost(label: string) {
  const cursor = (await api("GET", "/changes/cursor")).data.cursor;
  for (let i = 0; i < 100; i++) await api("POST", "/folders", { fn: `${label}-${i}` });
  for (let tries = 0; tries < 200; tries++) {
    const page = await api("GET", `/changes?cursor=${cursor}&ps=100`);
    if (page.data.items.length === 100) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const times: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    const page = await api("GET", `/changes?cursor=${cursor}&ps=100`);
    times.push(performance.now() - t);
    if (page.data.items.length !== 100) throw new Error("feed lost changes");
  }
  times.sort((a, b) => a - b);
  return times[15];
}

async function waitSequenced() {
  for (let tries = 0; tries < 6000; tries++) {
    let pending = 0;
    for await (const _ of kv.list({ prefix: ["event_pending"] }, { limit: 1 })) pending++;
    if (pending === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the server did not sequence the log");
}

function procStat(pid: number) {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  const ticks = Number(stat[11]) + Number(stat[12]);
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
  return { cpuMs: ticks * 10, rss };
}

await seedLog(100);
await waitSequenced();
const small = await feedCost("small");
const t0 = performance.now();
await seedLog(BIG);
await waitSequenced();
const seedSeconds = (performance.now() - t0) / 1000;
const big = await feedCost("big");

// Long-poll: 1,000 waiters on a cursor nothing has passed yet.
const cursor = (await api("GET", "/changes/cursor")).data.cursor;
const before = procStat(server.pid);
const answered: number[] = [];
const waits = Array.from(
  { length: WAITERS },
  () =>
    fetch(`${base}/api/external/v1/changes/wait?cursor=${cursor}&timeout=60`, { headers: auth })
      .then((r) => r.json()).then((b) => {
        answered.push(performance.now());
        return b.data.changes as boolean;
      }),
);
await new Promise((r) => setTimeout(r, 2000));
const idleStart = procStat(server.pid);
await new Promise((r) => setTimeout(r, IDLE_MS));
const idleEnd = procStat(server.pid);
const changedAt = performance.now();
await api("POST", "/folders", { fn: "wake" });
const results = await Promise.all(waits);
const last = Math.max(...answered) - changedAt;

const figures = {
  eventsSmall: 100 + 100,
  feedPer100Small: Number(small.toFixed(2)),
  eventsBig: BIG + 200,
  feedPer100Big: Number(big.toFixed(2)),
  seedSeconds: Number(seedSeconds.toFixed(1)),
  waiters: WAITERS,
  allTrue: results.every((x) => x),
  idleCpuPercent: Number(((idleEnd.cpuMs - idleStart.cpuMs) / IDLE_MS * 100).toFixed(2)),
  rssBeforeMiB: Math.round(before.rss / 2 ** 20),
  rssWaitingMiB: Math.round(idleEnd.rss / 2 ** 20),
  allAnsweredMs: Math.round(last),
};
kv.close();
await server.stop();
await Deno.remove(dir, { recursive: true }).catch(() => {});
if (JSON_OUT) console.log(JSON.stringify(figures));
else {
  console.log(
    `feed, 100 changes after a cursor: ${figures.feedPer100Small} ms with ~100 events, ` +
      `${figures.feedPer100Big} ms with ~${BIG} (median of 30)`,
  );
  console.log(
    `long-poll, ${WAITERS} waiters: idle server CPU ${figures.idleCpuPercent}% over ` +
      `${IDLE_MS / 1000} s, RSS ${figures.rssBeforeMiB} -> ${figures.rssWaitingMiB} MiB, all ` +
      `answered ${figures.allAnsweredMs} ms after one change (all true: ${figures.allTrue})`,
  );
}
