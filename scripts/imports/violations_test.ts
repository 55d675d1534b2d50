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
    "api/external/files.ts": ["kv/sharing/shares.ts", "api/http/envelope.ts"],
    "api/admin/adapters.ts": ["provider/host/client.ts", "kv/adapters/adapters.ts"],
    "provider/routes.ts": ["kv/adapters/adapters.ts", "type:kv/deps.ts"],
    "kv/sharing/shares.ts": ["kv/tree/drive.ts", "kv/identity/users.ts", "kv/errors.ts"],
    "kv/tree/drive.ts": ["kv/events/log.ts", "kv/db.ts", "lib/mime.ts"],
    "blobs/kv.ts": ["kv/db.ts"],
    "ui/admin/api.ts": ["type:api/admin/tenants.ts", "ui/shared/form.ts"],
    "tests/drive/files_test.ts": ["tests/helpers/app.ts", "kv/tree/drive.ts"],
    "kv/tree/drive_test.ts": ["kv/testing.ts", "kv/tree/drive.ts"],
  });
  const violations = findViolations(graph);
  assert.deepEqual(violations, []);
  assert.deepEqual(
    summary(graph, violations),
    "imports: 28 files, 28 edges, no cycles, no upward imports",
  );
});

/**
 * Graphs and the lines the check must print for them, in its order: each case is its own test,
 * named by the rule it tries.
 */
