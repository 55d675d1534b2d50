/**
 * The S3 path through the whole service (issue 26): a file up (multipart POST /files) and down
 * (its download URL) through main.ts on a real denokv and a real SeaweedFS, against curl PUT and
 * GET straight to the same bucket, and the server's VmRSS every 50 ms during a large upload.
 *
 *   deno run -A bench/s3_service.ts [--only bytes,memory] [--mib 256] [--runs 3]
 *     [--memory-mib 1024] [--memory-runs 2] [--prof DIR]
 *
 * curl is the client of every transfer (to the service and straight to the bucket alike), who
 * goes first alternating per round, after one unmeasured round. `--prof DIR` runs main.ts with
 * `--cpu-prof --cpu-prof-dir=DIR` (the profile is written when it stops).
 */
import { startDenoKv } from "../tests/helpers/denokv_server.ts";
import { startS3Server } from "../tests/helpers/s3_server.ts";
import { ADMIN_TOKEN, freePort, median, MiB, numberArg, stringArg, waitFor } from "./lib.ts";
import { bytesOf, hostUser, rssDuring } from "./scale_out_lib.ts";

const ONLY = (stringArg("only") ?? "bytes,memory").split(",");
const SIZE = numberArg("mib", 256) * MiB;
const RUNS = numberArg("runs", 3);
const MEMORY_SIZE = numberArg("memory-mib", 1024) * MiB;
const MEMORY_RUNS = numberArg("memory-runs", 2);
const PROF = stringArg("prof");
const ROOT = new URL("..", import.meta.url).pathname;

const block = new Uint8Array(16 * MiB);
for (let off = 0; off < block.length; off += 65_536) {
  crypto.getRandomValues(block.subarray(off, off + 65_536));
}

/** curl's stdout (its last line "<status> <up> <down>") and the seconds it took. */
async function curl(args: string[]): Promise<{ out: string; seconds: number }> {
  const t = performance.now();
  const { stdout, success } = await new Deno.Command("curl", {
    args: ["-sS", "-w", "\n%{http_code} %{size_upload} %{size_download}", ...args],
    stderr: "inherit",
  }).output();
  const seconds = (performance.now() - t) / 1000;
  const out = new TextDecoder().decode(stdout);
  const status = out.slice(out.lastIndexOf("\n") + 1).split(" ")[0];
  if (!success || !status.startsWith("2")) throw new Error(`curl ${args.at(-1)}: ${out}`);
  return { out, seconds };
}

async function fileOf(size: number): Promise<string> {
  const path = await Deno.makeTempFile({ prefix: "bench-s3svc-", suffix: ".bin" });
  const file = await Deno.open(path, { write: true });
  for await (const chunk of bytesOf(block, size)) await file.write(chunk);
  file.close();
  return path;
}

