/**
 * The webhook tests' setup: a test server and a main.ts process sharing one KV (a file, or a
 * denokv server with DRIVE_TEST_KV=denokv) and data directory (so deliveries go through KV
 * alone), a receiver, and alice reachable on both.
 */
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { ApiUser, newApiUser } from "../helpers/api.ts";
import { sharedKv } from "../helpers/denokv_server.ts";
import { type MainProcess, startMain } from "../helpers/process.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Receiver } from "./webhook_receiver.ts";

export interface TwoProcesses {
  a: TestServer;
  b: MainProcess;
  receiver: Receiver;
  /** alice's client on `a`. */
  alice: ApiUser;
  /** alice's client on `b`. */
  onB: ApiUser;
}

/** Runs `fn` on two processes started with `env`, and stops them and cleans up afterwards. */
export async function withTwoProcesses(
  prefix: string,
  env: Record<string, string>,
  fn: (p: TwoProcesses) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix });
  const kv = await sharedKv(dir);
  const kvPath = kv.kvPath;
  const receiver = new Receiver();
  const a = await startTestServer({ kvPath, env: { DRIVE_DATA_DIR: dir, ...kv.env, ...env } });
  const b = await startMain({
    ...kv.env,
    ...env,
    DRIVE_DATA_DIR: dir,
    DRIVE_KV: kvPath,
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
  });
  try {
    const alice = await newApiUser(a, "alice");
    const onB = new ApiUser(b.url, alice.userSeq, alice.tenantId, alice.apiKey, alice.accountId);
    await fn({ a, b, receiver, alice, onB });
  } finally {
    await b.stop();
    await a.close();
    await receiver.close();
    await kv.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
