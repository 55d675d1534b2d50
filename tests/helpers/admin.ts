/** Test harness, admin side: the admin token every test server uses and a small admin API client. */
import { type JsonResponse, readJson } from "./http.ts";

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

export class AdminClient {
  /** `send` is how requests go out: `fetch`, or an in-process app's own `fetch`. */
  constructor(
    readonly url: string,
    readonly token = ADMIN_TOKEN,
    private readonly send: typeof fetch = (input, init) => fetch(input, init),
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<JsonResponse> {
    const res = await this.send(`${this.url}/admin/api${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return readJson(res);
  }

  async createTenant(name = "Acme"): Promise<{ id: number; name: string }> {
    const r = await this.call("POST", "/tenants", { name });
    if (r.status !== 201) throw new Error(`createTenant: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async createUser(
    tenantId: number,
    accountId: string,
    extra: { quotaBytes?: number; name?: string } = {},
  ) {
    const r = await this.call("POST", "/users", {
      tenantId,
      accountId,
      email: `${accountId}@example.com`,
      name: extra.name ?? accountId,
      ...(extra.quotaBytes !== undefined ? { quotaBytes: extra.quotaBytes } : {}),
    });
    if (r.status !== 201) throw new Error(`createUser: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as {
      userSeq: number;
      tenantId: number;
      accountId: string;
      email: string;
      quotaBytes: number;
    };
  }

  async createKey(userSeq: number, scopes: string[] = ["api:read", "api:write"]): Promise<string> {
    const r = await this.call("POST", "/keys", { userSeq, scopes });
    if (r.status !== 201) throw new Error(`createKey: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.apiKey;
  }
}
