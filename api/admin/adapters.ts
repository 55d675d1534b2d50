/**
 * Admin API of storage provider adapters: create (the secret is shown once), list, read,
 * delete, rotate the secret, and the connection test, which acts as the document host: it
 * signs a fresh `list` of the root for the adapter and validates the answer with the host
 * client's rules.
 */
import { Hono } from "hono";
import {
  createAdapter,
  deleteAdapter,
  listAdapters,
  loadAdapterWithSecret,
  requireAdapter,
  rotateAdapterSecret,
} from "../../provider/state/adapters.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { normalizeBaseUrl, ProviderHostClient } from "../../provider/host_client.ts";
import { validJson, validOptionalJson } from "../http/validate.ts";
import {
  type Adapter,
  type ConnectionTest,
  ConnectionTestBody,
  CreateAdapterBody,
  type CreatedAdapter,
  type RotatedSecret,
  RotateSecretBody,
} from "./schemas.ts";

const TEST_TIMEOUT_MS = 15_000;

export function adaptersAdminApi(d: Deps) {
  const app = new Hono();

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
    return c.json(await requireAdapter(d.kv, c.req.param("name")) satisfies Adapter);
  });

  app.delete("/adapters/:name", async (c) => {
    await deleteAdapter(d.kv, c.req.param("name"));
    return c.body(null, 204);
  });

  app.post("/adapters/:name/rotate-secret", async (c) => {
    const body = await validOptionalJson(c, RotateSecretBody);
    const rotated = await rotateAdapterSecret(d, c.req.param("name"), body.secret);
    return c.json(rotated satisfies RotatedSecret);
  });

  app.post("/adapters/:name/test", async (c) => {
    const body = await validOptionalJson(c, ConnectionTestBody);
    const baseUrl = body.baseUrl ?? d.config.publicUrl;
    const normalized = normalizeBaseUrl(baseUrl);
    if ("problem" in normalized) fail("REQUEST_001", `baseUrl: ${normalized.problem}`, "baseUrl");
    const loaded = await loadAdapterWithSecret(d, c.req.param("name"));
    if (!loaded) fail("ADAPTER_001", `No adapter named "${c.req.param("name")}"`, "name");
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

  return app;
}
