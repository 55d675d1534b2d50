/**
 * main.ts as a process of its own, for tests of start-up, signals and crashes: resolves once it
 * printed the URL it listens on (with whatever else it printed by then, e.g. the admin token).
 * Its stdout is read to the end meanwhile (the request log goes there: an unread pipe would fill
 * and stall the server); `output()` has all of it.
 */
import { ADMIN_TOKEN } from "./admin.ts";
import { sharedKv } from "./denokv_server.ts";

export const MAIN = new URL("../../main.ts", import.meta.url).pathname;
/** The start line, as a text line or inside a JSON log line (hence no quote in the URL). */
const LISTENING = /listening on (http:\/\/[^\s"]+)/;

export interface MainProcess {
  url: string;
  /** What the process printed on stdout up to a moment after its start line. */
  out: string;
  /** Everything it printed on stdout so far (all of it once `stop` or `kill` returned). */
  output(): string;
  /** SIGTERM, then its exit status (a clean stop exits 0). */
  stop(): Promise<Deno.CommandStatus>;
  /** kill -9: no finally block, no cleanup, no lease released. */
  kill(): Promise<void>;
}

/**
 * `task`: start it as that deno.json task does (its flags and environment) instead. The task
 * runner passes SIGTERM on (`stop`); `kill` would end the runner and leave the server running.
 * `wrap`: a command that execs deno in turn (`ip netns exec <ns>`, tests/helpers/netns.ts).
 */
export async function startMain(
  env: Record<string, string>,
  { task, wrap = [] }: { task?: string; wrap?: string[] } = {},
): Promise<MainProcess> {
  const deno = [Deno.execPath(), ...(task ? ["task", "--quiet", task] : ["run", "-A", MAIN])];
  const [command, ...args] = [...wrap, ...deno];
  const child = new Deno.Command(command, {
    args,
    cwd: new URL("../..", import.meta.url).pathname,
    env: { PORT: "0", HOST: "127.0.0.1", ...env },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!LISTENING.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`main.ts exited early: ${out}`);
    out += value;
  }
  // Give a line printed right after the start line (the admin token) a moment to arrive.
  const next = reader.read();
  const more = await Promise.race([
    next,
    new Promise<null>((r) => setTimeout(() => r(null), 300)),
  ]);
  if (more && !more.done) out += more.value;
  const startOut = out;
  const drained = (async () => {
    if (more?.done) return;
    if (!more) {
      // The read raced above is still pending: its bytes come first.
      const first = await next;
      if (first.done) return;
      out += first.value;
    }
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      out += value;
    }
  })().catch(() => {});
  // The process has exited, so its stdout ends: wait for the last bytes.
  const release = () => drained;
  return {
    url: LISTENING.exec(startOut)![1].replace("localhost", "127.0.0.1"),
    out: startOut,
    output: () => out,
    async stop() {
      child.kill("SIGTERM");
      const status = await child.status;
      await release();
      return status;
    },
    async kill() {
      child.kill("SIGKILL");
      await child.status;
      await release();
    },
  };
}

/**
 * Runs `fn` on two main.ts processes over one fresh data directory and one KV (the KV file in
 * it, or one denokv server with DRIVE_TEST_KV=denokv), as two instances of a deployment are,
 * started with the test admin token and `env`; both are stopped and the KV removed afterwards.
 */
export async function withTwoMains(
  env: Record<string, string>,
  fn: (a: MainProcess, b: MainProcess) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "drive-two-mains-" });
  const kv = await sharedKv(dir);
  const onKv = kv.env.DENO_KV_ACCESS_TOKEN ? { DRIVE_KV: kv.kvPath, ...kv.env } : {};
  const shared = { DRIVE_DATA_DIR: dir, DRIVE_ADMIN_TOKEN: ADMIN_TOKEN, ...onKv, ...env };
  const procs: MainProcess[] = [];
  try {
    procs.push(await startMain(shared), await startMain(shared));
    await fn(procs[0], procs[1]);
  } finally {
    for (const p of procs) await p.stop();
    await kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}
