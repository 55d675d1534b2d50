/**
 * WebDAV test harness: main.ts as a real process (tests/helpers/process.ts) on a fresh data
 * directory with the given blob store, and users with API keys made through the admin API.
 */
import { ADMIN_TOKEN, AdminClient } from "../helpers/admin.ts";
import { type MainProcess, startMain } from "../helpers/process.ts";

export type BlobStoreName = "fs" | "kv";

export interface DavUser {
  accountId: string;
  userSeq: number;
  tenantId: number;
  key: string;
  /** The user's drive: `${url}/dav/files/${accountId}/`. */
  driveUrl: string;
  /** Authorization header value (Basic account id : key). */
  basic: string;
}

export interface DavServer {
  url: string;
  admin: AdminClient;
  main: MainProcess;
  newUser(
    accountId: string,
    opts?: { tenantId?: number; scopes?: string[]; quotaBytes?: number },
  ): Promise<DavUser>;
}

export const basicAuth = (user: string, pass: string) =>
  `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${pass}`)))}`;

export async function withDavServer(
  store: BlobStoreName,
  fn: (s: DavServer) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "drive-dav-" });
  const main = await startMain({
    DRIVE_DATA_DIR: dir,
    DRIVE_ADMIN_TOKEN: ADMIN_TOKEN,
    DRIVE_BLOB_STORE: store,
    DRIVE_LOG_LEVEL: "warning",
    ...env,
  });
  const admin = new AdminClient(main.url);
  const server: DavServer = {
    url: main.url,
    admin,
    main,
    async newUser(accountId, opts = {}) {
      const tenantId = opts.tenantId ?? (await admin.createTenant(`${accountId}-org`)).id;
      const user = await admin.createUser(tenantId, accountId, { quotaBytes: opts.quotaBytes });
      const key = await admin.createKey(user.userSeq, opts.scopes);
      return {
        accountId,
        userSeq: user.userSeq,
        tenantId,
        key,
        driveUrl: `${main.url}/dav/files/${accountId}/`,
        basic: basicAuth(accountId, key),
      };
    },
  };
  try {
    await fn(server);
  } finally {
    await main.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** A request to a WebDAV URL as `user`. */
export function dav(
  user: DavUser,
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: BodyInit | null } = {},
): Promise<Response> {
  return fetch(url, {
    method,
    headers: { authorization: user.basic, ...init.headers },
    body: init.body ?? null,
  });
}
