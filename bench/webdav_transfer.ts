/**
 * WebDAV transfers side by side with `rclone serve webdav` (Debian's rclone) in the same run
 * (docs/benchmarks.md, "WebDAV, remaining targets"; issue 23):
 *   - `--puts` small PUTs (default 1,000, 1-16 KiB each, random bytes) from 1 client and from 16;
 *   - one `--mib` PUT (default 256 MiB; the drive hashes every byte) and its GET through WebDAV,
 *     and the same bytes through the drive API's download (GET /files/{rs}/download) and through
 *     a bare `Deno.serve` returning the blob file's `readable` with a Content-Length
 *     (bench/serve_baseline.ts), so the API's cost over the runtime's own shows.
 * The small PUTs also go to the create floor (bench/serve_create_floor.ts --sets 9: the body hashed
 * into a file renamed into place, then one `getMany` and one 9-key commit), what any design on
 * Deno KV must do per PUT. Medians of `--runs` (default 3); which side goes first alternates per run. Big transfers use
 * curl (light enough not to be the bottleneck), small PUTs Deno's fetch (the same for both).
 * The drive runs as bench/serve_app.ts (fs blobs, KV file).
 * Usage: deno run -A bench/webdav_transfer.ts [--puts N] [--mib N] [--runs N] [--skip-small]
 */
import {
  benchApiKey,
  freePort,
  median,
  MiB,
  numberArg,
  startApp,
  startServer,
  waitFor,
} from "./lib.ts";

const PUTS = numberArg("puts", 1_000);
const SIZE = numberArg("mib", 256) * MiB;
const RUNS = numberArg("runs", 3);
const SKIP_SMALL = Deno.args.includes("--skip-small");

interface Target {
  name: string;
  base: string;
  auth: string;
}

/** curl's stdout and "<status> <bytes>" (-w); throws on a failure status. */
async function curl(args: string[]) {
  const out = await new Deno.Command("curl", {
    args: ["-sS", "-H", "Expect:", "-w", "\n%{http_code} %{size_download} %{size_upload}", ...args],
    stdout: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const cut = text.lastIndexOf("\n");
  const [status, down, up] = text.slice(cut + 1).split(" ").map(Number);
  if (!out.success || status >= 300) throw new Error(`curl ${args.join(" ")}: ${text}`);
  return { bytes: Math.max(down, up), body: text.slice(0, cut) };
}

const authArgs = (t: Target) => (t.auth ? ["-H", `Authorization: ${t.auth}`] : []);

/** MiB/s of one curl transfer of SIZE bytes. */
async function transfer(args: string[]): Promise<number> {
  const t0 = performance.now();
  const { bytes } = await curl(args);
  if (bytes !== SIZE) throw new Error(`moved ${bytes} bytes, expected ${SIZE}`);
  return SIZE / MiB / ((performance.now() - t0) / 1000);
}

/**
 * PUTs of `bodies` into the new collection `dir` from `clients` loops: PUTs per second, and how
 * many answers were RESOURCE_012 (503 with Retry-After, dav/context.ts; 409 before: the commit
 * lost its retries to concurrent ones), which are put again, as a client would.
 */
async function smallPuts(
  t: Target,
  dir: string,
  bodies: Uint8Array<ArrayBuffer>[],
  clients: number,
) {
  const mk = await fetch(`${t.base}${dir}`, {
    method: "MKCOL",
    headers: { authorization: t.auth },
  });
  await mk.body?.cancel();
  if (mk.status !== 201) throw new Error(`${t.name} MKCOL ${dir}: ${mk.status}`);
  const queue = bodies.map((_, i) => i).reverse();
  let conflicts = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let i = queue.pop(); i !== undefined; i = queue.pop()) {
      const res = await fetch(`${t.base}${dir}/f${i}.bin`, {
        method: "PUT",
        headers: { authorization: t.auth, "content-type": "application/octet-stream" },
        body: bodies[i],
      });
      const text = await res.text();
      if ((res.status === 503 || res.status === 409) && text.includes("RESOURCE_012")) {
        conflicts++;
        queue.push(i);
      } else if (res.status !== 201 && res.status !== 204) {
        throw new Error(`${t.name} PUT: ${res.status} ${text}`);
      }
    }
  }));
  return { perS: bodies.length / ((performance.now() - started) / 1000), conflicts };
}

const dir = await Deno.makeTempDir({ prefix: "bench-davx-" });
const rcloneDir = `${dir}/rclone`;
const baselineDir = `${dir}/baseline`;
await Deno.mkdir(rcloneDir);
await Deno.mkdir(baselineDir);
await Deno.mkdir(`${dir}/app`);
// Random bytes (incompressible), read by curl from disk.
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
const bodies = Array.from({ length: PUTS }, () => {
  const b = new Uint8Array(1024 + Math.floor(Math.random() * 15 * 1024));
  crypto.getRandomValues(b);
  return b;
});