const CASES: { name: string; imports: Record<string, string[]>; says: string[] }[] = [
  {
    name: "a two-file cycle is reported as a path back to its start",
    imports: { "kv/sharing/a.ts": ["kv/sharing/b.ts"], "kv/sharing/b.ts": ["kv/sharing/a.ts"] },
    says: [
      "cycle: kv/sharing/a.ts → kv/sharing/b.ts → kv/sharing/a.ts",
    ],
  },
  {
    name: "a three-file cycle is reported in import order",
    imports: {
      "kv/tree/c.ts": ["kv/tree/a.ts"],
      "kv/tree/a.ts": ["kv/tree/b.ts", "lib/mime.ts"],
      "kv/tree/b.ts": ["kv/tree/c.ts"],
    },
    says: ["cycle: kv/tree/a.ts → kv/tree/b.ts → kv/tree/c.ts → kv/tree/a.ts"],
  },
  {
    name: "a cycle made of type-only imports is still a cycle",
    imports: {
      "kv/tree/resources.ts": ["type:kv/tree/moves.ts"],
      "kv/tree/moves.ts": ["type:kv/tree/resources.ts"],
    },
    says: ["cycle: kv/tree/moves.ts → kv/tree/resources.ts → kv/tree/moves.ts"],
  },
  {
    name: "a file importing itself is a cycle",
    imports: { "lib/mime.ts": ["lib/mime.ts"] },
    says: [
      "cycle: lib/mime.ts → lib/mime.ts",
    ],
  },
  {
    name: "each tangle is reported once, naming files beyond the shortest cycle",
    imports: {
      "kv/tree/templates.ts": ["kv/tree/templates/docx.ts", "kv/tree/templates/xlsx.ts"],
      "kv/tree/templates/docx.ts": ["kv/tree/templates.ts"],
      "kv/tree/templates/xlsx.ts": ["kv/tree/templates.ts"],
      "kv/sharing/a.ts": ["kv/sharing/b.ts"],
      "kv/sharing/b.ts": ["kv/sharing/a.ts"],
    },
    says: [
      "cycle: kv/sharing/a.ts → kv/sharing/b.ts → kv/sharing/a.ts",
      "cycle: kv/tree/templates.ts → kv/tree/templates/docx.ts → kv/tree/templates.ts " +
      "(also in this cycle group: kv/tree/templates/xlsx.ts)",
    ],
  },
  {
    name: "an import up the layers is reported with both layers",
    imports: {
      "kv/tree/drive.ts": ["api/http/errors.ts"],
      "lib/secrets.ts": ["type:kv/deps.ts"],
      "api/http/auth.ts": ["app.ts"],
      "kv/db.ts": ["kv/identity/users.ts"],
    },
    says: [
      "upward: api/http/auth.ts imports app.ts (edges → composition)",
      "upward: kv/db.ts imports kv/identity/users.ts (stores → domain)",
      "upward: kv/tree/drive.ts imports api/http/errors.ts (domain → edges)",
      "upward: lib/secrets.ts imports kv/deps.ts (shared → stores)",
    ],
  },
  {
    name: "a backwards folder arrow inside kv/ or api/ is reported",
    imports: {
      // The arrows of issue 21: tree → sharing, events → tree, http → ops.
      "kv/tree/search.ts": ["kv/sharing/authorize.ts"],
      "kv/events/feed.ts": ["kv/tree/resources.ts"],
      "kv/identity/users.ts": ["type:kv/events/log.ts"],
      "api/http/errors.ts": ["api/ops/logging.ts"],
      "api/http/schemas.ts": ["api/admin/schemas/events.ts"],
    },
    says: [
      "folder: api/http/errors.ts imports api/ops/logging.ts (api/http → api/ops runs up the " +
      "folder order of api/; see FOLDER_ORDERS in scripts/imports/rules.ts)",
      "folder: api/http/schemas.ts imports api/admin/schemas/events.ts (api/http → api/admin " +
      "runs up the folder order of api/; see FOLDER_ORDERS in scripts/imports/rules.ts)",
      "folder: kv/events/feed.ts imports kv/tree/resources.ts (kv/events → kv/tree runs up the " +
      "folder order of kv/; see FOLDER_ORDERS in scripts/imports/rules.ts)",
      "folder: kv/identity/users.ts imports kv/events/log.ts (kv/identity → kv/events runs up " +
      "the folder order of kv/; see FOLDER_ORDERS in scripts/imports/rules.ts)",
      "folder: kv/tree/search.ts imports kv/sharing/authorize.ts (kv/tree → kv/sharing runs up " +
      "the folder order of kv/; see FOLDER_ORDERS in scripts/imports/rules.ts)",
    ],
  },
  {
    name: "folders of one tier do not import each other",
    imports: {
      "kv/ops/fsck.ts": ["kv/migrations/migrations.ts"],
      "api/ops/routes.ts": ["api/external/index.ts"],
    },
    says: [
      "folder: api/ops/routes.ts imports api/external/index.ts (api/ops → api/external: " +
      "siblings in the folder order of api/ (share code through a lower folder); see " +
      "FOLDER_ORDERS in scripts/imports/rules.ts)",
      "folder: kv/ops/fsck.ts imports kv/migrations/migrations.ts (kv/ops → kv/migrations: " +
      "siblings in the folder order of kv/ (share code through a lower folder); see " +
      "FOLDER_ORDERS in scripts/imports/rules.ts)",
    ],
  },
  {
    name: "a folder of kv/ or api/ with no tier is reported once, so it gets a place",
    imports: {
      "kv/quota/limits.ts": ["kv/tree/usage.ts"],
      "kv/quota/plans.ts": ["kv/quota/limits.ts"],
      "kv/tree/usage.ts": ["kv/db.ts"],
      // A folder of only tests is not code of the area.
      "api/fixtures/a_test.ts": ["api/http/auth.ts"],
    },
    says: [
      "unplaced: kv/quota/limits.ts matches no layer (add it to PLACEMENT_RULES in " +
      "scripts/imports/rules.ts)",
      "unplaced: kv/quota/plans.ts matches no layer (add it to PLACEMENT_RULES in " +
      "scripts/imports/rules.ts)",
      "folder: kv/quota/ has no tier in the folder order of kv/ (add it to FOLDER_ORDERS in " +
      "scripts/imports/rules.ts)",
    ],
  },
  {
    name: "a route module importing another route module is reported",
    imports: {
      "api/external/files.ts": ["api/external/files_upload.ts", "api/external/index.ts"],
      "api/admin/users.ts": ["api/public/links.ts"],
      "api/external/index.ts": ["api/external/files.ts", "api/external/folders.ts"],
    },
    says: [
      // files.ts → index.ts → files.ts is also a cycle; cycles come first.
      "cycle: api/external/files.ts → api/external/index.ts → api/external/files.ts",
      // Two areas app.ts mounts are also siblings in api/'s folder order.
      "folder: api/admin/users.ts imports api/public/links.ts (api/admin → api/public: siblings " +
      "in the folder order of api/ (share code through a lower folder); see FOLDER_ORDERS in " +
      "scripts/imports/rules.ts)",
      "route: api/admin/users.ts imports api/public/links.ts",
      "route: api/external/files.ts imports api/external/files_upload.ts",
    ],
  },
  {
    name: "the api and provider edges import each other only through the allow-list",
    imports: {
      "api/admin/adapters.ts": ["provider/host/client.ts"],
      "api/admin/tenants.ts": ["provider/host/client.ts"],
      "provider/operations.ts": ["type:api/http/envelope.ts"],
    },
    says: [
      "edge: api/admin/tenants.ts imports provider/host/client.ts (api/ and provider/ are " +
      "separate edge areas; share code through the domain or lib/, or list the import in " +
      "EDGE_AREA_ALLOWED)",
      "edge: provider/operations.ts imports api/http/envelope.ts (provider/ and api/ are " +
      "separate edge areas; share code through the domain or lib/, or list the import in " +
      "EDGE_AREA_ALLOWED)",
    ],
  },
  {
    name: "browser code takes code outside ui/ with import type only",
    imports: {
      "ui/admin/api.ts": ["type:api/admin/tenants.ts", "kv/errors.ts", "ui/admin/session.ts"],
      // A file listed in BROWSER_SHARED imports nothing, so its values may be bundled.
      "ui/admin/quota.ts": ["lib/quota.ts"],
      "ui/admin/pages/users.tsx": ["lib/secrets.ts"],
      // The build script runs in Deno and is never bundled.
      "ui/build.ts": ["lib/secrets.ts", "ui/source_hash.ts"],
    },
    says: [
      "browser: ui/admin/api.ts imports kv/errors.ts as a value (browser code may import code " +
      "outside ui/ only with import type)",
      "browser: ui/admin/pages/users.tsx imports lib/secrets.ts as a value (browser code may " +
      "import code outside ui/ only with import type)",
    ],
  },
  {
    name: "tools may import anything, and nothing in the layers may import a tool",
    imports: {
      "tests/helpers/app.ts": ["boot.ts", "kv/testing.ts", "bench/serve_app.ts"],
      "kv/tree/drive_test.ts": ["kv/testing.ts", "api/http/errors.ts"],
      "scripts/gen_error_docs.ts": ["kv/errors.ts"],
      "kv/tree/drive.ts": ["kv/testing.ts"],
      "boot.ts": ["tests/helpers/app.ts"],
    },
    says: [
      "cycle: boot.ts → tests/helpers/app.ts → boot.ts",
      "tool: boot.ts imports tests/helpers/app.ts (nothing in the layers may import tests, " +
      "benches, scripts or test fixtures)",
      "tool: kv/tree/drive.ts imports kv/testing.ts (nothing in the layers may import tests, " +
      "benches, scripts or test fixtures)",
    ],
  },
  {
    name: "a file outside every layer is reported, so new folders get a place",
    imports: { "jobs/sweep.ts": ["kv/db.ts"], "api/http/x.ts": ["../outside.ts"] },
    says: [
      "unplaced: ../outside.ts matches no layer (add it to PLACEMENT_RULES in " +
      "scripts/imports/rules.ts)",
      "unplaced: jobs/sweep.ts matches no layer (add it to PLACEMENT_RULES in " +
      "scripts/imports/rules.ts)",
    ],
  },
];

