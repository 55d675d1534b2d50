/**
 * Drive API listing load: `--clients` clients (default 128) each GET a 1,000-entry folder page
 * (`/resources?pfs=..&ps=1000`) of a real server process (`main.ts`), 3 pages per client; the
 * rate and the server's peak RSS over the load (`/proc` VmHWM, reset before it). With
 * `--before <dir>` the same against another checkout's main.ts, one server at a time. Shows what
 * the listing turns (`DRIVE_LIST_CONCURRENCY`, docs/benchmarks-history.md "Fifth pass") bound.
 *
 *   deno run -A bench/drive_list_load.ts [--clients 128] [--before <dir>]
 */
import {
  benchDriveApi,
  freePort,
  mainEnv,
  numberArg,
  peakRssMiB,
  rate,
  resetPeak,
  stringArg,
  waitFor,
} from "./lib.ts";

const CLIENTS = numberArg("clients", 128);
const FILES = 1000;

async function measure(label: string, cwd: string) {
  const dataDir = await Deno.makeTempDir({ prefix: `drive-list-${label}-` });
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd,
    env: mainEnv(port, dataDir),
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  try {
    await waitFor(`${url}/healthz`);
    const api = await benchDriveApi(url);
    const made = await (await api("/folders", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fn: "big" }),
    })).json();
    const folder = made.data.resourceSeq;
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < FILES) {
        const form = new FormData();
        form.append("pfs", String(folder));
        form.append("file", new Blob([`f${next}`]), `file-${next++}.txt`);
        const res = await api("/files", { method: "POST", body: form });
        if (res.status !== 201) throw new Error(await res.text());
        await res.body?.cancel();
      }
    }));
    await resetPeak(child.pid);
    const rps = await rate(CLIENTS * 3, CLIENTS, async () => {
      const res = await api(`/resources?pfs=${folder}&ps=1000`);
      const items = res.status === 200 ? (await res.json()).data.items.length : -1;
      if (items !== FILES) throw new Error(`page: ${res.status}, ${items} items`);
    });
    console.log(
      `${label.padEnd(8)} ${CLIENTS} clients: ${
        Math.round(rps)
      } pages/s, peak RSS ${await peakRssMiB(
        child.pid,
      )} MiB`,
    );
  } finally {
    child.kill();
    await child.status;
    await Deno.remove(dataDir, { recursive: true });
  }
}

await measure("current", new URL("..", import.meta.url).pathname);
const before = stringArg("before");
if (before) await measure("before", before);