const denokv = await startDenoKv();
const s3 = await startS3Server();
const bucket = await s3.newBucket();
const port = freePort();
const url = `http://127.0.0.1:${port}`;
const child = new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", ...(PROF ? ["--cpu-prof", `--cpu-prof-dir=${PROF}`] : []), "main.ts"],
  cwd: ROOT,
  env: {
    PORT: String(port),
    HOST: "127.0.0.1",
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    DRIVE_LOG_LEVEL: "error",
    DRIVE_PUBLIC_URL: url,
    DRIVE_KV: denokv.url,
    ...denokv.env,
    ...s3.env(bucket),
  },
  stdout: "null",
  stderr: "inherit",
}).spawn();
try {
  await waitFor(`${url}/healthz`);
  const { key } = await hostUser(url, "s3svc");
  const auth = ["-H", `authorization: Bearer ${key}`];
  const sigv4 = [
    "--aws-sigv4",
    "aws:amz:us-east-1:s3",
    "--user",
    `${s3.accessKeyId}:${s3.secretAccessKey}`,
    "-H",
    "x-amz-content-sha256: UNSIGNED-PAYLOAD",
  ];
  const objectUrl = (k: string) => `${s3.endpoint}/${bucket}/${k}`;
  const oursUp = async (path: string, name: string) => {
    const r = await curl([
      ...auth,
      "-F",
      `file=@${path};filename=${name}`,
      `${url}/api/external/v1/files`,
    ]);
    return { ...r, rs: JSON.parse(r.out.slice(0, r.out.lastIndexOf("\n"))).data.resourceSeq };
  };
  const oursDown = (rs: number) =>
    curl([...auth, "-o", "/dev/null", `${url}/api/external/v1/files/${rs}/download`]);
  const remove = async (rs: number) => {
    await (await fetch(`${url}/api/external/v1/files/${rs}/delete`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${key}` },
    })).body?.cancel();
  };

  if (ONLY.includes("bytes")) {
    const path = await fileOf(SIZE);
    const rows: Record<string, number[]> = { up: [], pUp: [], down: [], pDown: [] };
    const rate = (s: number) => SIZE / MiB / s;
    try {
      for (let round = -1; round < RUNS; round++) {
        const k = `plain/${round}`;
        let rs = 0;
        const ours = async () => {
          const r = await oursUp(path, `big-${round}.bin`);
          rs = r.rs;
          return r.seconds;
        };
        const plain = async () =>
          (await curl([...sigv4, "-o", "/dev/null", "-T", path, objectUrl(k)])).seconds;
        const [su, pu] = round % 2 === 0
          ? [await ours(), await plain()]
          : await plain().then(async (p) => [await ours(), p]);
        const od = async () => (await oursDown(rs)).seconds;
        const pd0 = async () => (await curl([...sigv4, "-o", "/dev/null", objectUrl(k)])).seconds;
        const [sd, pd] = round % 2 === 0
          ? [await od(), await pd0()]
          : await pd0().then(async (p) => [await od(), p]);
        await remove(rs);
        if (round < 0) continue;
        rows.up.push(rate(su));
        rows.pUp.push(rate(pu));
        rows.down.push(rate(sd));
        rows.pDown.push(rate(pd));
        console.log(
          `round ${round + 1}: up ${rate(su).toFixed(0)} / plain ${rate(pu).toFixed(0)} MiB/s ` +
            `(${(pu / su).toFixed(2)}), down ${rate(sd).toFixed(0)} / plain ${
              rate(pd).toFixed(0)
            } MiB/s (${(pd / sd).toFixed(2)})`,
        );
      }
    } finally {
      await Deno.remove(path);
    }
    const ratios = (a: string, b: string) => rows[a].map((x, i) => x / rows[b][i]);
    console.log(`\n## ${SIZE / MiB} MiB with curl, median of ${RUNS} rounds\n`);
    console.log("| way | through main.ts | straight to the bucket | median ratio | per round |");
    console.log("|---|---:|---:|---:|---|");
    for (const [way, a, b] of [["upload", "up", "pUp"], ["download", "down", "pDown"]]) {
      const r = ratios(a, b);
      console.log(
        `| ${way} | ${median(rows[a]).toFixed(0)} MiB/s | ${median(rows[b]).toFixed(0)} MiB/s | ${
          median(r).toFixed(2)
        } | ${r.map((x) => x.toFixed(2)).join(", ")} |`,
      );
    }
  }

  if (ONLY.includes("memory")) {
    const path = await fileOf(MEMORY_SIZE);
    try {
      console.log(`\n## ${MEMORY_SIZE / MiB} MiB uploads, server VmRSS every 50 ms\n`);
      console.log("| run | MiB/s | RSS before | peak | growth (target < 64 MiB) |");
      console.log("|---|---:|---:|---:|---:|");
      for (let i = 0; i < MEMORY_RUNS; i++) {
        const up = await rssDuring(child.pid, () => oursUp(path, `huge-${i}.bin`));
        await remove(up.value.rs);
        console.log(
          `| ${i + 1} | ${(MEMORY_SIZE / MiB / up.seconds).toFixed(0)} | ${
            up.before.toFixed(0)
          } MiB | ${up.peak.toFixed(0)} MiB | ${(up.peak - up.before).toFixed(1)} MiB |`,
        );
      }
    } finally {
      await Deno.remove(path);
    }
  }
} finally {
  child.kill("SIGTERM");
  await child.status;
  await s3.stop();
  await denokv.stop();
}
