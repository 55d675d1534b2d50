/**
 * Upload/download throughput and server memory, our API against a bare-Deno baseline, in one run.
 *   deno run -A bench/upload_download.ts [--mib 256] [--runs 3]
 * Baseline (bench/serve_baseline.ts): PUT pipes the body into a file (a second row hashes it with
 * SHA-256 on the way, as every upload must), GET returns file.readable (as the issue defines it; a
 * second row adds a Content-Length header to the same response).
 * The client is curl (from/to disk and /dev/null), the same for both.
 * Ours (bench/serve_app.ts, the real app, fs blob store, KV file): multipart POST /files and
 * GET /files/{rs}/download. Each server is a child process; its peak RSS growth during a transfer
 * is VmHWM after minus VmRSS before (the peak is reset through /proc/<pid>/clear_refs first).
 * Each round ends by deleting both uploads and syncing the disk, so every transfer starts alike.
 * Targets (issue 13): download >= 1.0x the bare file.readable, upload >= 0.9x the hashing
 * baseline; peak RSS growth < 64 MiB.
 */
import { createHash } from "node:crypto";
import { AdminClient } from "../tests/helpers/admin.ts";
import {
  ADMIN_TOKEN,
  type BenchServer,
  measureTransfer,
  MiB,
  numberArg,
  startApp,
  startServer,
  TransferRuns,
} from "./lib.ts";

const SIZE = numberArg("mib", 256) * MiB;
const RUNS = numberArg("runs", 3);

/** Runs `transfer` and reports its throughput and the server's peak RSS growth. */
async function measure(server: BenchServer, transfer: () => Promise<number>) {
  const { value: bytes, ...run } = await measureTransfer(server.pid, SIZE, transfer);
  if (bytes !== SIZE) throw new Error(`transferred ${bytes} bytes, expected ${SIZE}`);
  return run;
}

/**
 * Runs curl (a client light enough not to be the bottleneck; Deno's own fetch caps near the
 * baseline's rate on this machine) and returns its stdout; -w adds "<status> <bytes>" last.
 */
