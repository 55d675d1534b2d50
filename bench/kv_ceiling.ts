/**
 * The store's own ceiling on this machine, the yardstick of every metadata target: Deno KV on a
 * SQLite file, no service around it. Measures sequential and 16-way three-key atomic commits,
 * sequential point reads, a 10,000-value prefix scan (values shaped like listing entries), 16
 * concurrent scans of a 1,000-value folder listing index (the store's side of a provider `list`
 * of 1,000 from 16 clients: the same key shape and value size, nothing decoded beyond what
 * `kv.list` does), sequential commits shaped like a folder create as the service writes it (2
 * checks, 9 sets: record, 3 listing index entries, 3 search tokens, the event tick and pending
 * event; alone and with a `kv.watch` on the tick, as the event log keeps one), and the same 16-way
 * commits from 1 and from 3 processes on one KV file (SQLite
 * has one writer).
 *
 *   deno run -A bench/kv_ceiling.ts            (--json: one JSON object; --procs N, default 3)
 *   deno run -A bench/kv_ceiling.ts --child <kvfile> <ms>   (internal: one writer process)
 */

import { numberArg, recordValue } from "./lib.ts";
const COMMITS = 2000;
const READS = 5000;
const SCAN_VALUES = 10_000;
const CONCURRENCY = 16;
const MULTI_MS = 4000;
const FOLDER_VALUES = 1000;
const FOLDER_SCANS = 320;
const json = Deno.args.includes("--json");
const PROCS = numberArg("procs", 3);

/** A value the size of a listing entry (a resource record). */
const entryValue = (i: number) => recordValue(i);

/** One three-key commit, like a create: a record and two index entries. */
function threeKeyCommit(kv: Deno.Kv, tag: string, i: number) {
  const v = entryValue(i);
  return kv.atomic()
    .check({ key: ["ceiling_name", tag, i], versionstamp: null })
    .set(["ceiling_res", tag, i], v)
    .set(["ceiling_name", tag, i], v)
    .set(["ceiling_size", tag, i], v)
    .commit();
}

/**
 * One commit with the mutations of a service folder create (counted on `POST /folders`):
 * parent and name checks; record, res_name, res_by_size, res_by_update; three search tokens;
 * event_tick and event_pending.
 */
function createShapedCommit(kv: Deno.Kv, parentVs: string, tag: string, i: number) {
  const v = entryValue(i);
  const now = Date.now();
  return kv.atomic()
    .check({ key: ["ceiling_res", "parent"], versionstamp: parentVs })
    .check({ key: ["ceiling_name", tag, i], versionstamp: null })
    .set(["ceiling_name", tag, i], v)
    .set(["ceiling_size", tag, 0, i], v)
    .set(["ceiling_update", tag, now, i], v)
    .set(["ceiling_token", tag, `f${i}`, i], { rs: i, parentRs: 7 })
    .set(["ceiling_token", tag, "f", i], { rs: i, parentRs: 7 })
    .set(["ceiling_token", tag, `${i}`, i], { rs: i, parentRs: 7 })
    .set(["ceiling_res", tag, i], v)
    .set(["ceiling_tick"], { at: now, n: i })
    .set(["ceiling_pending", crypto.randomUUID(), 0], {
      type: "resource.created",
      rs: i,
      ownerSeq: 1,
      parentRs: 7,
      name: `file-${i}.txt`,
      by: 1,
      at: now,
    })
    .commit();
}

/** Commits from `workers` concurrent loops until `ms` passed; commits per second. */
async function commitsFor(kv: Deno.Kv, tag: string, workers: number, ms: number) {
  let n = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  await Promise.all(Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; performance.now() < end; i++) {
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          await threeKeyCommit(kv, `${tag}-${w}`, i);
          break;
        } catch { /* database is locked: another process holds the writer; retry */ }
      }
      n++;
    }
  }));
  return n / ((performance.now() - start) / 1000);
}

if (Deno.args[0] === "--child") {
  const kv = await Deno.openKv(Deno.args[1]);
  const rate = await commitsFor(kv, `child-${Deno.pid}`, CONCURRENCY, Number(Deno.args[2]));
  console.log(JSON.stringify({ rate }));
  kv.close();
  Deno.exit(0);
}

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** `procs` writer processes at once on one file; their summed commit rate. */
async function multiProcess(file: string, procs: number): Promise<number> {
  const children = Array.from({ length: procs }, () =>
    new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL(import.meta.url).pathname, "--child", file, String(MULTI_MS)],
      stdout: "piped",
      stderr: "inherit",
    }).output());
  const outs = await Promise.all(children);
  return outs.map((o) => JSON.parse(new TextDecoder().decode(o.stdout)).rate as number)
    .reduce((a, b) => a + b, 0);
}