const app = await startApp(`${dir}/app`);
const baseline = await startServer(new URL("./serve_baseline.ts", import.meta.url).pathname, [
  baselineDir,
]);
const floor = await startServer(new URL("./serve_create_floor.ts", import.meta.url).pathname, [
  `${dir}/floor.kv`,
  "--sets",
  "9",
]);
const port = freePort();
const rclone = new Deno.Command("rclone", {
  args: ["serve", "webdav", rcloneDir, "--addr", `127.0.0.1:${port}`, "--config", "/dev/null"],
  stdout: "null",
  stderr: "null",
}).spawn();
const figures: Record<string, number[]> = {};
const add = (name: string, v: number) => (figures[name] ??= []).push(v);
try {
  await waitFor(`http://127.0.0.1:${port}/`, { anyAnswer: true });
  const key = await benchApiKey(app.url, 1e13);
  const drive: Target = {
    name: "drive",
    base: `${app.url}/dav/files/bench`,
    auth: `Bearer ${key}`,
  };
  const rc: Target = { name: "rclone", base: `http://127.0.0.1:${port}`, auth: "" };
  const api = `${app.url}/api/external/v1`;

  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 ? [rc, drive] : [drive, rc];
    if (!SKIP_SMALL) {
      for (const clients of [1, 16]) {
        const floorTarget = { name: "floor", base: floor.url, auth: "Bearer floor-key" };
        for (const t of [...order, floorTarget]) {
          const r = await smallPuts(t, `/s${run}c${clients}`, bodies, clients);
          add(`${t.name} small PUT ${clients}c /s`, r.perS);
          add(`${t.name} small PUT ${clients}c RESOURCE_012 answers`, r.conflicts);
        }
      }
    }
    for (const t of order) {
      add(
        `${t.name} PUT MiB/s`,
        await transfer([...authArgs(t), "-T", payload, `${t.base}/big${run}.bin`]),
      );
    }
    await new Deno.Command("sync").output();
    // The blob the drive stored: its rs for the API download, its file for the bare baseline.
    const list =
      await (await fetch(`${api}/resources?ps=200`, { headers: { authorization: drive.auth } }))
        .json();
    const rs = list.data.items.find((i: { name: string }) =>
      i.name === `big${run}.bin`
    ).resourceSeq;
    await Deno.copyFile(payload, `${baselineDir}/baseline.bin`);
    const gets: [string, () => Promise<number>][] = [
      ["drive GET MiB/s", () =>
        transfer([...authArgs(drive), "-o", "/dev/null", `${drive.base}/big${run}.bin`])],
      ["rclone GET MiB/s", () =>
        transfer(["-o", "/dev/null", `${rc.base}/big${run}.bin`])],
      [
        "drive API download MiB/s",
        () => transfer([...authArgs(drive), "-o", "/dev/null", `${api}/files/${rs}/download`]),
      ],
      [
        "bare Deno.serve file MiB/s",
        () => transfer(["-o", "/dev/null", `${baseline.url}/?length=1`]),
      ],
    ];
    // Warm the page cache for every source once, then measure in a rotating order.
    for (const [, get] of gets) await get();
    for (let i = 0; i < gets.length; i++) {
      const [name, get] = gets[(run + i) % gets.length];
      add(name, await get());
    }
  }

  const m = (name: string) => median(figures[name]);
  const table: string[] = [];
  const row = (what: string, d: string, r: string, target: number) => {
    const ratio = m(d) / m(r);
    table.push(
      `| ${what} | ${m(d).toFixed(0)} | ${m(r).toFixed(0)} | ${ratio.toFixed(2)}× | ≥ ${target}× ${
        ratio >= target ? "met" : "NOT met"
      } |`,
    );
  };
  console.log(JSON.stringify(figures, (_k, v) => typeof v === "number" ? Math.round(v) : v));
  if (!SKIP_SMALL) {
    row(
      `${PUTS} small PUTs, 1 client (/s)`,
      "drive small PUT 1c /s",
      "rclone small PUT 1c /s",
      0.5,
    );
    row(
      `${PUTS} small PUTs, 16 clients (/s)`,
      "drive small PUT 16c /s",
      "rclone small PUT 16c /s",
      0.5,
    );
    row(
      `${PUTS} small PUTs, 1 client: the floor (/s)`,
      "floor small PUT 1c /s",
      "rclone small PUT 1c /s",
      0.5,
    );
    row(
      `${PUTS} small PUTs, 16 clients: the floor (/s)`,
      "floor small PUT 16c /s",
      "rclone small PUT 16c /s",
      0.5,
    );
  }
  row(`${SIZE / MiB} MiB PUT (MiB/s)`, "drive PUT MiB/s", "rclone PUT MiB/s", 1.0);
  row(`${SIZE / MiB} MiB GET, WebDAV (MiB/s)`, "drive GET MiB/s", "rclone GET MiB/s", 0.8);
  row(
    `${SIZE / MiB} MiB GET, API download (MiB/s)`,
    "drive API download MiB/s",
    "rclone GET MiB/s",
    0.8,
  );
  row(
    `bare Deno.serve file response (MiB/s)`,
    "bare Deno.serve file MiB/s",
    "rclone GET MiB/s",
    0.8,
  );
  console.log(`| measure (${RUNS} runs, medians) | drive | rclone | ratio | target |`);
  console.log("|---|---:|---:|---:|---|");
  console.log(table.join("\n"));
  console.log(
    `API download vs bare Deno.serve: ${
      (m("drive API download MiB/s") / m("bare Deno.serve file MiB/s")).toFixed(2)
    }×`,
  );
} finally {
  rclone.kill("SIGTERM");
  await rclone.status;
  await app.stop();
  await baseline.stop();
  await floor.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
