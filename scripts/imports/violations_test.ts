/**
 * Tests for the layer rules: synthetic graphs for each rule, so every rule is tried without
 * touching the repository (scripts/check_imports_test.ts runs the check on the repository).
 */
import assert from "node:assert/strict";
import type { ImportGraph } from "./graph.ts";
import { findCycles, findViolations, placementOf, summary } from "./violations.ts";

/** A graph from `{ file: [imported, …] }`; a `type:` prefix marks a type-only import. */
function graphOf(importsByFile: Record<string, string[]>): ImportGraph {
  const files = new Set(Object.keys(importsByFile));
  const imports = Object.entries(importsByFile).flatMap(([from, targets]) =>
    targets.map((target) => {
      const typeOnly = target.startsWith("type:");
      const to = typeOnly ? target.slice("type:".length) : target;
      files.add(to);
      return { from, to, typeOnly };
    })
  );
  return { files: [...files], imports };
}

function linesOf(importsByFile: Record<string, string[]>): string[] {
  return findViolations(graphOf(importsByFile)).map(({ line }) => line);
}

Deno.test("a clean layered graph has no violations and says so", () => {
  const graph = graphOf({
    "main.ts": ["boot.ts"],
    "boot.ts": ["app.ts", "kv/db.ts", "blobs/fs.ts", "config.ts"],
    "app.ts": ["api/external/index.ts", "provider/routes.ts"],
    "api/external/index.ts": ["api/external/files.ts", "api/http/envelope.ts"],
    "api/external/files.ts": ["kv/tree/drive.ts", "api/http/envelope.ts"],
    "api/admin/adapters.ts": ["provider/host_client.ts", "kv/adapters/adapters.ts"],
    "provider/routes.ts": ["kv/adapters/adapters.ts", "type:kv/deps.ts"],
    "kv/tree/drive.ts": ["kv/sharing/shares.ts", "kv/db.ts", "lib/mime.ts"],
    "kv/sharing/shares.ts": ["kv/identity/users.ts", "kv/errors.ts"],
    "blobs/kv.ts": ["kv/db.ts"],
    "ui/admin/api.ts": ["type:api/admin/tenants.ts", "ui/shared/form.ts"],
    "tests/drive/files_test.ts": ["tests/helpers/app.ts", "kv/tree/drive.ts"],
    "kv/tree/drive_test.ts": ["kv/testing.ts", "kv/tree/drive.ts"],
  });
  const violations = findViolations(graph);
  assert.deepEqual(violations, []);
  assert.deepEqual(
    summary(graph, violations),
    "imports: 27 files, 27 edges, no cycles, no upward imports",
  );
});

Deno.test("a two-file cycle is reported as a path back to its start", () => {
  assert.deepEqual(
    linesOf({ "kv/sharing/a.ts": ["kv/sharing/b.ts"], "kv/sharing/b.ts": ["kv/sharing/a.ts"] }),
    [
      "cycle: kv/sharing/a.ts → kv/sharing/b.ts → kv/sharing/a.ts",
    ],
  );
});

Deno.test("a three-file cycle is reported in import order", () => {
  assert.deepEqual(
    linesOf({
      "kv/tree/c.ts": ["kv/tree/a.ts"],
      "kv/tree/a.ts": ["kv/tree/b.ts", "lib/mime.ts"],
      "kv/tree/b.ts": ["kv/tree/c.ts"],
    }),
    ["cycle: kv/tree/a.ts → kv/tree/b.ts → kv/tree/c.ts → kv/tree/a.ts"],
  );
});

Deno.test("a cycle made of type-only imports is still a cycle", () => {
  assert.deepEqual(
    linesOf({
      "kv/tree/resources.ts": ["type:kv/sharing/shares.ts"],
      "kv/sharing/shares.ts": ["type:kv/tree/resources.ts"],
    }),
    ["cycle: kv/sharing/shares.ts → kv/tree/resources.ts → kv/sharing/shares.ts"],
  );
});

