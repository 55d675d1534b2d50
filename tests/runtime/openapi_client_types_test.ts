/**
 * Each OpenAPI document is usable by a generated client: `openapi-typescript` (npm) turns it into
 * TypeScript types, and a small client written against those types type-checks (`deno check`),
 * while the same client with a wrong field does not, so the types are real and not `any`. The
 * client names operations by their operationId, as generated clients do.
 */
import assert from "node:assert/strict";
import openapiTS, { astToString } from "./openapi_typescript.ts";
import { boot } from "../../boot.ts";
import { readConfig } from "../../config.ts";
import { API_DOCUMENTS } from "../../api/http/docs_page.ts";

/** A client of all three APIs, by operationId, typed by the generated `operations`. */
const CLIENT = `
import type { operations as Drive } from "./external.ts";
import type { operations as Admin } from "./admin.ts";
import type { operations as Links } from "./public-links.ts";

type JsonBody<Op> = Op extends { requestBody?: { content: { "application/json": infer B } } } ? B
  : never;
type JsonAnswer<Op, S extends number> = Op extends {
  responses: { [K in S]: { content: { "application/json": infer A } } };
} ? A
  : never;

async function call<Op, S extends number>(
  base: string,
  method: string,
  path: string,
  token: string | null,
  _status: S,
  body?: JsonBody<Op>,
): Promise<JsonAnswer<Op, S>> {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(token ? { authorization: "Bearer " + token } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return await res.json();
}

export async function setUp(base: string, adminToken: string): Promise<number> {
  const tenant = await call<Admin["createTenant"], 201>(
    base + "/admin/api", "POST", "/tenants", adminToken, 201, { name: "Acme" },
  );
  const tenantId: number = tenant.id;
  const user = await call<Admin["createUser"], 201>(base + "/admin/api", "POST", "/users", adminToken,
    201, { tenantId, accountId: "alice", email: "alice@example.com", name: "Alice" });
  const key = await call<Admin["createApiKey"], 201>(base + "/admin/api", "POST", "/keys", adminToken,
    201, { userSeq: user.userSeq, scopes: ["api:read", "api:write"] });
  const folder = await call<Drive["createFolder"], 201>(
    base + "/api/external/v1", "POST", "/folders", key.apiKey, 201, { fn: "Reports" },
  );
  const seq: number = folder.data.resourceSeq;
  const link = await call<Links["getLink"], 200>(base + "/public/v1", "GET", "/links/x", null, 200);
  const passwordRequired: boolean = link.data.passwordRequired;
  return passwordRequired ? -seq : seq;
}
`;

/** The same client with a field the document does not have. */
const WRONG_CLIENT = CLIENT.replace('{ fn: "Reports" }', '{ folderName: "Reports" }');

async function generate(dir: string): Promise<void> {
  const service = await boot(
    readConfig({ DRIVE_KV: ":memory:", DRIVE_BLOB_STORE: "kv", DRIVE_ADMIN_TOKEN: "x".repeat(32) }),
  );
  try {
    for (const source of API_DOCUMENTS) {
      const doc = await (await service.app.request(source.url)).json();
      const ast = await openapiTS(doc);
      await Deno.writeTextFile(`${dir}/${source.slug}.ts`, astToString(ast));
    }
  } finally {
    service.close();
  }
}

async function denoCheck(dir: string, file: string): Promise<{ ok: boolean; output: string }> {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--no-config", "--no-lock", file],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { ok: success, output: decode(stdout) + decode(stderr) };
}

Deno.test({
  name: "types generated from each document type-check a client that calls its operations",
  // openapi-typescript's TypeScript keeps timers between calls.
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "openapi-client-" });
    try {
      await generate(dir);
      for (const source of API_DOCUMENTS) {
        const types = await Deno.readTextFile(`${dir}/${source.slug}.ts`);
        assert.match(types, /export interface operations \{/, source.slug);
      }
      await Deno.writeTextFile(`${dir}/client.ts`, CLIENT);
      const good = await denoCheck(dir, "client.ts");
      assert.ok(good.ok, `the client does not type-check:\n${good.output}`);
      await Deno.writeTextFile(`${dir}/wrong_client.ts`, WRONG_CLIENT);
      const wrong = await denoCheck(dir, "wrong_client.ts");
      assert.equal(wrong.ok, false, "a body field the API lacks must not type-check");
      assert.match(wrong.output, /folderName/);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