const dir = await Deno.makeTempDir({ prefix: "kv-ceiling-" });
try {
  const file = `${dir}/ceiling.kv`;
  const kv = await Deno.openKv(file);
  const seqMs = await timed(async () => {
    for (let i = 0; i < COMMITS; i++) await threeKeyCommit(kv, "seq", i);
  });
  const parMs = await timed(() =>
    Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
      for (let i = 0; i < COMMITS / CONCURRENCY; i++) await threeKeyCommit(kv, `par-${w}`, i);
    }))
  );
  const parentVs = (await kv.set(["ceiling_res", "parent"], entryValue(0))).versionstamp;
  const createMs = await timed(async () => {
    for (let i = 0; i < COMMITS; i++) await createShapedCommit(kv, parentVs, "create", i);
  });
  // The event log keeps a watch on its tick key in every process (kv/events/runtime.ts).
  const watch = kv.watch([["ceiling_tick"]]);
  const drained = watch.pipeTo(new WritableStream());
  const watchedMs = await timed(async () => {
    for (let i = 0; i < COMMITS; i++) await createShapedCommit(kv, parentVs, "watched", i);
  });
  const readMs = await timed(async () => {
    for (let i = 0; i < READS; i++) await kv.get(["ceiling_res", "seq", i % COMMITS]);
  });
  for (let i = 0; i < SCAN_VALUES; i += 500) {
    const op = kv.atomic();
    for (let j = i; j < i + 500; j++) op.set(["ceiling_scan", j], entryValue(j));
    await op.commit();
  }
  const scans: number[] = [];
  let scanned = 0;
  for (let r = 0; r < 5; r++) {
    scans.push(
      await timed(async () => {
        scanned = 0;
        for await (const _ of kv.list({ prefix: ["ceiling_scan"] }, { batchSize: 1000 })) scanned++;
      }),
    );
  }
  scans.sort((a, b) => a - b);
  // A folder of 1,000 under the listing index's key shape: [family, owner, parent, name].
  for (let i = 0; i < FOLDER_VALUES; i += 500) {
    const op = kv.atomic();
    for (let j = i; j < i + 500; j++) {
      op.set(["ceiling_res_name", 1, 7, `file-${j}.txt`], entryValue(j));
    }
    await op.commit();
  }
  let folderScans = 0;
  const folderMs = await timed(() =>
    Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (folderScans < FOLDER_SCANS) {
        folderScans++;
        let n = 0;
        const iter = kv.list({ prefix: ["ceiling_res_name", 1, 7] }, { batchSize: 1000 });
        for await (const _ of iter) n++;
        if (n !== FOLDER_VALUES) throw new Error(`folder scan saw ${n}`);
      }
    }))
  );
  kv.close();
  await drained.catch(() => {});
  const oneProcess = await multiProcess(`${dir}/multi1.kv`, 1);
  const manyProcesses = await multiProcess(`${dir}/multi${PROCS}.kv`, PROCS);
  const result = {
    sequentialCommitsPerSec: Math.round(COMMITS / (seqMs / 1000)),
    concurrent16CommitsPerSec: Math.round(COMMITS / (parMs / 1000)),
    sequentialCreateShapedCommitsPerSec: Math.round(COMMITS / (createMs / 1000)),
    sequentialCreateShapedWatchedPerSec: Math.round(COMMITS / (watchedMs / 1000)),
    sequentialReadsPerSec: Math.round(READS / (readMs / 1000)),
    scan10000Ms: Number(scans[2].toFixed(1)),
    scannedValues: scanned,
    folder1000x16ScansPerSec: Math.round(folderScans / (folderMs / 1000)),
    oneProcess16CommitsPerSec: Math.round(oneProcess),
    [`processes${PROCS}x16CommitsPerSec`]: Math.round(manyProcesses),
    multiProcessRatio: Number((manyProcesses / oneProcess).toFixed(2)),
  };
  if (json) console.log(JSON.stringify(result));
  else for (const [k, v] of Object.entries(result)) console.log(`${k.padEnd(36)} ${v}`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