for (const c of CASES) {
  Deno.test(c.name, () => assert.deepEqual(linesOf(c.imports), c.says));
}

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

Deno.test("provider state is domain: the provider edge may use it, it may not use the edge", () => {
  assert.deepEqual(placementOf("kv/adapters/adapters.ts"), "domain");
  assert.deepEqual(placementOf("provider/routes.ts"), "edges");
  assert.deepEqual(linesOf({ "kv/adapters/replay.ts": ["provider/jwt.ts"] }), [
    "upward: kv/adapters/replay.ts imports provider/jwt.ts (domain → edges)",
  ]);
});

Deno.test("folders inside kv/ and api/ import only folders of a lower tier", () => {
  const clean = graphOf({
    "kv/lifecycle/delete_account.ts": ["kv/adapters/adapters.ts", "kv/sharing/shares.ts"],
    "kv/backup/restore.ts": ["kv/migrations/migrations.ts", "kv/keys.ts"],
    "kv/views/feed.ts": ["kv/sharing/authorize.ts", "kv/tree/resources.ts", "kv/events/log.ts"],
    "kv/sharing/shares.ts": ["kv/tree/resources.ts", "kv/events/log.ts", "kv/identity/users.ts"],
    "kv/tree/resources.ts": ["kv/events/log.ts", "kv/identity/users.ts", "kv/db.ts"],
    "kv/events/webhooks.ts": ["kv/identity/tenants.ts"],
    // A nested folder counts as its top folder.
    "api/admin/schemas/events.ts": ["api/admin/schemas/common.ts", "api/http/schemas.ts"],
    "api/ops/routes.ts": ["api/http/auth.ts"],
    // Tools stand outside the order.
    "kv/tree/resources_test.ts": ["kv/views/search.ts"],
  });
  assert.deepEqual(findViolations(clean), []);
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
