/**
 * Scaling with the tree (issue 13): the same operations in a drive of 1,000 resources and in one
 * of 100,000, both 64 levels deep, each on a KV file of its own (SQLite, as the service runs),
 * through the domain functions the routes call (no HTTP, whose cost does not depend on the tree).
 * Every operation is timed in both drives alternately, round after round; the figure is the
 * median per call and the ratio big / small.
 *
 * Both drives have the same probes: a chain of folders "level 1" ... "level 63" under the root
 * with 100 folders in the last (64 deep), shared from "level 1" with a second user; a folder
 * "work" in the root with 100 folders. The rest of the drive is filler: root folders of 99
 * folders each, written in batched commits through `writeResource` (as a create writes them).
 *
 *   deno run -A bench/tree_scaling.ts [--small 1000] [--big 100000] [--calls 200] [--rounds 3]
 *     [--json]
 */
import { openKvBlobStore } from "../blobs/kv.ts";
import { readConfig } from "../config.ts";
import { openKv } from "../kv/db.ts";
import { createDeps, type Deps } from "../kv/deps.ts";
import { blobStoreKeys } from "../kv/keys.ts";
import { createTenant } from "../kv/identity/tenants.ts";
import { createUser, type User } from "../kv/identity/users.ts";
import { authorizeFolderTarget, authorizeResourceAccess } from "../kv/sharing/authorize.ts";
import { createShare } from "../kv/sharing/share_writes.ts";
import { createFolder } from "../kv/tree/folders.ts";
import { newResource } from "../kv/tree/placement.ts";
import { listChildren } from "../kv/tree/listing.ts";
import { type Resource, writeResource } from "../kv/tree/resources.ts";
import { numberArg } from "./lib.ts";

const SMALL = numberArg("small", 1000);
const BIG = numberArg("big", 100_000);
const CALLS = numberArg("calls", 200);
const ROUNDS = numberArg("rounds", 3);
const json = Deno.args.includes("--json");
const CHAIN = 63;
const PROBE_CHILDREN = 100;
const FILLER_PER_FOLDER = 99;
const PER_COMMIT = 50;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Drive {
  name: string;
  dir: string;
  d: Deps;
  owner: User;
  recipient: User;
  resources: number;
  chain: Resource[];
  deepLeaves: Resource[];
  work: Resource;
  workChildren: Resource[];
}

async function openDeps(dir: string): Promise<Deps> {
  const config = readConfig({ DRIVE_KV: `${dir}/drive.kv`, DRIVE_BLOB_STORE: "kv" });
  // The service's own handle (kv/db.ts): busy retries and the parent memo loadPath batches with.
  const kv = await openKv(`${dir}/drive.kv`);
  return createDeps(config, { kv, blobs: openKvBlobStore(kv, blobStoreKeys) });
}

/** Folders under `parentRs` written PER_COMMIT at a time, as createFolder writes each one. */
async function writeFolders(
  d: Deps,
  owner: User,
  parentRs: number | null,
  names: string[],
): Promise<Resource[]> {
  const out: Resource[] = [];
  for (let i = 0; i < names.length; i += PER_COMMIT) {
    const op = d.kv.atomic();
    for (const name of names.slice(i, i + PER_COMMIT)) {
      const r = newResource({
        rs: await d.ids.next("resource"),
        ownerSeq: owner.userSeq,
        tenantId: owner.tenantId,
        parentRs,
        name,
        actorSeq: owner.userSeq,
        content: null,
      });
      writeResource(op, null, r, owner.userSeq);
      out.push(r);
    }
    const res = await op.commit();
    if (!res.ok) throw new Error("batch commit failed");
  }
  return out;
}