async function curl(args: string[]): Promise<{ status: number; bytes: number; body: string }> {
  const out = await new Deno.Command("curl", {
    args: ["-sS", "-H", "Expect:", "-w", "\n%{http_code} %{size_download} %{size_upload}", ...args],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const cut = text.lastIndexOf("\n");
  const [status, down, up] = text.slice(cut + 1).split(" ").map(Number);
  if (!out.success || status >= 300) throw new Error(`curl ${args.join(" ")}: ${text}`);
  return { status, bytes: Math.max(down, up), body: text.slice(0, cut) };
}

/** An api:read + api:write key of a new user with room for every round's uploads. */
async function apiKey(url: string): Promise<string> {
  const admin = new AdminClient(url, ADMIN_TOKEN);
  const tenant = await admin.createTenant("bench");
  const user = await admin.createUser(tenant.id, "bench", { quotaBytes: 64 * 1024 * MiB });
  return await admin.createKey(user.userSeq);
}

/** Flushes dirty pages so no write-back from earlier steps runs during a measured transfer. */
async function settleDisk() {
  await new Deno.Command("sync").output();
}

/**
 * SHA-256 alone, from memory, in 1 MiB pieces (what the upload path feeds it): every upload
 * hashes every byte in one stream, so no upload can be faster than this.
 */
function sha256Rate(): number {
  const block = new Uint8Array(16 * MiB);
  for (let off = 0; off < block.length; off += 65_536) {
    crypto.getRandomValues(block.subarray(off, off + 65_536));
  }
  const hash = createHash("sha256");
  const t0 = performance.now();
  for (let done = 0; done < SIZE; done += MiB) {
    const at = done % block.length;
    hash.update(block.subarray(at, at + MiB));
  }
  hash.digest("hex");
  return SIZE / MiB / ((performance.now() - t0) / 1000);
}

const dir = await Deno.makeTempDir({ prefix: "drive-bench-" });
try {
  // Random bytes (incompressible, nothing for a fast path to skip), read by curl from disk.
  const payload = `${dir}/payload.bin`;
  {
    const file = await Deno.open(payload, { write: true, create: true });
    const buf = new Uint8Array(MiB);
    for (let i = 0; i < SIZE / MiB; i++) {
      for (let off = 0; off < MiB; off += 65_536) {
        crypto.getRandomValues(buf.subarray(off, off + 65_536));
      }
      await file.write(buf);
    }
    file.close();
  }

  const results = new TransferRuns();
  type Run = { mibPerSec: number; growthMiB: number };
  const record = async (name: string, run: Run | Promise<Run>) => results.add(name, await run);

  await settleDisk();
  await Deno.mkdir(`${dir}/baseline`);
  await Deno.mkdir(`${dir}/app`);
  const baseline = await startServer(new URL("./serve_baseline.ts", import.meta.url).pathname, [
    `${dir}/baseline`,
  ]);
  const app = await startApp(`${dir}/app`);
  try {
    const key = await apiKey(app.url);
    const auth = ["-H", `Authorization: Bearer ${key}`];
    const files = `${app.url}/api/external/v1/files`;
    let rs = 0;
    const bytesOf = (r: { bytes: number }) => r.bytes;
    for (let run = 0; run < RUNS; run++) {
      // The three uploads take turns going first: the later ones of a round share the disk with
      // the writeback of the earlier ones, so a fixed order would favour one of them.
      const uploads = [
        () =>
          record(
            "baseline upload (PUT body -> file)",
            measure(baseline, async () => {
              await curl(["-o", "/dev/null", "-T", payload, `${baseline.url}/`]);
              return (await Deno.stat(`${dir}/baseline/baseline.bin`)).size;
            }),
          ),
        () =>
          record(
            "hashing baseline upload (PUT body -> SHA-256 -> file)",
            measure(baseline, async () => {
              await curl(["-o", "/dev/null", "-T", payload, `${baseline.url}/?hash=1`]);
              return (await Deno.stat(`${dir}/baseline/hashed.bin`)).size;
            }),
          ),
        () =>
          record(
            "API upload (multipart POST /files)",
            measure(app, async () => {
              const r = await curl([...auth, "-F", `file=@${payload};filename=bench.bin`, files]);
              rs = JSON.parse(r.body).data.resourceSeq;
              return SIZE;
            }),
          ),
      ];
      for (let i = 0; i < uploads.length; i++) await uploads[(run + i) % uploads.length]();
      await record(
        "baseline download (file.readable)",
        await measure(baseline, async () => bytesOf(await curl(["-o", "/dev/null", baseline.url]))),
      );
      await record(
        "baseline download (file.readable + Content-Length)",
        await measure(
          baseline,
          async () => bytesOf(await curl(["-o", "/dev/null", `${baseline.url}/?length=1`])),
        ),
      );
      await record(
        "API download (GET /files/{rs}/download)",
        await measure(
          app,
          async () => bytesOf(await curl([...auth, "-o", "/dev/null", `${files}/${rs}/download`])),
        ),
      );
      // Both sides drop this round's upload before the next one (the API through trash and
      // purge), so neither pays for the other's earlier bytes being written back to disk.
      await Deno.remove(`${dir}/baseline/baseline.bin`);
      await Deno.remove(`${dir}/baseline/hashed.bin`);
      await curl([...auth, "-X", "PATCH", `${files}/${rs}/delete`]);
      await curl([...auth, "-X", "DELETE", `${app.url}/api/external/v1/trash/${rs}`]);
      await settleDisk();
    }
  } finally {
    await baseline.stop();
    await app.stop();
  }

  const rows = results.rows();
  const row = (prefix: string) => rows.find((r) => r.name.startsWith(prefix))!;
  const ratio = (ours: string, base: string) => ({
    median: row(ours).median / row(base).median,
    best: row(ours).best / row(base).best,
  });
  const upload = ratio("API upload", "baseline upload");
  const uploadVsHashing = ratio("API upload", "hashing baseline upload");
  const download = ratio("API download", "baseline download (file.readable)");
  const downloadVsLength = ratio("API download", "baseline download (file.readable + Content");
  const maxGrowth = Math.max(
    ...rows.filter((r) => r.name.startsWith("API")).map((r) => r.growthMiB),
  );

  console.log(`${SIZE / MiB} MiB file, ${RUNS} runs each, ${Deno.build.os}/${Deno.build.arch}`);
  results.printTable("transfer");
  console.log("");
  for (const [name, r] of Object.entries(results.runs)) {
    console.log(`${name}: every run ${r.mibPerSec.map((v) => v.toFixed(0)).join(", ")} MiB/s`);
  }
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  const show = (name: string, r: { median: number; best: number }, target: number) =>
    console.log(
      `${name} ratio ${r.median.toFixed(2)}x median, ${r.best.toFixed(2)}x best ` +
        `(target >= ${target}x: ${verdict(r.median >= target)})`,
    );
  console.log("");
  // Issue 13's targets: uploads >= 0.9x a baseline that hashes as it writes, downloads >= 1.0x
  // the bare file.readable. (The first issue's 1.2x against a non-hashing baseline was withdrawn:
  // it asked for more than one SHA-256 stream gives on this CPU.)
  show("upload vs the hashing baseline", uploadVsHashing, 0.9);
  show("upload vs the non-hashing baseline", upload, 1.2);
  const hashRates = [];
  for (let i = 0; i < 3; i++) hashRates.push(sha256Rate());
  const ceiling = Math.max(...hashRates);
  console.log(
    `  SHA-256 alone (the upload's ceiling): ${ceiling.toFixed(0)} MiB/s = ` +
      `${(ceiling / row("baseline upload").median).toFixed(2)}x the baseline upload median`,
  );
  show("download", download, 1.0);
  show("download vs the Content-Length baseline", downloadVsLength, 1.0);
  console.log(
    `API peak RSS growth ${maxGrowth.toFixed(1)} MiB (target < 64 MiB: ${verdict(maxGrowth < 64)})`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
