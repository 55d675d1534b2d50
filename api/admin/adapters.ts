/**
 * Admin API of storage provider adapters: create (the secret is shown once), list, read,
 * delete, rotate the secret, and the connection test, which acts as the document host: it
 * signs a fresh `list` of the root for the adapter and validates the answer with the host
 * client's rules.
 */
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import {
  ADAPTER_NAME_PATTERN,
  createAdapter,
  deleteAdapter,
  listAdapters,
  loadAdapterWithSecret,
  requireAdapter,
  rotateAdapterSecret,
} from "../../kv/adapters/adapters.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { normalizeBaseUrl, ProviderHostClient } from "../../provider/host_client.ts";
import { jsonBody, newOpenApiApp } from "../http/openapi.ts";
import { idFromPath, validJson, validOptionalJson } from "../http/validate.ts";
import {
  type Adapter,
  ADAPTER_NAME_RULE,
  AdapterSchema,
  adminErrors,
  adminJson,
  type ConnectionTest,
  ConnectionTestBody,
  ConnectionTestSchema,
  CreateAdapterBody,
  type CreatedAdapter,
  CreatedAdapterSchema,
  type RotatedSecret,
  RotatedSecretSchema,
  RotateSecretBody,
} from "./schemas.ts";

const TEST_TIMEOUT_MS = 15_000;

/** The `:name` of an adapter route, checked before it reaches the adapter's KV key. */
const nameOf = (c: Context) => idFromPath(c, "name", ADAPTER_NAME_PATTERN, ADAPTER_NAME_RULE);

const NameParams = z.object({
  name: z.string().regex(ADAPTER_NAME_PATTERN, ADAPTER_NAME_RULE).openapi({
    param: { name: "name", in: "path" },
    description: `The adapter's name: ${ADAPTER_NAME_RULE}`,
    example: "office",
  }),
});

// The handlers validate by hand (validJson, idFromPath) with these schemas; the declarations
// document them.
const ROUTES = [
  createRoute({
    method: "post",
    path: "/adapters",
    tags: ["Adapters"],
    operationId: "createAdapter",
    summary: "Register a storage provider adapter; its secret is shown this once",
    request: { body: jsonBody(CreateAdapterBody) },
    responses: {
      201: adminJson(CreatedAdapterSchema, "The adapter, with its secret"),
      ...adminErrors(
        "REQUEST_003",
        "REQUEST_005",
        "USER_001",
        "RESOURCE_002",
        "ADAPTER_002",
        "ADAPTER_003",
        "ADAPTER_004",
      ),
    },
  }),
  createRoute({
    method: "get",
    path: "/adapters",
    tags: ["Adapters"],
    operationId: "listAdapters",
    summary: "List the storage provider adapters",
    responses: {
      200: adminJson(
        z.object({ items: z.array(AdapterSchema).describe("The adapters") }),
        "Every adapter",
      ),
      ...adminErrors(),
    },
  }),
  createRoute({
    method: "get",
    path: "/adapters/{name}",
    tags: ["Adapters"],
    operationId: "getAdapter",
    summary: "Read one adapter (never its secret)",
    request: { params: NameParams },
    responses: { 200: adminJson(AdapterSchema, "The adapter"), ...adminErrors("ADAPTER_001") },
  }),
  createRoute({
    method: "delete",
    path: "/adapters/{name}",
    tags: ["Adapters"],
    operationId: "deleteAdapter",
    summary: "Delete an adapter: the document host can no longer reach the drive through it",
    request: { params: NameParams },
    responses: { 204: { description: "Deleted" }, ...adminErrors("ADAPTER_001") },
  }),
  createRoute({
    method: "post",
    path: "/adapters/{name}/rotate-secret",
    tags: ["Adapters"],
    operationId: "rotateAdapterSecret",
    summary: "Replace an adapter's secret (given, or generated and shown this once)",
    request: { params: NameParams, body: jsonBody(RotateSecretBody, false) },
    responses: {
      200: adminJson(RotatedSecretSchema, "The new secret"),
      ...adminErrors("REQUEST_003", "REQUEST_005", "ADAPTER_001", "ADAPTER_004"),
    },
  }),
  createRoute({
    method: "post",
    path: "/adapters/{name}/test",
    tags: ["Adapters"],
    operationId: "testAdapterConnection",
    summary: "Test the connection as the document host would: a signed list of the root",
    request: { params: NameParams, body: jsonBody(ConnectionTestBody, false) },
    responses: {
      200: adminJson(ConnectionTestSchema, "The verdict (ok false lists the problems)"),
      ...adminErrors("REQUEST_003", "REQUEST_005", "ADAPTER_001"),
    },
  }),
];

export function adaptersAdminApi(d: Deps) {
  const app = newOpenApiApp();

  app.post("/adapters", async (c) => {
    const body = await validJson(c, CreateAdapterBody);
    const { adapter, secret } = await createAdapter(d, body);
    return c.json({ ...adapter, secret } satisfies CreatedAdapter, 201);
  });

  app.get(
    "/adapters",
    async (c) => c.json({ items: await listAdapters(d.kv) satisfies Adapter[] }),
  );

  app.get("/adapters/:name", async (c) => {
    return c.json(await requireAdapter(d.kv, nameOf(c)) satisfies Adapter);
  });

  app.delete("/adapters/:name", async (c) => {
    await deleteAdapter(d.kv, nameOf(c));
    return c.body(null, 204);
  });

  app.post("/adapters/:name/rotate-secret", async (c) => {
    const name = nameOf(c);
    const body = await validOptionalJson(c, RotateSecretBody);
    const rotated = await rotateAdapterSecret(d, name, body.secret);
    return c.json(rotated satisfies RotatedSecret);
  });

  app.post("/adapters/:name/test", async (c) => {
    const name = nameOf(c);
    const body = await validOptionalJson(c, ConnectionTestBody);
    const baseUrl = body.baseUrl ?? d.config.publicUrl;
    const normalized = normalizeBaseUrl(baseUrl);
    if ("problem" in normalized) fail("REQUEST_001", `baseUrl: ${normalized.problem}`, "baseUrl");
    const loaded = await loadAdapterWithSecret(d, name);
    if (!loaded) fail("ADAPTER_001", `No adapter named "${name}"`, "name");
    const client = new ProviderHostClient({
      baseUrl: normalized.url,
      adapter: loaded.adapter.name,
      secret: loaded.secret,
      timeoutMs: TEST_TIMEOUT_MS,
    });
    const started = performance.now();
    const result = await client.list([]);
    const durationMs = Math.round(performance.now() - started);
    let verdict: ConnectionTest;
    if (result.ok) {
      verdict = {
        ok: true,
        status: result.status,
        durationMs,
        entries: result.value,
        problems: [],
      };
    } else if (result.unsupported) {
      // A valid LIST_NOT_SUPPORTED: the connection works; listing is unavailable.
      verdict = {
        ok: true,
        status: 501,
        durationMs,
        unsupported: true,
        notice: "The provider does not support list; file listing is unavailable",
        problems: [],
      };
    } else {
      verdict = { ok: false, status: result.status, durationMs, problems: result.problems };
    }
    return c.json(verdict);
  });

  for (const route of ROUTES) app.openAPIRegistry.registerPath(route);
  return app;
}
