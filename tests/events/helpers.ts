/**
 * Two processes on one KV file for the event-log tests: process A is a test server in this
 * process (its KV is at hand), process B is main.ts as a child, so a change on B reaches A only
 * through the KV file.
 */
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { ApiUser, newApiUser } from "../helpers/api.ts";
import { type MainProcess, startMain } from "../helpers/process.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

export interface TwoProcesses {
  a: TestServer;
  b: MainProcess;
  /** The same user as `user`, speaking to process B. */
  onB(user: ApiUser): ApiUser;
  newUser(name: string): Promise<ApiUser>;
}

export async function withTwoProcesses(fn: (p: TwoProcesses) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "drive-events-" });
  const kvPath = `${dir}/drive.kv`;
  const a = await startTestServer({ kvPath, env: { DRIVE_DATA_DIR: dir } });
  let b: MainProcess | null = null;
  try {
    b = await startMain({ DRIVE_DATA_DIR: dir, DRIVE_KV: kvPath, DRIVE_ADMIN_TOKEN: ADMIN_TOKEN });
    const bUrl = b.url;
    await fn({
      a,
      b,
      onB: (u) => new ApiUser(bUrl, u.userSeq, u.tenantId, u.apiKey, u.accountId),
      newUser: (name) => newApiUser(a, name),
    });
  } finally {
    await b?.stop();
    await a.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

// deno-lint-ignore no-explicit-any
export type ChangeItem = any;

/** GET /changes/cursor as `user`. */
export async function cursorOf(user: ApiUser): Promise<string> {
  const res = await user.call("GET", "/changes/cursor");
  if (res.status !== 200) throw new Error(`cursor: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.cursor;
}

/** Every change after `cursor` as `user`, page by page, until the feed says no more. */
export async function drain(
  user: ApiUser,
  cursor: string,
  ps = 100,
): Promise<{ items: ChangeItem[]; cursor: string }> {
  const items: ChangeItem[] = [];
  for (;;) {
    const res = await user.call("GET", `/changes?cursor=${cursor}&ps=${ps}`);
    if (res.status !== 200) throw new Error(`changes: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...res.body.data.items);
    cursor = res.body.data.cursor;
    if (!res.body.data.hasMore) return { items, cursor };
  }
}

/**
 * Reads `user`'s feed from `cursor` until `done(items)` holds, waiting with the long-poll in
 * between; throws after `limitMs` (a bounded loop).
 */
export async function readUntil(
  user: ApiUser,
  cursor: string,
  done: (items: ChangeItem[]) => boolean,
  opts: { ps?: number; limitMs?: number } = {},
): Promise<ChangeItem[]> {
  const items: ChangeItem[] = [];
  const deadline = Date.now() + (opts.limitMs ?? 20_000);
  while (!done(items)) {
    if (Date.now() > deadline) {
      throw new Error(`feed did not complete; got ${items.length}: ${JSON.stringify(items)}`);
    }
    const page = await drain(user, cursor, opts.ps);
    items.push(...page.items);
    cursor = page.cursor;
    if (done(items)) break;
    await user.call("GET", `/changes/wait?cursor=${cursor}&timeout=2`);
  }
  return items;
}

/**
 * Runs a request again while it answers 503 SERVICE_002 ("Storage is busy; retry"), as the API
 * tells clients to: two processes on one SQLite file make some commits find it locked.
 */
export async function retryBusy<T extends { status: number }>(send: () => Promise<T>): Promise<T> {
  for (let i = 0;; i++) {
    const res = await send();
    if (res.status !== 503 || i >= 10) return res;
    await new Promise((r) => setTimeout(r, 20 * (i + 1)));
  }
}
