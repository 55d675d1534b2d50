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
  { glob: "**/*_fixtures.ts", placement: "tools", why: "fixtures shared by the tests beside them" },
  // Composition wires everything together, so it is the only layer that sees all others.
  { glob: "main.ts", placement: "composition", why: "process entry point" },
  { glob: "boot.ts", placement: "composition", why: "opens the stores and builds the app" },
  { glob: "app.ts", placement: "composition", why: "mounts the HTTP areas" },
  { glob: "serve.ts", placement: "composition", why: "serves the app with connection limits" },
  {
    glob: "server/**",
    placement: "composition",
    why: "serve.ts's parts: accept loop, connection limits, the Deno runtime adapter",
  },
  { glob: "cli/**", placement: "composition", why: "the admin CLI: opens the stores like boot" },
  // Edges speak a protocol (HTTP APIs, the storage provider protocol, the browser console).
  {
    glob: "api/ops/**",
    placement: "edges",
    why: "request ids and logs, metrics, readiness: app.ts mounts them over every area",
  },
  { glob: "api/**", placement: "edges", why: "drive, admin and public HTTP APIs" },
  { glob: "provider/**", placement: "edges", why: "storage provider protocol edge" },
  { glob: "dav/**", placement: "edges", why: "WebDAV edge (docs/webdav.md)" },
  { glob: "ui/**", placement: "edges", why: "browser code and its build" },
  // The domain: what the service knows about identities, the file tree and sharing.
  {
    glob: "kv/adapters/**",
    placement: "domain",
    why: "provider adapters and the jti replay store",
  },
  { glob: "kv/identity/**", placement: "domain", why: "tenants, users, API keys, admin token" },
  { glob: "kv/tree/**", placement: "domain", why: "resources, locks, usage, trash, templates" },
  { glob: "kv/previews/**", placement: "domain", why: "cached PDF previews and thumbnails" },
  { glob: "kv/sharing/**", placement: "domain", why: "shares, share links, notifications" },
  { glob: "kv/events/**", placement: "domain", why: "event log, activity, webhooks" },
  { glob: "kv/views/**", placement: "domain", why: "search and the change feed, as a caller sees" },
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
  { glob: "config/**", placement: "stores", why: "the rows of the configuration table" },
  // Shared helpers import nothing of the service.
  { glob: "lib/**", placement: "shared", why: "passwords, secrets, mime types" },
];

/**
 * The folder order inside an area, tiers from top to bottom: a file in one folder may import a
 * folder of a lower tier, never one of its own tier (siblings stay apart) nor above, so the
 * folder-level arrows run one way. Nested folders count as their top folder (api/admin/schemas/
 * is api/admin/). Files directly in the area's root are placed by PLACEMENT_RULES alone (kv/*.ts
 * are the stores, below every kv/ folder). A new folder in an area fails the check until it gets
 * a tier here.
 */
export const FOLDER_ORDERS: readonly {
  area: string;
  tiers: readonly (readonly string[])[];
  why: string;
}[] = [
  {
    area: "kv/",
    tiers: [
      // Whole-drive jobs: they run over every other folder's records.
      ["lifecycle", "backup"],
      // Read models across drives and shares (search, change feed); adapter state; schema
      // migrations; admin audits. backup restores through migrations; lifecycle deletes adapters.
      ["views", "adapters", "migrations", "ops"],
      // Who else may see a resource: reads the tree, writes its own events.
      ["sharing"],
      // The file tree: every tree write appends its event in the same commit.
      ["tree"],
      // Rendered previews by content hash: the tree's blob sweep prunes them.
      ["previews"],
      // The event log as written (and webhooks): below every folder that records a change.
      ["events"],
      // Tenants, users, API keys: every other folder names its actors through them.
      ["identity"],
    ],
    why: "each domain folder builds on the ones below it (docs/architecture.md)",
  },
  {
    area: "api/",
    tiers: [
      // The areas app.ts mounts: route modules and ops (request log, /metrics, /readyz).
      ["external", "admin", "public", "account", "ops"],
      // What every area shares: auth, errors, envelopes, schemas, uploads. No routes.
      ["http"],
    ],
    why: "the mounted areas share code through api/http/, never with each other",
  },
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
  "api/account/*.ts",
];
/**
 * Files matching ROUTE_MODULE_GLOBS that are not route modules. Shapes several route modules
 * share sit in a folder the globs do not reach (api/admin/schemas/: the admin API's request and
 * answer shapes, which its route modules and the console share).
 */
export const NOT_ROUTE_MODULES: readonly string[] = [
  "**/index.ts",
  "**/*_test.ts",
];

/**
 * Separate edge areas. Both are edges, but the drive API and the provider protocol evolve on
 * their own; code they share belongs in the domain or lib/.
 */
export const SEPARATE_EDGE_AREAS: readonly string[] = ["api/", "provider/", "dav/"];

/** Imports across SEPARATE_EDGE_AREAS that are intended, each with its reason. */
export const EDGE_AREA_ALLOWED: readonly { from: string; to: string; why: string }[] = [
  {
    from: "api/admin/adapters.ts",
    to: "provider/host/client.ts",
    why: "the admin adapter connection test calls the adapter's host through the protocol client",
  },
  {
    from: "dav/get.ts",
    to: "api/http/file_response.ts",
    why: "a WebDAV GET sends a file exactly as the API download does: one ETag, Range and 304 rule",
  },
  {
    from: "dav/auth.ts",
    to: "api/http/client_address.ts",
    why:
      "the sign-in throttle names the client as the link-password throttle does (trusted proxies)",
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

/**
 * Files outside ui/ that browser code may import as values: they import nothing, so the bundle
 * gains only them, and server and browser share one rule instead of two copies.
 */
export const BROWSER_SHARED: readonly { path: string; why: string }[] = [
  { path: "lib/quota.ts", why: "quota units: the console's quota field and the CLI's --quota" },
];

/** Paths skipped when collecting sources (build output, runtime data, installed packages). */
export const SKIPPED_DIRECTORIES: readonly string[] = [
  "static/build/",
  // Third-party browser builds copied from npm (scripts/vendor_api_reference.ts).
  "static/vendor/",
  "data/",
  "node_modules/",
];
