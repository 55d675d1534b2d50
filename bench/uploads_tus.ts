/**
 * Resumable (tus) upload throughput against the multipart upload, in one run on one server.
 *   deno run -A bench/uploads_tus.ts [--mib 256] [--piece-mib 8] [--runs 3]
 * The real app (bench/serve_app.ts: fs blob store, KV file) as a child process; the client is
 * curl for both (as bench/upload_download.ts). Multipart: one `POST /files` of the whole file.
 * tus: `POST /uploads`, then every PATCH of `--piece-mib` in one curl on one connection
 * (`--next`), the timing covering creation, every PATCH and the final commit. Each round deletes
 * both files (trash and purge) and syncs the disk, so every transfer starts alike. Also reports
 * the server's peak RSS growth during each (VmHWM after a reset, minus VmRSS before).
 * Target: tus >= 0.8x the multipart upload's MiB/s (median), memory flat.
 */
import { AdminClient } from "../tests/helpers/admin.ts";
import { ADMIN_TOKEN, measureTransfer, MiB, numberArg, startApp, TransferRuns } from "./lib.ts";

const SIZE = numberArg("mib", 256) * MiB;
const PIECE = numberArg("piece-mib", 8) * MiB;
const RUNS = numberArg("runs", 3);

/** curl with `-w` appending "<status>" per request; stdout and stderr as text. */
async function curl(args: string[]): Promise<{ out: string; headers: string }> {
  const headersFile = await Deno.makeTempFile();
  try {
    const res = await new Deno.Command("curl", {
      args: ["-sS", "-H", "Expect:", "-D", headersFile, "-w", "\n%{http_code}\n", ...args],
      stdout: "piped",
    }).output();
    const out = new TextDecoder().decode(res.stdout);
    const statuses = [...out.matchAll(/^(\d{3})$/gm)].map((m) => Number(m[1]));
    if (!res.success || statuses.some((s) => s >= 300)) {
      throw new Error(`curl failed (${statuses.join(",")}): ${out.slice(0, 500)}`);
    }
    return { out, headers: await Deno.readTextFile(headersFile) };
  } finally {
    await Deno.remove(headersFile);
  }
}

const dir = await Deno.makeTempDir({ prefix: "drive-bench-tus-" });
try {
  // Random bytes from disk, whole (multipart) and in pieces (tus); pieces are separate files so
  // curl sends each with its Content-Length.
  const payload = `${dir}/payload.bin`;
  const pieces: string[] = [];
  {
    const whole = await Deno.open(payload, { write: true, create: true });
    const buf = new Uint8Array(MiB);
    for (let p = 0; p * PIECE < SIZE; p++) {
      const path = `${dir}/piece-${p}.bin`;
      pieces.push(path);
      const piece = await Deno.open(path, { write: true, create: true });
      for (let done = 0; done < Math.min(PIECE, SIZE - p * PIECE); done += MiB) {
        for (let off = 0; off < MiB; off += 65_536) {
          crypto.getRandomValues(buf.subarray(off, off + 65_536));
        }
        await whole.write(buf);
        await piece.write(buf);
      }
      piece.close();
    }
    whole.close();
  }
  await Deno.mkdir(`${dir}/app`);
  const app = await startApp(`${dir}/app`);
  const results = new TransferRuns();
  try {
    const admin = new AdminClient(app.url, ADMIN_TOKEN);
    const tenant = await admin.createTenant("bench");
    const user = await admin.createUser(tenant.id, "bench", { quotaBytes: 64 * 1024 * MiB });
    const key = await admin.createKey(user.userSeq);
    const auth = ["-H", `Authorization: Bearer ${key}`];
    const api = `${app.url}/api/external/v1`;
    const tus = ["-H", "Tus-Resumable: 1.0.0"];

    const measure = async (name: string, transfer: () => Promise<number>) => {
      await new Deno.Command("sync").output();
      const { value: rs, ...run } = await measureTransfer(app.pid, SIZE, transfer);
      results.add(name, run);
      await curl([...auth, "-o", "/dev/null", "-X", "PATCH", `${api}/files/${rs}/delete`]);
      await curl([...auth, "-o", "/dev/null", "-X", "DELETE", `${api}/trash/${rs}`]);
    };

    for (let run = 0; run < RUNS; run++) {
      await measure("multipart POST /files (one request)", async () => {
        const { out } = await curl([
          ...auth,
          "-F",
          `file=@${payload};filename=m.bin`,
          `${api}/files`,
        ]);
        return JSON.parse(out.slice(0, out.lastIndexOf("\n", out.length - 2))).data.resourceSeq;
      });
      await measure(
        `tus POST /uploads + ${pieces.length} PATCHes of ${PIECE / MiB} MiB`,
        async () => {
          const created = await curl([
            ...auth,
            ...tus,
            "-o",
            "/dev/null",
            "-X",
            "POST",
            "-H",
            `Upload-Length: ${SIZE}`,
            "-H",
            `Upload-Metadata: filename ${btoa("t.bin")}`,
            `${api}/uploads`,
          ]);
          const location = /^location: (\S+)/im.exec(created.headers)![1];
          const url = `${app.url}${location}`;
          const args: string[] = [];
          pieces.forEach((piece, i) => {
            if (i > 0) args.push("--next");
            args.push(...auth, ...tus, "-o", "/dev/null", "-X", "PATCH");
            args.push("-H", "Content-Type: application/offset+octet-stream");
            args.push("-H", `Upload-Offset: ${i * PIECE}`, "-T", piece, url);
          });
          await curl(args);
          const status = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
          const data = (await status.json()).data;
          if (data.state !== "completed") throw new Error(`upload ${data.state}`);
          return data.file.resourceSeq;
        },
      );
    }
  } finally {
    await app.stop();
  }

  const rows = results.rows();
  console.log(`${SIZE / MiB} MiB file, ${RUNS} runs each, ${Deno.build.os}/${Deno.build.arch}`);
  results.printTable("upload");
  const ratio = rows[1].median / rows[0].median;
  console.log(
    `\ntus / multipart: ${ratio.toFixed(2)}x median, ` +
      `${(rows[1].best / rows[0].best).toFixed(2)}x best (target >= 0.8x: ` +
      `${ratio >= 0.8 ? "met" : "NOT met"})`,
  );
} finally {
  await Deno.remove(dir, { recursive: true });
}
