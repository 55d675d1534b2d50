/**
 * The two-host harness cleans up after itself (tests/helpers/netns.ts, tests/scale/two_hosts.ts):
 * what a crashed earlier run left is removed by the next run, and a test that fails still leaves
 * no namespace, link or process of its own behind.
 */
import assert from "node:assert/strict";
import { netnsPair } from "../helpers/netns.ts";
import { withTwoHosts } from "./two_hosts.ts";

async function ip(...args: string[]): Promise<string> {
  const out = await new Deno.Command("ip", { args, stdout: "piped", stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout);
}

const alive = (pid: number) => {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
};

/** The signal that ended `child`, or "running" when it did not end within 10 s. */
async function endedBy(child: Deno.ChildProcess): Promise<string> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<string>((r) => (timer = setTimeout(() => r("running"), 10_000)));
  const ended = await Promise.race([child.status.then((s) => String(s.signal)), late]);
  clearTimeout(timer);
  return ended;
}

/** A pid no process has now (the highest pid value, never handed out by default settings). */
const DEAD_PID = 4194303;

Deno.test("a crashed run's namespaces, their processes and its links are removed by the next", async () => {
  // What a run killed with SIGKILL leaves: a namespace with a process inside, and a bridge.
  const ns = `dv${DEAD_PID}-zza`;
  const bridge = `dv${DEAD_PID}-zzbr`;
  await ip("netns", "add", ns);
  await ip("link", "add", bridge, "type", "bridge");
  const sleeper = new Deno.Command("ip", {
    args: ["netns", "exec", ns, "sleep", "600"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const pair = await netnsPair();
    await pair.remove();
    assert.deepEqual(
      {
        namespaces: (await ip("netns", "list")).match(new RegExp(`dv${DEAD_PID}-`, "g")),
        links: (await ip("-o", "link", "show")).match(new RegExp(`dv${DEAD_PID}-`, "g")),
        sleeper: await endedBy(sleeper),
      },
      { namespaces: null, links: null, sleeper: "SIGKILL" },
    );
  } finally {
    try {
      sleeper.kill("SIGKILL");
    } catch { /* gone already */ }
    await sleeper.status;
    await ip("netns", "del", ns);
    await ip("link", "del", bridge);
  }
});

Deno.test("a failing two-host test leaves no namespace, link or host process behind", async () => {
  const seen: { names: string[]; pids: number[]; rootIp: string } = {
    names: [],
    pids: [],
    rootIp: "",
  };
  await assert.rejects(
    withTwoHosts(async (c) => {
      seen.names = [c.net.a.name, c.net.b.name];
      seen.rootIp = c.net.rootIp;
      for (const name of seen.names) {
        seen.pids.push(
          ...(await ip("netns", "pids", name)).split(/\s+/).filter(Boolean).map(Number),
        );
      }
      throw new Error("the test failed");
    }),
    /the test failed/,
  );
  assert.ok(seen.pids.length >= 2, "main.ts ran in each namespace");
  const namespaces = await ip("netns", "list");
  const addresses = await ip("-o", "-4", "addr", "show");
  assert.deepEqual({
    namespaces: seen.names.filter((n) => namespaces.includes(n)),
    rootAddress: addresses.includes(`inet ${seen.rootIp}/`),
    hosts: seen.pids.filter(alive),
  }, { namespaces: [], rootAddress: false, hosts: [] });
});
