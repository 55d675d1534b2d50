/**
 * The storage provider protocol mounted at /doc-storage/v1: a plain Hono app with one handler,
 * because every request goes through the same verification pipeline and the raw request
 * target (never the router's decoded path) decides the operation. Errors are plain text.
 */
import { Hono } from "hono";
import type { Deps } from "../kv/deps.ts";
import { setActor, setProviderOperation } from "../lib/request_facts.ts";
import { runOperation } from "./operations.ts";
import { operationOf, rawTarget } from "./paths.ts";
import { openReadAhead } from "./read_ahead.ts";
import type { ListPool } from "./list_pool.ts";
import { providerErrorResponse } from "./responses.ts";
import { verifyProviderRequest } from "./verify.ts";

export function providerApp(d: Deps, lists: ListPool | null = null): Hono {
  const app = new Hono();
  // Which keys this process's info and list requests read, per adapter and path.
  const readAhead = openReadAhead();
  app.all("*", async (c) => {
    // For the request log and metrics (api/ops/): the operation the target names (refused
    // requests count too; "unknown" for no such operation), and the adapter once verified.
    setProviderOperation(c, operationOf(rawTarget(c.req.raw.url).path) ?? "unknown");
    try {
      const verified = await verifyProviderRequest(d, c.req.raw, readAhead);
      setActor(c, { kind: "adapter", adapter: verified.adapter.name });
      return await runOperation(d, verified, { readAhead, lists });
    } catch (err) {
      return providerErrorResponse(err);
    }
  });
  return app;
}
