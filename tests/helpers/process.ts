/**
 * main.ts as a process of its own, for tests of start-up, signals and crashes: resolves once it
 * printed the URL it listens on (with whatever else it printed by then, e.g. the admin token).
 */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const LISTENING = /listening on (http:\/\/\S+)/;

export interface MainProcess {
  url: string;
  /** What the process printed on stdout up to a moment after its start line. */
  out: string;
  /** SIGTERM, then its exit status (a clean stop exits 0). */
  stop(): Promise<Deno.CommandStatus>;
  /** kill -9: no finally block, no cleanup, no lease released. */
  kill(): Promise<void>;
}

export async function startMain(env: Record<string, string>): Promise<MainProcess> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
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
  const more = await Promise.race([
    reader.read(),
    new Promise<null>((r) => setTimeout(() => r(null), 300)),
  ]);
  if (more && !more.done) out += more.value;
  const release = async () => {
    await reader.cancel().catch(() => {});
  };
  return {
    url: LISTENING.exec(out)![1].replace("localhost", "127.0.0.1"),
    out,
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
