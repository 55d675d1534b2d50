/**
 * The layer rules of the import-structure check, as data: which files sit in which layer, which
 * files are route modules, which edge areas stay apart, what browser code is. A new folder or an
 * intended exception is a line here, with its reason. scripts/imports/violations.ts applies them;
 * scripts/check_imports.ts runs the check.
 */

/** The layers from top to bottom. A file may import its own layer or any layer below it. */
export const LAYER_ORDER = ["composition", "edges", "domain", "stores", "shared"] as const;
export type Layer = typeof LAYER_ORDER[number];

/** Where a file sits: a layer, or "tools", which stands outside the layering. */
export type Placement = Layer | "tools";

/** Which files sit where. The first rule whose glob matches a path wins, so order matters. */
export const PLACEMENT_RULES: readonly { glob: string; placement: Placement; why: string }[] = [
  // Tools may import anything so they can test and measure any layer; nothing in the layers may
  // import them, or test code would ship with the server.
  { glob: "tests/**", placement: "tools", why: "end-to-end tests and their helpers" },
  { glob: "bench/**", placement: "tools", why: "benchmarks" },
  { glob: "scripts/**", placement: "tools", why: "maintenance scripts such as the import check" },
  { glob: "**/*_test.ts", placement: "tools", why: "unit tests beside their modules" },
  { glob: "kv/testing.ts", placement: "tools", why: "test fixtures for the domain modules" },
  // Composition wires everything together, so it is the only layer that sees all others.
  { glob: "main.ts", placement: "composition", why: "process entry point" },
  { glob: "boot.ts", placement: "composition", why: "opens the stores and builds the app" },
  { glob: "app.ts", placement: "composition", why: "mounts the HTTP areas" },
  { glob: "serve.ts", placement: "composition", why: "serves the app with connection limits" },
  { glob: "cli/**", placement: "composition", why: "the admin CLI: opens the stores like boot" },
  // Edges speak a protocol (HTTP APIs, the storage provider protocol, the browser console).
  {
    glob: "api/ops/**",
    placement: "edges",
    why: "request ids and logs, metrics, readiness: app.ts mounts them over every area",
  },
  { glob: "api/**", placement: "edges", why: "drive, admin and public HTTP APIs" },
  { glob: "provider/**", placement: "edges", why: "storage provider protocol edge" },
  { glob: "ui/**", placement: "edges", why: "browser code and its build" },
  // The domain: what the service knows about identities, the file tree and sharing.
  { glob: "kv/adapters/**", placement: "domain", why: "provider adapters and the jti replay store" },
  { glob: "kv/identity/**", placement: "domain", why: "tenants, users, API keys, admin token" },
  { glob: "kv/tree/**", placement: "domain", why: "resources, locks, usage, trash, templates" },
  { glob: "kv/sharing/**", placement: "domain", why: "shares, share links, notifications" },
  { glob: "kv/events/**", placement: "domain", why: "event log, change feed, activity" },
  { glob: "kv/migrations/**", placement: "domain", why: "schema version, start-up migrations" },
  { glob: "kv/ops/**", placement: "domain", why: "fsck, usage recompute, user export (admin)" },
  { glob: "kv/backup/**", placement: "domain", why: "backup and restore of KV state and blobs" },
  {
    glob: "kv/lifecycle/**",
    placement: "domain",
    why: "deleting users and tenants, drive transfer, trash and version retention",
  },
  // Stores: raw persistence and the vocabulary every domain module shares.
  { glob: "kv/*.ts", placement: "stores", why: "KV helpers, keys, error catalog, deps type" },
  { glob: "blobs/**", placement: "stores", why: "byte stores (filesystem, KV)" },
  { glob: "config.ts", placement: "stores", why: "process configuration" },
  // Shared helpers import nothing of the service.
  { glob: "lib/**", placement: "shared", why: "passwords, secrets, mime types" },
];

/**
 * Route modules: each registers one slice of an HTTP area and only its area's index.ts (or
 * app.ts) imports it. Route modules never import each other; shared code goes to api/http/ or
 * the domain.
 */
export const ROUTE_MODULE_GLOBS: readonly string[] = [
  "api/external/*.ts",
  "api/admin/*.ts",
  "api/public/*.ts",
];
/**
 * Files matching ROUTE_MODULE_GLOBS that are not route modules. api/admin/schemas.ts holds the
 * admin API's request and answer shapes, which its route modules and the console share.
 */
export const NOT_ROUTE_MODULES: readonly string[] = [
  "**/index.ts",
  "**/*_test.ts",
  "api/admin/schemas.ts",
];

/**
 * Separate edge areas. Both are edges, but the drive API and the provider protocol evolve on
 * their own; code they share belongs in the domain or lib/.
 */
export const SEPARATE_EDGE_AREAS: readonly string[] = ["api/", "provider/"];

/** Imports across SEPARATE_EDGE_AREAS that are intended, each with its reason. */
export const EDGE_AREA_ALLOWED: readonly { from: string; to: string; why: string }[] = [
  {
    from: "api/admin/adapters.ts",
    to: "provider/host_client.ts",
    why: "the admin adapter connection test calls the adapter's host through the protocol client",
  },
];

/**
 * Browser code: it may import code outside ui/ only with `import type`, since values would drag
 * server modules into the bundle.
 */
export const BROWSER_CODE_GLOB = "ui/**";
/** Files in ui/ that are not browser code: Deno scripts that build the bundle, never in it. */
export const NOT_BROWSER_CODE: readonly { path: string; why: string }[] = [
  { path: "ui/build.ts", why: "`deno task build`, bundles the console" },
  { path: "ui/source_hash.ts", why: "fingerprints the console sources for the build" },
];

/** Paths skipped when collecting sources (build output, runtime data, installed packages). */
export const SKIPPED_DIRECTORIES: readonly string[] = [
  "static/build/",
  // Third-party browser builds copied from npm (scripts/vendor_api_reference.ts).
  "static/vendor/",
  "data/",
  "node_modules/",
];
