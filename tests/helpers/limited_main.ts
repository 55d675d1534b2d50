/**
 * main.ts under a chosen descriptor limit (`ulimit -n`), for the connection-limit tests: started
 * through a shell that sets the limit, resolved once it listens, its stdout and stderr collected
 * (shown when an assertion fails), its data directory removed on stop.
 */
import { ADMIN_TOKEN } from "./admin.ts";
import { MAIN } from "./process.ts";

export interface LimitedMain {
  port: number;
  /** Resolves when the process has exited (it never should while a test runs). */
  exited: Promise<Deno.CommandStatus>;
  alive(): boolean;
  output(): string;
  stop(): Promise<void>;
}

const LISTENING = /listening on http:\/\/\S+:(\d+)/;

/**
 * `fds`: the soft limit to set, or "raised" for as many as the hard limit allows up to 8,192
 * (a flood of thousands of connections needs them).
 */
export async function startLimitedMain(
  env: Record<string, string>,
  fds: number | "raised",
): Promise<LimitedMain> {
  const dir = await Deno.makeTempDir({ prefix: "drive-limited-main-" });
  const ulimit = fds === "raised"
    ? `ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)";`
    : `ulimit -n ${fds} &&`;
  const child = new Deno.Command("sh", {
    args: ["-c", `${ulimit} exec "$0" run -A "$1"`, Deno.execPath(), MAIN],
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      DRIVE_DATA_DIR: dir,
      DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
      ...env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let exited = false;
  const drain = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>) => {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) out += text;
  };
  const drained = Promise.all([drain(child.stdout), drain(child.stderr)]);
  const status = child.status.then((s) => {
    exited = true;
    return s;
  });
  const deadline = Date.now() + 30_000;
  while (!LISTENING.test(out)) {
    if (exited) throw new Error(`main.ts exited before listening:\n${out}`);
    if (Date.now() > deadline) throw new Error(`main.ts did not listen:\n${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    port: Number(LISTENING.exec(out)![1]),
    exited: status,
    alive: () => !exited,
    output: () => out,
    async stop() {
      if (!exited) child.kill("SIGTERM");
      await status;
      await drained;
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}
