/**
 * Admin API of storage provider adapters: create (the secret is shown once), list, read,
 * delete, rotate the secret, and the connection test, which acts as the document host: it
 * signs a fresh `list` of the root for the adapter and validates the answer with the host
 * client's rules.
 */
import { z } from "@hono/zod-openapi";
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
import { type ErrorCode, fail } from "../../kv/errors.ts";
import { normalizeBaseUrl, ProviderHostClient } from "../../provider/host/client.ts";
import { jsonBody, newOpenApiApp } from "../http/openapi.ts";
import {
  adminAnswers,
  adminRoute,
  BODY_ERRORS,
  creationRoute,
  operation,
  serveDelete,
  serveRecord,
} from "./schemas/common.ts";
import {
  type Adapter,
  ADAPTER_NAME_RULE,
  AdapterSchema,
  type ConnectionTest,
  ConnectionTestBody,
  ConnectionTestSchema,
  CreateAdapterBody,
  type CreatedAdapter,
  CreatedAdapterSchema,
  type RotatedSecret,
  RotatedSecretSchema,
  RotateSecretBody,
} from "./schemas/adapters.ts";

const TEST_TIMEOUT_MS = 15_000;

const adapterOp = operation("Adapters");

/** The `{name}` of an adapter route, checked before it reaches the adapter's KV key. */
const NameParams = z.object({
  name: z.string().regex(ADAPTER_NAME_PATTERN, `must be ${ADAPTER_NAME_RULE}`).openapi({
    param: { name: "name", in: "path" },
    description: `The adapter's name: ${ADAPTER_NAME_RULE}`,
    example: "office",
  }),
});

/**
 * The declaration of POST `path`, an action on the adapter `{name}` names: an optional JSON
 * `body`, answered with `answer` (what it holds, `description`), or one of `codes` besides a
 * missing adapter.
 */
const adapterAction = <P extends string, B extends z.ZodTypeAny, T extends z.ZodTypeAny>(
  path: P,
  name: ReturnType<typeof adapterOp>,
  body: B,
  answer: { schema: T; description: string },
  ...codes: ErrorCode[]
) =>
  adminRoute("post", path, name, {
    request: { params: NameParams, body: jsonBody(body, false) },
    responses: adminAnswers(
      answer.schema,
      answer.description,
      ...BODY_ERRORS,
      "ADAPTER_001",
      ...codes,
    ),
  });

export function adaptersAdminApi(d: Deps) {
  const app = newOpenApiApp();

  app.openapi(
    creationRoute(
      "/adapters",
      adapterOp(
        "createAdapter",
        "Register a storage provider adapter; its secret is shown this once",
        { action: "adapter_created", created: { name: "adapter", userSeq: "userSeq" } },
      ),
      CreateAdapterBody,
      { record: CreatedAdapterSchema, description: "The adapter, with its secret" },
      ...BODY_ERRORS,
      "USER_001",
      "RESOURCE_002",
      "ADAPTER_002",
      "ADAPTER_003",
      "ADAPTER_004",
    ),
    async (c) => {
      const { adapter, secret } = await createAdapter(d, c.req.valid("json"));
      return c.json({ ...adapter, secret } satisfies CreatedAdapter, 201);
    },
  );

  app.openapi(
    adminRoute(
      "get",
      "/adapters",
      adapterOp("listAdapters", "List the storage provider adapters"),
      {
        responses: adminAnswers(
          z.object({ items: z.array(AdapterSchema).describe("The adapters") }),
          "Every adapter",
        ),
      },
    ),
    async (c) => c.json({ items: await listAdapters(d.kv) satisfies Adapter[] }, 200),
  );

  serveRecord(app, {
    path: "/adapters/{name}",
    name: adapterOp("getAdapter", "Read one adapter (never its secret)"),
    params: NameParams,
    schema: AdapterSchema,
    description: "The adapter",
    missing: "ADAPTER_001",
  }, ({ name }) => requireAdapter(d.kv, name));

  serveDelete(app, {
    path: "/adapters/{name}",
    name: adapterOp(
      "deleteAdapter",
      "Delete an adapter: the document host can no longer reach the drive through it",
      { action: "adapter_deleted", targets: { name: "adapter" } },
    ),
    params: NameParams,
    done: "Deleted",
    missing: "ADAPTER_001",
  }, ({ name }) => deleteAdapter(d.kv, name));

  app.openapi(
    adapterAction(
      "/adapters/{name}/rotate-secret",
      adapterOp(
        "rotateAdapterSecret",
        "Replace an adapter's secret (given, or generated and shown this once)",
        { action: "adapter_secret_rotated", targets: { name: "adapter" } },
      ),
      RotateSecretBody,
      { schema: RotatedSecretSchema, description: "The new secret" },
      "ADAPTER_004",
    ),
    async (c) => {
      const { name } = c.req.valid("param");
      const rotated = await rotateAdapterSecret(d, name, c.req.valid("json").secret);
      return c.json(rotated satisfies RotatedSecret, 200);
    },
  );

  app.openapi(
    adapterAction(
      "/adapters/{name}/test",
      adapterOp(
        "testAdapterConnection",
        "Test the connection as the document host would: a signed list of the root",
        { action: "adapter_tested", targets: { name: "adapter" } },
      ),
      ConnectionTestBody,
      { schema: ConnectionTestSchema, description: "The verdict (ok false lists the problems)" },
    ),
    async (c) => {
      const { name } = c.req.valid("param");
      const baseUrl = c.req.valid("json").baseUrl ?? d.config.publicUrl;
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
      return c.json(verdict, 200);
    },
  );

  return app;
}