Deno.test("a file importing itself is a cycle", () => {
  assert.deepEqual(linesOf({ "lib/mime.ts": ["lib/mime.ts"] }), [
    "cycle: lib/mime.ts → lib/mime.ts",
  ]);
});

Deno.test("each tangle is reported once, naming files beyond the shortest cycle", () => {
  assert.deepEqual(
    linesOf({
      "kv/tree/templates.ts": ["kv/tree/templates/docx.ts", "kv/tree/templates/xlsx.ts"],
      "kv/tree/templates/docx.ts": ["kv/tree/templates.ts"],
      "kv/tree/templates/xlsx.ts": ["kv/tree/templates.ts"],
      "kv/sharing/a.ts": ["kv/sharing/b.ts"],
      "kv/sharing/b.ts": ["kv/sharing/a.ts"],
    }),
    [
      "cycle: kv/sharing/a.ts → kv/sharing/b.ts → kv/sharing/a.ts",
      "cycle: kv/tree/templates.ts → kv/tree/templates/docx.ts → kv/tree/templates.ts " +
      "(also in this cycle group: kv/tree/templates/xlsx.ts)",
    ],
  );
});

Deno.test("cycles come from strongly connected components, not from shared imports", () => {
  // A diamond is no cycle; a long chain back to the start is.
  const diamond = graphOf({
    "api/http/a.ts": ["api/http/b.ts", "api/http/c.ts"],
    "api/http/b.ts": ["api/http/d.ts"],
    "api/http/c.ts": ["api/http/d.ts"],
  });
  assert.deepEqual(findCycles(diamond), []);
  const chain = graphOf({
    "lib/a.ts": ["lib/b.ts"],
    "lib/b.ts": ["lib/c.ts"],
    "lib/c.ts": ["lib/d.ts"],
    "lib/d.ts": ["lib/a.ts", "lib/e.ts"],
  });
  assert.deepEqual(findCycles(chain), [
    { path: ["lib/a.ts", "lib/b.ts", "lib/c.ts", "lib/d.ts", "lib/a.ts"], alsoInCycle: [] },
  ]);
});

Deno.test("an import up the layers is reported with both layers", () => {
  assert.deepEqual(
    linesOf({
      "kv/tree/drive.ts": ["api/http/errors.ts"],
      "lib/secrets.ts": ["type:kv/deps.ts"],
      "api/http/auth.ts": ["app.ts"],
      "kv/db.ts": ["kv/identity/users.ts"],
    }),
    [
      "upward: api/http/auth.ts imports app.ts (edges → composition)",
      "upward: kv/db.ts imports kv/identity/users.ts (stores → domain)",
      "upward: kv/tree/drive.ts imports api/http/errors.ts (domain → edges)",
      "upward: lib/secrets.ts imports kv/deps.ts (shared → stores)",
    ],
  );
});

Deno.test("provider state is domain: the provider edge may use it, it may not use the edge", () => {
  assert.deepEqual(placementOf("kv/adapters/adapters.ts"), "domain");
  assert.deepEqual(placementOf("provider/routes.ts"), "edges");
  assert.deepEqual(linesOf({ "kv/adapters/replay.ts": ["provider/jwt.ts"] }), [
    "upward: kv/adapters/replay.ts imports provider/jwt.ts (domain → edges)",
  ]);
});

Deno.test("a route module importing another route module is reported", () => {
  assert.deepEqual(
    linesOf({
      "api/external/files.ts": ["api/external/files_upload.ts", "api/external/index.ts"],
      "api/admin/users.ts": ["api/public/links.ts"],
      "api/external/index.ts": ["api/external/files.ts", "api/external/folders.ts"],
    }),
    [
      // files.ts → index.ts → files.ts is also a cycle; cycles come first.
      "cycle: api/external/files.ts → api/external/index.ts → api/external/files.ts",
      "route: api/admin/users.ts imports api/public/links.ts",
      "route: api/external/files.ts imports api/external/files_upload.ts",
    ],
  );
});

