/**
 * Two hosts on one machine, for the scale-out tests (tests/scale/): two network namespaces, each
 * with its own IP on a bridge in the root namespace, and a way to run a command inside one.
 *
 *   root namespace: bridge <tag>br 10.201.X.1/24 ── denokv, SeaweedFS S3, webhook receivers
 *     ├─ veth <tag>ah ── namespace <tag>a: eth0 10.201.X.2, lo
 *     └─ veth <tag>bh ── namespace <tag>b: eth0 10.201.X.3, lo
 *
 * Names carry the test process's pid (`dv<pid>-<rand>`), so a run can tell its own namespaces
 * from a crashed earlier run's (whose pid is gone) and removes only those. X is a third octet no
 * interface of this machine uses yet, so two runs at once get two subnets. Leftovers' processes
 * (servers inside a dead run's namespaces) are killed with them.
 * It needs root and iproute2's `ip`; without them `netnsPair` throws saying so (never skips).
 */

export interface Netns {
  /** The namespace's name (`ip netns exec <name> ...`). */
  name: string;
  /** Its own address on the bridge. */
  ip: string;
  /** The command prefix that runs a program inside it. */
  wrap: string[];
}

export interface NetnsPair {
  /** The bridge's address in the root namespace: where shared servers listen. */
  rootIp: string;
  a: Netns;
  b: Netns;
  /** Deletes both namespaces (and with them their veth ends) and the bridge. */
  remove(): Promise<void>;
}

const PREFIX = "dv";
const NAME = /^dv(\d+)-[0-9a-z]{2}/;

async function run(args: string[], { check = true } = {}): Promise<string> {
  const out = await new Deno.Command("ip", { args, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (check && !out.success) {
    throw new Error(`ip ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return text;
}

/** Throws a clear error when this process cannot make namespaces (not root, or no `ip`). */
export async function requireNetns(): Promise<void> {
  if (Deno.uid() !== 0) {
    throw new Error("the two-host tests need root (ip netns, veth, bridge): run them as root");
  }
  try {
    await run(["-V"]);
  } catch (err) {
    throw new Error(
      `the two-host tests need iproute2's \`ip\` (apt-get install iproute2): ${err}`,
    );
  }
}

function pidAlive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch {
    return false;
  }
}

/** Removes namespaces and links left by an earlier run whose process is gone. */
async function removeLeftovers(): Promise<void> {
  const dead = (name: string) => {
    const m = NAME.exec(name);
    return m !== null && !pidAlive(Number(m[1]));
  };
  for (const line of (await run(["netns", "list"])).split("\n")) {
    const name = line.split(" ")[0];
    if (!dead(name)) continue;
    // Its servers outlived the run that started them: a namespace goes only with its last process.
    for (const pid of (await run(["netns", "pids", name], { check: false })).split(/\s+/)) {
      if (/^\d+$/.test(pid)) Deno.kill(Number(pid), "SIGKILL");
    }
    await run(["netns", "del", name], { check: false });
  }
  for (const line of (await run(["-o", "link", "show"])).split("\n")) {
    const name = /^\d+: ([^:@]+)/.exec(line)?.[1];
    if (name && dead(name)) await run(["link", "del", name], { check: false });
  }
}

/** The third octets X of the 10.201.X.0/24 addresses this machine has, one per address. */
async function subnetsInUse(): Promise<number[]> {
  const out = await run(["-o", "-4", "addr", "show"]);
  return [...out.matchAll(/inet 10\.201\.(\d+)\./g)].map((m) => Number(m[1]));
}

/**
 * Gives `bridge` 10.201.X.1/24 for an X no other interface has. Two runs choosing at the same
 * moment may pick the same X: the one that then finds it twice gives it up and draws again.
 */
async function claimSubnet(bridge: string): Promise<number> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const used = new Set(await subnetsInUse());
    const free = Array.from({ length: 250 }, (_, i) => i + 1).filter((x) => !used.has(x));
    if (free.length === 0) break;
    const x = free[Math.floor(Math.random() * free.length)];
    await run(["addr", "add", `10.201.${x}.1/24`, "dev", bridge]);
    if ((await subnetsInUse()).filter((n) => n === x).length === 1) return x;
    await run(["addr", "del", `10.201.${x}.1/24`, "dev", bridge]);
  }
  throw new Error("no free 10.201.X.0/24 subnet for the test namespaces");
}

/** Creates the two namespaces on a fresh bridge; `remove` undoes all of it. */
export async function netnsPair(): Promise<NetnsPair> {
  await requireNetns();
  await removeLeftovers();
  const tag = `${PREFIX}${Deno.pid}-${crypto.randomUUID().slice(0, 2)}`;
  const bridge = `${tag}br`;
  const made: { bridge?: boolean; ns: string[] } = { ns: [] };
  const remove = async () => {
    for (const ns of made.ns) {
      // The veth first: with the namespace alone the kernel removes it later, not at once.
      await run(["link", "del", `${ns}h`], { check: false });
      await run(["netns", "del", ns], { check: false });
    }
    if (made.bridge) await run(["link", "del", bridge], { check: false });
  };
  try {
    await run(["link", "add", bridge, "type", "bridge"]);
    made.bridge = true;
    const x = await claimSubnet(bridge);
    await run(["link", "set", bridge, "up"]);
    const side = async (role: "a" | "b", host: number): Promise<Netns> => {
      const name = `${tag}${role}`;
      await run(["netns", "add", name]);
      made.ns.push(name);
      // The namespace's end is created inside it, so it can be eth0 there.
      await run(["link", "add", `${name}h`, "type", "veth", "peer", "name", "eth0", "netns", name]);
      await run(["link", "set", `${name}h`, "master", bridge]);
      await run(["link", "set", `${name}h`, "up"]);
      const ip = `10.201.${x}.${host}`;
      await run(["-n", name, "addr", "add", `${ip}/24`, "dev", "eth0"]);
      await run(["-n", name, "link", "set", "eth0", "up"]);
      await run(["-n", name, "link", "set", "lo", "up"]);
      return { name, ip, wrap: ["ip", "netns", "exec", name] };
    };
    const a = await side("a", 2);
    const b = await side("b", 3);
    return { rootIp: `10.201.${x}.1`, a, b, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/**
 * Fetches `url` from inside `ns` (a deno of its own there) and says what came back: the status as
 * a string, or "refused"/"unreachable" when no connection was made.
 */
export async function fetchFrom(ns: Netns, url: string): Promise<string> {
  const script = `try { const r = await fetch(${JSON.stringify(url)}, ` +
    `{ signal: AbortSignal.timeout(5000) }); await r.body?.cancel(); console.log(r.status); } ` +
    `catch (e) { console.log(/refused/i.test(\`\${e} \${e.cause}\`) ? "refused" : "unreachable"); }`;
  const [command, ...args] = [...ns.wrap, Deno.execPath(), "eval", script];
  const out = await new Deno.Command(command, { args, stdout: "piped", stderr: "null" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}
