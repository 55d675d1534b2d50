/**
 * Backup throughput (kv/backup/write.ts) against plain copies of the same bytes, in one run:
 * a data directory with FILES files of FILE_MIB MiB each (fs blob store, KV file) is backed up
 * to a file, then the blob directory is archived with `tar cf` and copied with `cp -r` as the
 * baselines. Also the kv blob store (bytes in the KV file) backed up the same way. Each figure
 * is the median of REPS runs, MB/s over the file bytes (1 MB = 10^6 bytes).
 *
 *   deno run -A bench/backup.ts            (FILES=64 FILE_MIB=4 REPS=3 by default)
 */
import { openStoresAndDeps } from "../boot.ts";
import { readConfig } from "../config.ts";
import { writeBackup } from "../kv/backup/write.ts";
import type { Deps } from "../kv/deps.ts";
import { createTenant } from "../kv/identity/tenants.ts";
import { createUser } from "../kv/identity/users.ts";
import { storeGeneratedFile } from "../kv/tree/content.ts";

const FILES = Number(Deno.env.get("FILES") ?? 64);
const FILE_MIB = Number(Deno.env.get("FILE_MIB") ?? 4);
const REPS = Number(Deno.env.get("REPS") ?? 3);

async function openDeps(dataDir: string, store: "fs" | "kv"): Promise<Deps> {
  const config = readConfig({ DRIVE_DATA_DIR: dataDir, DRIVE_BLOB_STORE: store });
  // Opened as a server opens them (boot.ts): the same KV handle, blob store and migrations.
  return await openStoresAndDeps(config);
}

async function fill(d: Deps): Promise<number> {
  const tenant = await createTenant(d.kv, "bench");
  const user = await createUser(d.kv, {
    tenantId: tenant.id,
    accountId: "bench",
    email: "bench@example.com",
    name: "bench",
    quotaBytes: 1e15,
  });
  const bytes = new Uint8Array(FILE_MIB * 1024 * 1024);
  for (let i = 0; i < FILES; i++) {
    crypto.getRandomValues(bytes.subarray(0, 65536));
    bytes.copyWithin(65536, 0, bytes.byteLength - 65536);
    await storeGeneratedFile(d, {
      ownerSeq: user.userSeq,
      parentRs: null,
      name: `file-${i}.bin`,
      actorSeq: user.userSeq,
      onConflict: "fail",
      quotaCode: "RESOURCE_015",
      reason: "upload",
      bytes,
    });
  }
  return FILES * bytes.byteLength;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(fn: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
}

async function run(cmd: string, args: string[]) {
  const { code } = await new Deno.Command(cmd, { args, stdout: "null", stderr: "inherit" })
    .output();
  if (code !== 0) throw new Error(`${cmd} failed`);
}

const work = await Deno.makeTempDir({ prefix: "bench-backup-" });
try {
  const rows: [string, number][] = [];
  for (const store of ["fs", "kv"] as const) {
    const dataDir = `${work}/${store}`;
    const d = await openDeps(dataDir, store);
    const total = await fill(d);
    const mbps = (secs: number) => total / 1e6 / secs;
    const out = `${work}/backup.tar`;
    const backups: number[] = [];
    for (let r = 0; r < REPS; r++) {
      await Deno.remove(out).catch(() => {});
      backups.push(
        await timed(async () => {
          const file = await Deno.open(out, { write: true, createNew: true });
          await writeBackup(d, file.writable, { tmpDir: work });
        }),
      );
    }
    rows.push([`writeBackup, ${store} store`, mbps(median(backups))]);
    if (store === "fs") {
      const tars: number[] = [];
      const copies: number[] = [];
      for (let r = 0; r < REPS; r++) {
        await Deno.remove(`${work}/plain.tar`).catch(() => {});
        tars.push(await timed(() => run("tar", ["cf", `${work}/plain.tar`, "-C", dataDir, "."])));
        await Deno.remove(`${work}/copy`, { recursive: true }).catch(() => {});
        copies.push(await timed(() => run("cp", ["-r", `${dataDir}/blobs`, `${work}/copy`])));
      }
      rows.push(["baseline: tar cf of the data directory", mbps(median(tars))]);
      rows.push(["baseline: cp -r of the blob directory", mbps(median(copies))]);
    }
    d.kv.close();
  }
  console.log(`${FILES} files x ${FILE_MIB} MiB, median of ${REPS}`);
  console.log("| Workload | MB/s |\n| --- | ---: |");
  for (const [name, v] of rows) console.log(`| ${name} | ${v.toFixed(0)} |`);
} finally {
  await Deno.remove(work, { recursive: true });
}
