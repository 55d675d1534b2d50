/**
 * Admin action names are route metadata (issue 21): every admin change declares its action in
 * the OpenAPI document (`x-audit`), the activity log's `action` filter accepts exactly the
 * declared names, and the Storage page's dry-run check is recorded as blobs_checked, not as the
 * sweep it is not (bug 6).
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import type { AdminClient } from "../helpers/admin.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

// deno-lint-ignore no-explicit-any
type Operation = any;

async function operations(url: string): Promise<[string, string, Operation][]> {
  const doc = await (await fetch(`${url}/admin/api/openapi.json`)).json();
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) =>
      [m, path, (item as Record<string, Operation>)[m]] as [string, string, Operation]
    )
  );
}

/** The admin actions of the log, newest first, once `n` are there (bounded wait). */
async function actions(admin: AdminClient, n: number): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const res = await admin.call("GET", "/activity?kind=admin_action&ps=200");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    if (res.body.items.length >= n) {
      return res.body.items.map((e: { detail: { action: string } }) => e.detail.action);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${n} admin actions`);
}

Deno.test("every admin change declares its audit action; reads declare none", async () => {
  await withServer(async (server) => {
    const ops = await operations(server.url);
    assert.ok(ops.length >= 40, `only ${ops.length} operations`);
    const names = new Set<string>();
    for (const [method, path, op] of ops) {
      const audit = op["x-audit"];
      if (method === "get") {
        assert.equal(audit, undefined, `${method} ${path} is a read`);
        continue;
      }
      assert.match(audit?.action ?? "", /^[a-z]+(_[a-z]+)+$/, `${method} ${path}`);
      for (const name of [audit.action, ...(audit.also ?? [])]) names.add(name);
    }
    // The action filter takes each declared name, and refuses one no route declares.
    const all = [...names].join(",");
    assert.equal((await server.admin.call("GET", `/activity?action=${all}`)).status, 200);
    const unknown = await server.admin.call("GET", "/activity?action=tenant_exploded");
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.field, "action");
    assert.ok(names.has("quota_changed") && names.has("blobs_checked"));
  });
});

Deno.test("the Storage page's dry-run check is blobs_checked, a real sweep blobs_swept", async () => {
  await withServer(async (server) => {
    const check = await server.admin.call("POST", "/blobs/sweep", { dryRun: true });
    assert.equal(check.status, 200, JSON.stringify(check.body));
    assert.deepEqual(await actions(server.admin, 1), ["blobs_checked"]);
    const sweep = await server.admin.call("POST", "/blobs/sweep", {});
    assert.equal(sweep.status, 200, JSON.stringify(sweep.body));
    assert.deepEqual(await actions(server.admin, 2), ["blobs_swept", "blobs_checked"]);
    const checks = await server.admin.call("GET", "/activity?action=blobs_checked");
    assert.equal(checks.body.items.length, 1);
  });
});
