/**
 * Admin API of storage provider adapters: create (the secret is shown once), list, read,
 * delete, rotate the secret, and the connection test, which acts as the document host: it
 * signs a fresh `list` of the root for the adapter and validates the answer with the host
 * client's rules.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  ADAPTER_NAME_PATTERN,
  createAdapter,
  deleteAdapter,
  listAdapters,
  loadAdapterWithSecret,
  OPTIONAL_OPERATIONS,
  requireAdapter,
  rotateAdapterSecret,
} from "../../provider/state/adapters.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { normalizeBaseUrl, ProviderHostClient } from "../../provider/host_client.ts";
import { validJson, validOptionalJson } from "../http/validate.ts";

const Secret = z.string().min(1, "must not be empty");

const CreateAdapter = z.object({
  name: z.string().regex(
    ADAPTER_NAME_PATTERN,
    "1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit",
  ),
  secret: Secret.optional(),
  userSeq: z.number().int().positive(),
  folderSeq: z.number().int().positive().nullish(),
  operations: z.array(z.enum(OPTIONAL_OPERATIONS)).optional(),
  readOnly: z.boolean().optional(),
}).strict();

const Rotate = z.object({ secret: Secret.optional() }).strict();
const ConnectionTest = z.object({ baseUrl: z.string().optional() }).strict();

const TEST_TIMEOUT_MS = 15_000;

export function adaptersAdminApi(d: Deps) {
  const app = new Hono();

  app.post("/adapters", async (c) => {
    const body = await validJson(c, CreateAdapter);
    const { adapter, secret } = await createAdapter(d, body);
    return c.json({ ...adapter, secret }, 201);
  });

  app.get("/adapters", async (c) => c.json({ items: await listAdapters(d.kv) }));

  app.get("/adapters/:name", async (c) => c.json(await requireAdapter(d.kv, c.req.param("name"))));

  app.delete("/adapters/:name", async (c) => {
    await deleteAdapter(d.kv, c.req.param("name"));
    return c.body(null, 204);
  });

  app.post("/adapters/:name/rotate-secret", async (c) => {
    const body = await validOptionalJson(c, Rotate);
    return c.json(await rotateAdapterSecret(d, c.req.param("name"), body.secret));
  });

  app.post("/adapters/:name/test", async (c) => {
    const body = await validOptionalJson(c, ConnectionTest);
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
    if (result.ok) {
      return c.json({
        ok: true,
        status: result.status,
        durationMs,
        entries: result.value,
        problems: [],
      });
    }
    if (result.unsupported) {
      // A valid LIST_NOT_SUPPORTED: the connection works; listing is unavailable.
      return c.json({
        ok: true,
        status: 501,
        durationMs,
        unsupported: true,
        notice: "The provider does not support list; file listing is unavailable",
        problems: [],
      });
    }
    return c.json({ ok: false, status: result.status, durationMs, problems: result.problems });
  });

  return app;
}
