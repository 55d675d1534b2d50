/**
 * Metadata operations over KV Connect (a real `denokv` on 127.0.0.1) against a local SQLite KV
 * file, in the same run and the same process (issue 26): folder create (external API, one client,
 * sequential), provider `list` of a 1,000-entry folder, provider `info`. Each figure is the
 * median of per-request latencies; the ratio is denokv / SQLite. The servers alternate round by
 * round so a noisy neighbour on the 2 shared cores hits both.
 *
 *   deno run -A bench/kv_connect.ts [--rounds 3] [--children 1000] [--json]
 *
 * Needs denokv (cargo install denokv --locked; tests/helpers/denokv_server.ts finds it).
 */
import { newApiUser } from "../tests/helpers/api.ts";
import { startDenoKv } from "../tests/helpers/denokv_server.ts";
import { newProviderAdapter } from "../tests/helpers/provider.ts";
import { startTestServer, type TestServer } from "../tests/helpers/server.ts";
import { median, numberArg } from "./lib.ts";

const ROUNDS = numberArg("rounds", 3);
const CHILDREN = numberArg("children", 1000);
const CREATES = 200;
const INFOS = 200;
const LISTS = 10;

interface Setup {
  label: string;
  server: TestServer;
  create: () => Promise<void>;
  list: () => Promise<void>;
  info: () => Promise<void>;
}

async function setUp(label: string, server: TestServer): Promise<Setup> {
  const alice = await newApiUser(server, "alice");
  const { client } = await newProviderAdapter(server, "bench", { userSeq: alice.userSeq });
  const big = await alice.newFolder("big");
  for (let i = 0; i < CHILDREN; i++) await alice.newFolder(`c${i}`, big);
  const scratch = await alice.newFolder("scratch");
  let n = 0;
  return {
    label,
    server,
    create: async () => void await alice.newFolder(`f${n++}`, scratch),
    list: async () => {
      const r = await client.list(["big"]);
      if (!r.ok || r.value.length !== CHILDREN) throw new Error(`list: ${JSON.stringify(r)}`);
    },
    info: async () => {
      const r = await client.info(["big"]);
      if (!r.ok) throw new Error(`info: ${JSON.stringify(r)}`);
    },
  };
}

async function latencies(n: number, op: () => Promise<void>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const denokv = await startDenoKv();
const dir = await Deno.makeTempDir({ prefix: "drive-bench-kvc-" });
const sqlite = await startTestServer({ kvPath: `${dir}/drive.kv` });
const remote = await startTestServer({ kvPath: denokv.url, env: denokv.env });
try {
  const setups = [await setUp("sqlite file", sqlite), await setUp("denokv", remote)];
  const results: Record<string, Record<string, number[]>> = {};
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 ? [...setups].reverse() : setups) {
      const r = results[s.label] ??= { create: [], list: [], info: [] };
      r.create.push(await latencies(CREATES, s.create));
      r.list.push(await latencies(LISTS, s.list));
      r.info.push(await latencies(INFOS, s.info));
    }
  }
  const rows = ["create", "list", "info"].map((op) => {
    const local = median(results["sqlite file"][op]);
    const kvc = median(results["denokv"][op]);
    return {
      op,
      sqliteMs: +local.toFixed(2),
      denokvMs: +kvc.toFixed(2),
      ratio: +(kvc / local).toFixed(2),
    };
  });
  if (Deno.args.includes("--json")) console.log(JSON.stringify(rows));
  else {
    console.log(`median latency per request, ${ROUNDS} rounds, list of ${CHILDREN}`);
    for (const r of rows) {
      console.log(
        `${r.op.padEnd(7)} sqlite ${r.sqliteMs} ms  denokv ${r.denokvMs} ms  x${r.ratio}`,
      );
    }
  }
} finally {
  await sqlite.close();
  await remote.close();
  await denokv.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
