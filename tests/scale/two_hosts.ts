/**
 * Two hosts as one service (issue 26, item 4): main.ts in each of two network namespaces
 * (tests/helpers/netns.ts), each on its own IP and data directory, both on ONE real denokv and ONE
 * real SeaweedFS bucket listening on the bridge's root-side address. Everything is stopped and
 * removed in `finally`, failed or not.
 */
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { ApiUser } from "../helpers/api.ts";
import { type DenoKvServer, startDenoKv } from "../helpers/denokv_server.ts";
import { type Netns, type NetnsPair, netnsPair } from "../helpers/netns.ts";
import { type MainProcess, startMain } from "../helpers/process.ts";
import { type S3TestServer, startS3Server } from "../helpers/s3_server.ts";
import type { CliEnv } from "../cli/run.ts";

/** Host A's and B's ports: different, so B's loopback cannot be mistaken for A's port. */
export const PORT_A = 8001;
export const PORT_B = 8002;

export interface Host {
  name: "A" | "B";
  ns: Netns;
  url: string;
  proc: MainProcess;
  /** Its admin API. */
  admin: AdminClient;
}

/** One KV and one bucket (a "store") with the settings every host and the CLI use for it. */
export interface Store {
  kv: DenoKvServer;
  bucket: string;
  env: Record<string, string>;
  /** A client of this process on the shared KV (closed with the cluster). */
  openKv(): Promise<Deno.Kv>;
}

export interface Cluster {
  net: NetnsPair;
  s3: S3TestServer;
  store: Store;
  a: Host;
  b: Host;
  /** A fresh denokv and bucket on the same servers' address (for a restore). */
  newStore(): Promise<Store>;
  /** main.ts in both namespaces on `store`, on ports `ports` (stopped with the cluster). */
  startPair(store: Store, ports: [number, number]): Promise<[Host, Host]>;
  /** The CLI's environment on `store` (run from the root namespace). */
  cliEnv(store: Store): Promise<CliEnv>;
  /** A user with a key, seen through host A and host B. */
  newUser(accountId: string, quotaBytes?: number): Promise<{ onA: ApiUser; onB: ApiUser }>;
}

/** Settings that make the tests' waits short: lapsed leases, webhook retries. */
const FAST = {
  DRIVE_WEBHOOK_ALLOW_PRIVATE: "true",
  DRIVE_WEBHOOK_RETRY_BASE_MS: "100",
  DRIVE_WRITE_LEASE_RENEW_MS: "500",
  DRIVE_WRITE_LEASE_EXPIRY_MS: "3000",
};

export async function withTwoHosts(fn: (c: Cluster) => Promise<void>): Promise<void> {
  const cleanups: (() => Promise<unknown>)[] = [];
  const later = (f: () => Promise<unknown>) => cleanups.unshift(f);
  try {
    const net = await netnsPair();
    later(() => net.remove());
    const s3 = await startS3Server({ host: net.rootIp });
    later(() => s3.stop());

    const newStore = async (): Promise<Store> => {
      const kv = await startDenoKv({ host: net.rootIp });
      later(() => kv.stop());
      const bucket = await s3.newBucket();
      const env = { DRIVE_KV: kv.url, ...kv.env, ...s3.env(bucket) };
      return {
        kv,
        bucket,
        env,
        openKv: async () => {
          const client = await Deno.openKv(kv.url);
          later(() => Promise.resolve(client.close()));
          return client;
        },
      };
    };
    const startHost = async (name: "A" | "B", ns: Netns, store: Store, port: number) => {
      const dataDir = await Deno.makeTempDir({ prefix: `drive-host-${name}-` });
      later(() => Deno.remove(dataDir, { recursive: true }));
      const url = `http://${ns.ip}:${port}`;
      const proc = await startMain({
        ...store.env,
        ...FAST,
        // All addresses of its namespace: its loopback too, which no other host shares.
        HOST: "0.0.0.0",
        PORT: String(port),
        DRIVE_PUBLIC_URL: url,
        DRIVE_DATA_DIR: dataDir,
        DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
      }, { wrap: ns.wrap });
      // A stopped (or killed) process answers stop with its status at once.
      later(() => proc.stop());
      return { name, ns, url, proc, admin: new AdminClient(url) };
    };
    const startPair = async (store: Store, [pa, pb]: [number, number]): Promise<[Host, Host]> => {
      // Both settled before failing: a host still starting when cleanup ran would outlive it.
      const [a, b] = await Promise.allSettled([
        startHost("A", net.a, store, pa),
        startHost("B", net.b, store, pb),
      ]);
      if (a.status === "rejected") throw a.reason;
      if (b.status === "rejected") throw b.reason;
      return [a.value, b.value];
    };
    const store = await newStore();
    const [a, b] = await startPair(store, [PORT_A, PORT_B]);
    await fn({
      net,
      s3,
      store,
      a,
      b,
      newStore,
      startPair,
      async cliEnv(store) {
        const dir = await Deno.makeTempDir({ prefix: "drive-host-cli-" });
        later(() => Deno.remove(dir, { recursive: true }));
        return { ...store.env, ...FAST, DRIVE_DATA_DIR: dir, DRIVE_KV: store.kv.url };
      },
      async newUser(accountId, quotaBytes) {
        const tenant = await a.admin.createTenant(`${accountId}-org`);
        const user = await a.admin.createUser(tenant.id, accountId, { quotaBytes });
        const key = await a.admin.createKey(user.userSeq);
        const as = (h: Host) => new ApiUser(h.url, user.userSeq, tenant.id, key, accountId);
        return { onA: as(a), onB: as(b) };
      },
    });
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

/** A server on the root-side address counting webhook deliveries by their event id. */
export function deliveryCounter(hostname: string) {
  const counts = new Map<string, number>();
  const server = Deno.serve({ hostname, port: 0, onListen() {} }, async (req) => {
    const id = req.headers.get("webhook-id") ?? "none";
    await req.body?.cancel();
    counts.set(id, (counts.get(id) ?? 0) + 1);
    return new Response(null, { status: 204 });
  });
  return {
    url: `http://${hostname}:${server.addr.port}/hook`,
    counts,
    close: () => server.shutdown(),
  };
}