const numbered = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix} ${String(i).padStart(5, "0")}`);

async function buildDrive(name: string, resources: number): Promise<Drive> {
  const dir = await Deno.makeTempDir({ prefix: `tree-scaling-${name}-` });
  const d = await openDeps(dir);
  const tenant = await createTenant(d.kv, `${name}-org`);
  const user = (accountId: string) =>
    createUser(d.kv, {
      tenantId: tenant.id,
      accountId,
      email: `${accountId}@example.com`,
      name: accountId,
      quotaBytes: d.config.defaultQuotaBytes,
    });
  const owner = await user(`${name}-owner`);
  const recipient = await user(`${name}-recipient`);
  const chain: Resource[] = [];
  for (let level = 1; level <= CHAIN; level++) {
    chain.push(...await writeFolders(d, owner, chain.at(-1)?.rs ?? null, [`level ${level}`]));
  }
  const deepLeaves = await writeFolders(d, owner, chain.at(-1)!.rs, numbered("leaf", 100));
  const [work] = await writeFolders(d, owner, null, ["work"]);
  const workChildren = await writeFolders(d, owner, work.rs, numbered("child", PROBE_CHILDREN));
  await createShare(d, owner, chain[0].rs, {
    st: "SPECIFIC_USERS",
    ts: [{ us: recipient.userSeq, cv: true, ce: true, cu: true }],
  });
  let count = CHAIN + deepLeaves.length + 1 + workChildren.length;
  for (let top = 0; count < resources; top++) {
    const [bulk] = await writeFolders(d, owner, null, [`bulk ${top}`]);
    const n = Math.min(FILLER_PER_FOLDER, resources - count - 1);
    await writeFolders(d, owner, bulk.rs, numbered("item", n));
    count += 1 + n;
  }
  return {
    name,
    dir,
    d,
    owner,
    recipient,
    resources: count,
    chain,
    deepLeaves,
    work,
    workChildren,
  };
}

/** As POST /folders: authorize the parent (its path), then create with the depth just read. */
async function createFolderIn(t: Drive, parent: Resource, name: string) {
  const at = await authorizeFolderTarget(t.d.kv, t.owner, { pfs: parent.rs });
  return createFolder(t.d, {
    ownerSeq: t.owner.userSeq,
    parentRs: at.parentRs,
    parentDepth: at.depth,
    name,
    actorSeq: t.owner.userSeq,
  });
}

/** The operations timed, each one call; `i` makes created names unique. */
const OPERATIONS: Record<string, (t: Drive, i: number, round: number) => Promise<unknown>> = {
  "create folder in a root folder": (t, i, round) => createFolderIn(t, t.work, `new ${round} ${i}`),
  "create folder 64 deep": (t, i, round) => createFolderIn(t, t.chain.at(-1)!, `new ${round} ${i}`),
  "list 100 in a root folder": (t) =>
    listChildren(t.d.kv, t.owner.userSeq, t.work.rs, { sort: "name", order: "asc", limit: 100 }),
  "list 100, 63 deep": (t) =>
    listChildren(t.d.kv, t.owner.userSeq, t.chain.at(-1)!.rs, {
      sort: "name",
      order: "asc",
      limit: 100,
    }),
  "authorize owner, 2 deep": (t, i) =>
    authorizeResourceAccess(t.d.kv, t.owner, { rs: t.workChildren[i % 100].rs }, "view"),
  "authorize owner, 64 deep": (t, i) =>
    authorizeResourceAccess(t.d.kv, t.owner, { rs: t.deepLeaves[i % 100].rs }, "view"),
  "authorize share recipient, 64 deep": (t, i) =>
    authorizeResourceAccess(t.d.kv, t.recipient, { rs: t.deepLeaves[i % 100].rs }, "upload"),
};

const t0 = performance.now();
const small = await buildDrive("small", SMALL);
const tSmall = performance.now();
const big = await buildDrive("big", BIG);
const tBig = performance.now();

const micros: Record<string, Record<string, number[]>> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [op, run] of Object.entries(OPERATIONS)) {
    // Alternate which drive goes first, and interleave them in blocks of 10 calls.
    const drives = round % 2 === 0 ? [small, big] : [big, small];
    for (let block = 0; block < CALLS; block += 10) {
      for (const t of drives) {
        for (let i = block; i < Math.min(block + 10, CALLS); i++) {
          const start = performance.now();
          await run(t, i, round);
          ((micros[op] ??= {})[t.name] ??= []).push((performance.now() - start) * 1000);
        }
      }
    }
  }
}

const rows = Object.entries(micros).map(([op, by]) => {
  const s = median(by.small);
  const b = median(by.big);
  return { op, smallMicros: Math.round(s), bigMicros: Math.round(b), ratio: +(b / s).toFixed(2) };
});
const load = (await Deno.readTextFile("/proc/loadavg")).split(" ").slice(0, 3).join(" ");
const result = {
  load,
  smallResources: small.resources,
  bigResources: big.resources,
  buildSmallSec: +((tSmall - t0) / 1000).toFixed(1),
  buildBigSec: +((tBig - tSmall) / 1000).toFixed(1),
  rows,
};
if (json) console.log(JSON.stringify(result));
else {
  console.log(
    `load ${load}; drives of ${small.resources} and ${big.resources} resources ` +
      `(built in ${result.buildSmallSec} s and ${result.buildBigSec} s)`,
  );
  console.log(`${"operation".padEnd(38)} ${"small µs".padStart(9)} ${"big µs".padStart(9)} ratio`);
  for (const r of rows) {
    console.log(
      `${r.op.padEnd(38)} ${String(r.smallMicros).padStart(9)} ${String(r.bigMicros).padStart(9)} ${
        r.ratio.toFixed(2)
      }x`,
    );
  }
}
for (const t of [small, big]) {
  t.d.kv.close();
  await Deno.remove(t.dir, { recursive: true });
}
