/**
 * Admin API of storage provider adapters: create (the secret is shown once), list, read,
 * delete, rotate the secret, and the connection test, which acts as the document host: it
 * signs a fresh `list` of the root for the adapter and validates the answer with the host
 * client's rules.
 */
import { type Context, Hono } from "hono";
import {
  ADAPTER_NAME_PATTERN,
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
import { idFromPath, validJson, validOptionalJson } from "../http/validate.ts";
import {
  type Adapter,
  ADAPTER_NAME_RULE,
  type ConnectionTest,
  ConnectionTestBody,
  CreateAdapterBody,
  type CreatedAdapter,
  type RotatedSecret,
  RotateSecretBody,
} from "./schemas.ts";

const TEST_TIMEOUT_MS = 15_000;

/** The `:name` of an adapter route, checked before it reaches the adapter's KV key. */
const nameOf = (c: Context) => idFromPath(c, "name", ADAPTER_NAME_PATTERN, ADAPTER_NAME_RULE);

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

  return app;
}
