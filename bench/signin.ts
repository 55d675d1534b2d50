/**
 * Sign-in latency, and what sign-ins cost everyone else. scrypt dominates a sign-in (N=2^15, r=8:
 * ~100 ms of CPU, 32 MiB); it runs on libuv's thread pool (lib/passwords.ts), so it must not
 * block the event loop: `/healthz` p99 is measured idle and while 16 sign-ins run at once.
 *
 * Against the real app (bench/serve_app.ts: boot, serve, a KV file), over loopback:
 * 1. one sign-in at a time: its latency (p50, p99);
 * 2. `/healthz` alone, one request at a time: p50, p99;
 * 3. 16 clients signing in back to back (16 accounts, so the guess throttle never interferes)
 *    while one more client requests `/healthz` one at a time: the sign-ins' latency and rate,
 *    and `/healthz` p50, p99, max;
 * 4. a wrong password against an unknown account (the decoy hash): both medians, which should
 *    match (the answer is the same, so should the time be).
 *
 * Usage: deno run -A bench/signin.ts [--seconds 10] [--json]
 */
import { parseArgs } from "node:util";
import { ADMIN_TOKEN, startApp } from "./lib.ts";

const { values: args } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    json: { type: "boolean", default: false },
  },
});
const SECONDS = Number(args.seconds);
const SIGNERS = 16;
const PASSWORD = "violet-harbour-tandem-42";
/** serve_app.ts leaves DRIVE_PUBLIC_URL at its default, whose origin sign-in requires. */
const ORIGIN = "http://localhost:8000";

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
};
const ms = (x: number) => Math.round(x * 10) / 10;
const summary = (xs: number[]) => ({
  n: xs.length,
  p50: ms(pct(xs, 50)),
  p99: ms(pct(xs, 99)),
  max: ms(Math.max(...xs)),
});

async function timedMs(fn: () => Promise<Response>): Promise<[number, number]> {
  const t0 = performance.now();
  const res = await fn();
  await res.body?.cancel();
  return [performance.now() - t0, res.status];
}

const dir = await Deno.makeTempDir({ prefix: "bench-signin-" });
const server = await startApp(dir);
try {
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}/admin/api${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.json());
  const account = (path: string, body: unknown) =>
    fetch(`${server.url}/api/account/v1${path}`, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  const tenant = await admin("POST", "/tenants", { name: "Bench" });
  const logins: string[] = [];
  for (let i = 0; i < SIGNERS; i++) {
    const login = `user${i}`;
    const u = await admin("POST", "/users", {
      tenantId: tenant.id,
      accountId: login,
      email: `${login}@example.com`,
      name: login,
    });
    const inv = await admin("POST", `/users/${u.userSeq}/invitations`, { kind: "invitation" });
    const res = await account("/invitations/accept", {
      token: inv.url.split("/").pop(),
      password: PASSWORD,
    });
    if (res.status !== 200) throw new Error(`accept: ${res.status} ${await res.text()}`);
    await res.body?.cancel();
    logins.push(login);
  }
  const signIn = (login: string, password = PASSWORD) => () =>
    account("/sign-in", { login, password });
  const healthz = () => fetch(`${server.url}/healthz`);

  // 1. One sign-in at a time.
  const single: number[] = [];
  for (let i = 0; i < 40; i++) {
    const [t, status] = await timedMs(signIn(logins[i % SIGNERS]));
    if (status !== 200) throw new Error(`sign-in answered ${status}`);
    single.push(t);
  }

  // 2. /healthz alone.
  const idle: number[] = [];
  for (let i = 0; i < 500; i++) idle.push((await timedMs(healthz))[0]);

  // 3. 16 sign-ins at once, /healthz beside them.
  const until = performance.now() + SECONDS * 1000;
  const busySignIns: number[] = [];
  const busyHealth: number[] = [];
  let refused = 0;
  await Promise.all([
    ...logins.map(async (login) => {
      while (performance.now() < until) {
        const [t, status] = await timedMs(signIn(login));
        if (status === 200) busySignIns.push(t);
        else refused++;
      }
    }),
    (async () => {
      while (performance.now() < until) busyHealth.push((await timedMs(healthz))[0]);
    })(),
  ]);

  // 4. Wrong password against unknown account (under the throttle's free tries and ceiling).
  const wrong: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 32; i++) {
    const [tw, sw] = await timedMs(signIn(logins[i % SIGNERS], `wrong-guess-${i}-xyz`));
    const [tu, su] = await timedMs(signIn(`nobody-${i}`, `wrong-guess-${i}-xyz`));
    if (sw !== 401 || su !== 401) throw new Error(`expected 401s, got ${sw} and ${su}`);
    wrong.push(tw);
    unknown.push(tu);
  }

  const result = {
    singleSignInMs: summary(single),
    healthzIdleMs: summary(idle),
    with16SignIns: {
      signInMs: summary(busySignIns),
      signInsPerSecond: Math.round((busySignIns.length / SECONDS) * 10) / 10,
      refused,
      healthzMs: summary(busyHealth),
    },
    wrongPasswordMs: summary(wrong),
    unknownAccountMs: summary(unknown),
    cores: navigator.hardwareConcurrency,
  };
  if (args.json) console.log(JSON.stringify(result));
  else {
    console.log(
      `sign-in alone:            p50 ${result.singleSignInMs.p50} ms, p99 ${result.singleSignInMs.p99} ms`,
    );
    console.log(
      `/healthz alone:           p50 ${result.healthzIdleMs.p50} ms, p99 ${result.healthzIdleMs.p99} ms`,
    );
    const w = result.with16SignIns;
    console.log(
      `16 sign-ins at once:      p50 ${w.signInMs.p50} ms, p99 ${w.signInMs.p99} ms, ` +
        `${w.signInsPerSecond}/s (${w.refused} refused)`,
    );
    console.log(
      `/healthz beside them:     p50 ${w.healthzMs.p50} ms, p99 ${w.healthzMs.p99} ms, ` +
        `max ${w.healthzMs.max} ms (n ${w.healthzMs.n})`,
    );
    console.log(
      `wrong password / unknown: p50 ${result.wrongPasswordMs.p50} / ` +
        `${result.unknownAccountMs.p50} ms`,
    );
  }
} finally {
  await server.stop();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
