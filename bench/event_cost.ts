/**
 * What the event log (issue 14, kv/events/) costs a create: side by side in one process,
 *   1. Deno KV alone: the three-key commit of bench/kv_ceiling.ts, and the same commit with the
 *      two keys every tree commit adds for its event (the pending event, the tick);
 *   2. the service: sequential `POST /folders` (API key, keep-alive free: `app.fetch` in process)
 *      with the event sequencer running, and with it stopped (`events.close()`: the pending
 *      events are still written in each create's commit, but never sequenced).
 * Rounds alternate; medians. The difference in 2. is what the sequencer's own commits cost.
 *
 *   deno run -A bench/event_cost.ts [--n 1000] [--rounds 3]
 */
import { boot, type Service } from "../boot.ts";
import { readConfig } from "../config.ts";
import { newResource } from "../kv/tree/placement.ts";
import { AdminClient } from "../tests/helpers/admin.ts";
import { ADMIN_TOKEN, median, numberArg } from "./lib.ts";

const N = numberArg("n", 1000);
const ROUNDS = numberArg("rounds", 3);

async function perSecond(n: number, one: (i: number) => Promise<unknown>): Promise<number> {
  const t = performance.now();
  for (let i = 0; i < n; i++) await one(i);
  return n / ((performance.now() - t) / 1000);
}

/** A value the size of a resource record (kv_ceiling.ts's listing entry): a new folder's. */
const record = (i: number) =>
  newResource({
    rs: i,
    ownerSeq: 1,
    tenantId: 1,
    parentRs: null,
    name: `folder-${i}`,
    actorSeq: 1,
    content: null,
  });

function storeCommit(kv: Deno.Kv, tag: string, i: number, withEvent: boolean) {
  const v = record(i);
  const op = kv.atomic()
    .check({ key: ["cost_name", tag, i], versionstamp: null })
    .set(["cost_res", tag, i], v)
    .set(["cost_name", tag, i], v)
    .set(["cost_update", tag, i], v);
  if (withEvent) {
    const id = crypto.randomUUID();
    op.set(["cost_tick"], id).set(["cost_pending", id, 0], {
      kind: "created",
      at: Date.now(),
      actor: { kind: "user", userSeq: 1 },
      resource: { rs: i, type: "FOLDER", name: v.name, parentRs: null, ownerSeq: 1 },
    });
  }
  return op.commit();
}

async function service(dir: string, sequencer: boolean): Promise<{ s: Service; key: string }> {
  await Deno.mkdir(dir, { recursive: true });
  const s = await boot(readConfig({
    DRIVE_DATA_DIR: dir,
    DRIVE_KV: `${dir}/drive.kv`,
    DRIVE_BLOB_STORE: "fs",
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    DRIVE_LOG_LEVEL: "error",
  }));
  if (!sequencer) s.events.close();
  // In process, through app.fetch: the figures are the app's, not a socket's.
  const admin = new AdminClient(
    "http://x",
    ADMIN_TOKEN,
    (input, init) => Promise.resolve(s.app.fetch(new Request(input, init))),
  );
  const tenant = await admin.createTenant("cost");
  const user = await admin.createUser(tenant.id, "cost");
  const key = await admin.createKey(user.userSeq, ["api:write"]);
  return { s, key };
}

async function creates(svc: { s: Service; key: string }, round: number) {
  return await perSecond(N, async (i) => {
    const r = await svc.s.app.fetch(
      new Request("http://x/api/external/v1/folders", {
        method: "POST",
        headers: { authorization: `Bearer ${svc.key}`, "content-type": "application/json" },
        body: JSON.stringify({ fn: `r${round}-${i}` }),
      }),
    );
    if (r.status !== 201) throw new Error(`create: ${r.status} ${await r.text()}`);
  });
}

const dir = await Deno.makeTempDir({ prefix: "event-cost-" });
try {
  const kv = await Deno.openKv(`${dir}/store.kv`);
  const on = await service(`${dir}/on`, true);
  const off = await service(`${dir}/off`, false);
  const rows: Record<string, number[]> = {
    "KV: 3-key commit /s": [],
    "KV: 3-key commit + event keys /s": [],
    "service: creates /s, sequencer running": [],
    "service: creates /s, sequencer stopped": [],
  };
  for (let r = 0; r < ROUNDS; r++) {
    rows["KV: 3-key commit /s"].push(await perSecond(N, (i) => storeCommit(kv, `a${r}`, i, false)));
    rows["KV: 3-key commit + event keys /s"].push(
      await perSecond(N, (i) => storeCommit(kv, `b${r}`, i, true)),
    );
    const first = r % 2 === 0 ? [on, off] : [off, on];
    for (const svc of first) {
      const rate = await creates(svc, r);
      rows[`service: creates /s, sequencer ${svc === on ? "running" : "stopped"}`].push(rate);
    }
  }
  for (const [k, v] of Object.entries(rows)) {
    console.log(
      `${k.padEnd(42)} median ${Math.round(median(v))}  (${v.map(Math.round).join(", ")})`,
    );
  }
  kv.close();
  on.s.close();
  off.s.close();
} finally {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