Deno.test("the api and provider edges import each other only through the allow-list", () => {
  assert.deepEqual(
    linesOf({
      "api/admin/adapters.ts": ["provider/host_client.ts"],
      "api/admin/tenants.ts": ["provider/host_client.ts"],
      "provider/operations.ts": ["type:api/http/envelope.ts"],
    }),
    [
      "edge: api/admin/tenants.ts imports provider/host_client.ts (api/ and provider/ are " +
      "separate edge areas; share code through the domain or lib/, or list the import in " +
      "EDGE_AREA_ALLOWED)",
      "edge: provider/operations.ts imports api/http/envelope.ts (provider/ and api/ are " +
      "separate edge areas; share code through the domain or lib/, or list the import in " +
      "EDGE_AREA_ALLOWED)",
    ],
  );
});

Deno.test("browser code takes code outside ui/ with import type only", () => {
  assert.deepEqual(
    linesOf({
      "ui/admin/api.ts": ["type:api/admin/tenants.ts", "kv/errors.ts", "ui/admin/session.ts"],
      // The build script runs in Deno and is never bundled.
      "ui/build.ts": ["lib/secrets.ts", "ui/source_hash.ts"],
    }),
    [
      "browser: ui/admin/api.ts imports kv/errors.ts as a value (browser code may import code " +
      "outside ui/ only with import type)",
    ],
  );
});

Deno.test("tools may import anything, and nothing in the layers may import a tool", () => {
  assert.deepEqual(
    linesOf({
      "tests/helpers/app.ts": ["boot.ts", "kv/testing.ts", "bench/serve_app.ts"],
      "kv/tree/drive_test.ts": ["kv/testing.ts", "api/http/errors.ts"],
      "scripts/gen_error_docs.ts": ["kv/errors.ts"],
      "kv/tree/drive.ts": ["kv/testing.ts"],
      "boot.ts": ["tests/helpers/app.ts"],
    }),
    [
      "cycle: boot.ts → tests/helpers/app.ts → boot.ts",
      "tool: boot.ts imports tests/helpers/app.ts (nothing in the layers may import tests, " +
      "benches, scripts or test fixtures)",
      "tool: kv/tree/drive.ts imports kv/testing.ts (nothing in the layers may import tests, " +
      "benches, scripts or test fixtures)",
    ],
  );
});

Deno.test("a file outside every layer is reported, so new folders get a place", () => {
  assert.deepEqual(linesOf({ "jobs/sweep.ts": ["kv/db.ts"], "api/http/x.ts": ["../outside.ts"] }), [
    "unplaced: ../outside.ts matches no layer (add it to PLACEMENT_RULES in " +
    "scripts/imports/rules.ts)",
    "unplaced: jobs/sweep.ts matches no layer (add it to PLACEMENT_RULES in " +
    "scripts/imports/rules.ts)",
  ]);
});

Deno.test("placement rules: stores are the files directly in kv/, tests are tools", () => {
  assert.deepEqual(placementOf("kv/db.ts"), "stores");
  assert.deepEqual(placementOf("kv/keys.ts"), "stores");
  assert.deepEqual(placementOf("kv/tree/locks.ts"), "domain");
  assert.deepEqual(placementOf("kv/tree/templates/docx.ts"), "domain");
  assert.deepEqual(placementOf("config_test.ts"), "tools");
  assert.deepEqual(placementOf("api/http/multipart_parser_test.ts"), "tools");
  assert.deepEqual(placementOf("ui/admin/components/connection_check.tsx"), "edges");
  assert.deepEqual(placementOf("lib/mime.ts"), "shared");
  assert.deepEqual(placementOf("static/share.ts"), undefined);
});

Deno.test("summary counts violations by kind", () => {
  const graph = graphOf({
    "kv/tree/a.ts": ["kv/tree/b.ts", "api/http/x.ts"],
    "kv/tree/b.ts": ["kv/tree/a.ts"],
  });
  assert.deepEqual(
    summary(graph, findViolations(graph)),
    "imports: 3 files, 3 edges, 2 violations (1 cycle, 1 upward)",
  );
});
