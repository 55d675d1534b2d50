/**
 * Import-structure check (issue 10): fails when the import graph has a cycle or an import that
 * runs back up the layers. Run by `deno task check` and `deno task test`:
 *
 *     deno run --allow-read --allow-run=git scripts/check_imports.ts
 *
 * The layer rules are data at the top of this file. The script reads every tracked (or new,
 * not ignored) .ts/.tsx file, scans its import and export-from specifiers, resolves the relative
 * ones to repository paths (bare specifiers — npm packages through the import map, `node:` —
 * are outside the graph) and prints one line per violation and a summary. The pure core,
 * `findViolations`, takes a graph and is what scripts/check_imports_test.ts exercises.
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
  { glob: "scripts/**", placement: "tools", why: "maintenance scripts such as this check" },
  { glob: "**/*_test.ts", placement: "tools", why: "unit tests beside their modules" },
  { glob: "kv/testing.ts", placement: "tools", why: "test fixtures for the domain modules" },
  // Composition wires everything together, so it is the only layer that sees all others.
  { glob: "main.ts", placement: "composition", why: "process entry point" },
  { glob: "boot.ts", placement: "composition", why: "opens the stores and builds the app" },
  { glob: "app.ts", placement: "composition", why: "mounts the HTTP areas" },
  // provider/state holds provider state the domain owns; it must come before provider/**.
  { glob: "provider/state/**", placement: "domain", why: "provider adapters and replay store" },
  // Edges speak a protocol (HTTP APIs, the storage provider protocol, the browser console).
  { glob: "api/**", placement: "edges", why: "drive, admin and public HTTP APIs" },
  { glob: "provider/**", placement: "edges", why: "storage provider protocol edge" },
  { glob: "ui/**", placement: "edges", why: "browser code and its build" },
  // The domain: what the service knows about identities, the file tree and sharing.
  { glob: "kv/identity/**", placement: "domain", why: "tenants, users, API keys, admin token" },
  { glob: "kv/tree/**", placement: "domain", why: "resources, locks, usage, trash, templates" },
  { glob: "kv/sharing/**", placement: "domain", why: "shares, share links, notifications" },
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
export const SKIPPED_DIRECTORIES: readonly string[] = ["static/build/", "data/", "node_modules/"];

/** One import from a file to another file of the repository, by repository-relative paths. */
export interface ImportEdge {
  from: string;
  to: string;
  /** True when every import of `to` in `from` is `import type` / `export type`. */
  typeOnly: boolean;
}

export interface ImportGraph {
  files: readonly string[];
  imports: readonly ImportEdge[];
}

export type ViolationKind = "cycle" | "upward" | "route" | "edge" | "browser" | "tool" | "unplaced";

export interface Violation {
  kind: ViolationKind;
  /** The printed line, starting with `<kind>: `. */
  line: string;
}

// ---------------------------------------------------------------------------------------------
// Rules over a graph (pure).

const globCache = new Map<string, RegExp>();

/** Matches a repository path against a glob: `**` any depth (also none), `*` one segment. */
export function matchesGlob(path: string, glob: string): boolean {
  let pattern = globCache.get(glob);
  if (!pattern) {
    let source = "";
    for (let i = 0; i < glob.length; i++) {
      if (glob.startsWith("**/", i)) {
        source += "(?:.*/)?";
        i += 2;
      } else if (glob.startsWith("**", i)) {
        source += ".*";
        i += 1;
      } else if (glob[i] === "*") {
        source += "[^/]*";
      } else {
        source += glob[i].replace(/[.+?^${}()|[\]\\]/g, "\\$&");
      }
    }
    pattern = new RegExp(`^${source}$`);
    globCache.set(glob, pattern);
  }
  return pattern.test(path);
}

/** The placement of a path, or undefined when no rule covers it. */
export function placementOf(path: string): Placement | undefined {
  return PLACEMENT_RULES.find((rule) => matchesGlob(path, rule.glob))?.placement;
}

function isRouteModule(path: string): boolean {
  return ROUTE_MODULE_GLOBS.some((glob) => matchesGlob(path, glob)) &&
    !NOT_ROUTE_MODULES.some((glob) => matchesGlob(path, glob));
}

function isBrowserCode(path: string): boolean {
  return matchesGlob(path, BROWSER_CODE_GLOB) &&
    !NOT_BROWSER_CODE.some((script) => script.path === path);
}

function edgeArea(path: string): string | undefined {
  if (placementOf(path) !== "edges") return undefined;
  return SEPARATE_EDGE_AREAS.find((area) => path.startsWith(area));
}

/** Every violation in the graph: cycles first, then import rules in path order. */
export function findViolations(graph: ImportGraph): Violation[] {
  const violations = findCycles(graph).map(({ path, alsoInCycle }): Violation => ({
    kind: "cycle",
    line: `cycle: ${path.join(" → ")}` +
      (alsoInCycle.length > 0 ? ` (also in this cycle group: ${alsoInCycle.join(", ")})` : ""),
  }));
  const unplaced = new Set<string>();
  const noteUnplaced = (path: string) => {
    if (placementOf(path) === undefined) unplaced.add(path);
  };
  for (const file of graph.files) noteUnplaced(file);
  const edges = [...graph.imports].sort((a, b) => compare(a.from, b.from) || compare(a.to, b.to));
  for (const { from, to, typeOnly } of edges) {
    noteUnplaced(from);
    noteUnplaced(to);
    const fromPlace = placementOf(from);
    const toPlace = placementOf(to);
    if (fromPlace === undefined || toPlace === undefined || fromPlace === "tools") continue;
    if (toPlace === "tools") {
      violations.push({
        kind: "tool",
        line: `tool: ${from} imports ${to} (nothing in the layers may import tests, benches, ` +
          `scripts or test fixtures)`,
      });
      continue;
    }
    if (LAYER_ORDER.indexOf(toPlace) < LAYER_ORDER.indexOf(fromPlace)) {
      violations.push({
        kind: "upward",
        line: `upward: ${from} imports ${to} (${fromPlace} → ${toPlace})`,
      });
    }
    if (isRouteModule(from) && isRouteModule(to)) {
      violations.push({ kind: "route", line: `route: ${from} imports ${to}` });
    }
    const fromArea = edgeArea(from);
    const toArea = edgeArea(to);
    if (
      fromArea && toArea && fromArea !== toArea &&
      !EDGE_AREA_ALLOWED.some((allowed) => allowed.from === from && allowed.to === to)
    ) {
      violations.push({
        kind: "edge",
        line: `edge: ${from} imports ${to} (${fromArea} and ${toArea} are separate edge areas; ` +
          `share code through the domain or lib/, or list the import in EDGE_AREA_ALLOWED)`,
      });
    }
    if (isBrowserCode(from) && !matchesGlob(to, BROWSER_CODE_GLOB) && !typeOnly) {
      violations.push({
        kind: "browser",
        line: `browser: ${from} imports ${to} as a value (browser code may import code outside ` +
          `ui/ only with import type)`,
      });
    }
  }
  for (const path of [...unplaced].sort(compare)) {
    violations.push({
      kind: "unplaced",
      line: `unplaced: ${path} matches no layer (add it to PLACEMENT_RULES in ` +
        `scripts/check_imports.ts)`,
    });
  }
  return violations;
}

/**
 * The cycles of the graph, type-only imports included: one per strongly connected component
 * (Tarjan), as the shortest path from the component's first file back to itself. When the
 * component holds more files than that path, `alsoInCycle` names the rest, so every file caught
 * in a cycle shows up.
 */
export function findCycles(graph: ImportGraph): { path: string[]; alsoInCycle: string[] }[] {
  const successors = new Map<string, string[]>();
  const nodes = new Set(graph.files);
  for (const { from, to } of graph.imports) {
    nodes.add(from);
    nodes.add(to);
    const list = successors.get(from) ?? [];
    if (!list.includes(to)) list.push(to);
    successors.set(from, list);
  }
  for (const list of successors.values()) list.sort(compare);
  const next = (node: string) => successors.get(node) ?? [];

  const cycles: { path: string[]; alsoInCycle: string[] }[] = [];
  for (const component of stronglyConnectedComponents([...nodes].sort(compare), next)) {
    const start = component[0];
    if (component.length === 1 && !next(start).includes(start)) continue;
    const members = new Set(component);
    const path = shortestCycle(start, (node) => next(node).filter((n) => members.has(n)));
    cycles.push({ path, alsoInCycle: component.filter((node) => !path.includes(node)) });
  }
  return cycles.sort((a, b) => compare(a.path[0], b.path[0]));
}

/** Tarjan's algorithm, iterative; each component comes back sorted. */
function stronglyConnectedComponents(
  nodes: readonly string[],
  next: (node: string) => readonly string[],
): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  for (const root of nodes) {
    if (index.has(root)) continue;
    // Each frame is a node and how many of its successors have been visited.
    const frames: { node: string; child: number }[] = [];
    const enter = (node: string) => {
      index.set(node, counter);
      lowLink.set(node, counter);
      counter++;
      stack.push(node);
      onStack.add(node);
      frames.push({ node, child: 0 });
    };
    enter(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1];
      const children = next(frame.node);
      if (frame.child < children.length) {
        const child = children[frame.child++];
        if (!index.has(child)) {
          enter(child);
        } else if (onStack.has(child)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) {
        lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      }
      if (lowLink.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component.sort(compare));
      }
    }
  }
  return components;
}

/** Breadth-first: the shortest path start → … → start, as a list ending in start. */
function shortestCycle(start: string, next: (node: string) => readonly string[]): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (const child of next(node)) {
      if (child === start) {
        const back = [node];
        while (back[back.length - 1] !== start) back.push(cameFrom.get(back[back.length - 1])!);
        return [...back.reverse(), start];
      }
      if (!cameFrom.has(child)) {
        cameFrom.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start, start]; // not reached: start is in a cycle
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function summary(graph: ImportGraph, violations: readonly Violation[]): string {
  const edges = new Set(graph.imports.map(({ from, to }) => `${from}\n${to}`)).size;
  const head = `imports: ${graph.files.length} files, ${edges} edges`;
  if (violations.length === 0) return `${head}, no cycles, no upward imports`;
  const counts = new Map<ViolationKind, number>();
  for (const { kind } of violations) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, count]) => `${count} ${kind}`);
  return `${head}, ${violations.length} violations (${parts.join(", ")})`;
}

// ---------------------------------------------------------------------------------------------
// Scanning sources (pure).

/** One import or re-export found in a source text. */
export interface ImportSpecifier {
  specifier: string;
  typeOnly: boolean;
}

interface Token {
  kind: "name" | "string" | "punct" | "other";
  value: string;
  /** Open braces around the token; static imports and re-exports sit at depth 0. */
  depth: number;
}

/** Keywords after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

/**
 * Splits a TypeScript source into the tokens the import scan needs. Comments are dropped;
 * strings keep their text; template literals and regular expressions become opaque tokens, so
 * the word `import` inside them is never mistaken for an import. A string or regular expression
 * that would run past the end of a line (JSX text such as `don't`) stops being one, so a
 * misreading stays on its line.
 */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // "{" for a code brace, "${" for a template substitution.
  const braces: string[] = [];
  const push = (kind: Token["kind"], value: string) =>
    tokens.push({ kind, value, depth: braces.length });
  const isNameStart = (c: string) => /[A-Za-z_$\u0080-\uffff]/.test(c);
  const isNamePart = (c: string) => /[\w$\u0080-\uffff]/.test(c);
  let i = 0;

  /** Reads template text from i (just past "`" or "}") to the closing "`" or to "${". */
  const scanTemplate = () => {
    while (i < source.length) {
      const c = source[i];
      if (c === "\\") {
        i += 2;
      } else if (c === "`") {
        i++;
        push("other", "`template`");
        return;
      } else if (c === "$" && source[i + 1] === "{") {
        i += 2;
        braces.push("${");
        return;
      } else {
        i++;
      }
    }
  };

  /** Reads a quoted string or a regular expression ending at `close` on this line. */
  const scanLine = (close: string, regex: boolean): string | undefined => {
    let j = i + 1;
    let text = "";
    let classOpen = false;
    while (j < source.length) {
      const c = source[j];
      if (c === "\n" || c === "\r") return undefined;
      if (c === "\\") {
        text += source.slice(j, j + 2);
        j += 2;
        continue;
      }
      if (regex && c === "[") classOpen = true;
      if (regex && c === "]") classOpen = false;
      if (c === close && !classOpen) {
        i = j + 1;
        return text;
      }
      text += c;
      j++;
    }
    return undefined;
  };

  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
    } else if (source.startsWith("//", i)) {
      const end = source.indexOf("\n", i);
      i = end === -1 ? source.length : end;
    } else if (source.startsWith("/*", i)) {
      const end = source.indexOf("*/", i + 2);
      i = end === -1 ? source.length : end + 2;
    } else if (c === '"' || c === "'") {
      const text = scanLine(c, false);
      if (text === undefined) {
        push("punct", c);
        i++;
      } else {
        push("string", text);
      }
    } else if (c === "`") {
      i++;
      scanTemplate();
    } else if (c === "/" && startsRegex(tokens[tokens.length - 1])) {
      const text = scanLine("/", true);
      if (text === undefined) {
        push("punct", c);
        i++;
      } else {
        while (i < source.length && isNamePart(source[i])) i++; // flags
        push("other", "/regex/");
      }
    } else if (isNameStart(c)) {
      let j = i + 1;
      while (j < source.length && isNamePart(source[j])) j++;
      push("name", source.slice(i, j));
      i = j;
    } else if (/[0-9]/.test(c)) {
      let j = i + 1;
      while (j < source.length && /[\w.]/.test(source[j])) j++;
      push("other", source.slice(i, j));
      i = j;
    } else if (c === "{") {
      push("punct", c);
      braces.push("{");
      i++;
    } else if (c === "}") {
      const opened = braces.pop();
      i++;
      if (opened === "${") {
        scanTemplate();
      } else {
        push("punct", c);
      }
    } else if (source.startsWith("...", i) || source.startsWith("?.", i)) {
      push("punct", source.slice(i, i + (source[i] === "." ? 3 : 2)));
      i += source[i] === "." ? 3 : 2;
    } else {
      push("punct", c);
      i++;
    }
  }
  return tokens;
}

function startsRegex(previous: Token | undefined): boolean {
  if (!previous) return true;
  if (previous.kind === "name") return REGEX_AFTER.has(previous.value);
  if (previous.kind === "punct") return ![")", "]", "}"].includes(previous.value);
  return false;
}

/** Names that end a statement scan: an import clause never contains them. */
const STATEMENT_WORDS = new Set(["import", "export", "const", "let", "var", "function", "class"]);

/**
 * The specifiers a source imports or re-exports: `import … from`, `import type … from`,
 * `import "x"`, `export … from`, `export type … from` and `import("x")` with a literal.
 * Type-only means `import type`, `export type` or `typeof import("x")`, as Deno's module graph
 * sees it: `import { type A } from "x"` still loads "x" (it stays as `import {} from "x"` under
 * verbatimModuleSyntax), so it counts as a value import.
 */
export function parseImports(source: string): ImportSpecifier[] {
  const tokens = tokenize(source);
  const found: ImportSpecifier[] = [];
  const at = (i: number) => tokens[i] as Token | undefined;
  const is = (i: number, kind: Token["kind"], value?: string) =>
    at(i)?.kind === kind && (value === undefined || at(i)!.value === value);

  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.kind !== "name" || (token.value !== "import" && token.value !== "export")) continue;
    if (is(i - 1, "punct", ".") || is(i - 1, "punct", "?.")) continue; // a property named so
    if (token.value === "import" && is(i + 1, "punct", "(")) {
      if (is(i + 2, "string") && (is(i + 3, "punct", ")") || is(i + 3, "punct", ","))) {
        found.push({ specifier: at(i + 2)!.value, typeOnly: is(i - 1, "name", "typeof") });
      }
      continue;
    }
    if (token.depth !== 0) continue;
    if (token.value === "import" && is(i + 1, "string")) {
      found.push({ specifier: at(i + 1)!.value, typeOnly: false });
      continue;
    }
    if (
      token.value === "export" &&
      !(is(i + 1, "punct", "{") || is(i + 1, "punct", "*") || is(i + 1, "name", "type"))
    ) {
      continue; // export const / function / default …: not a re-export
    }
    const clause = readClause(tokens, i + 1);
    if (clause) {
      found.push({ specifier: clause.specifier, typeOnly: isTypeOnlyClause(clause.tokens) });
    }
  }
  return found;
}

/** The tokens between `import`/`export` and `from "x"`, or undefined when there is no `from`. */
function readClause(
  tokens: readonly Token[],
  start: number,
): { tokens: Token[]; specifier: string } | undefined {
  let depth = 0;
  for (let j = start; j < tokens.length; j++) {
    const token = tokens[j];
    if (token.kind === "punct" && token.value === "{") depth++;
    if (token.kind === "punct" && token.value === "}") depth--;
    if (depth !== 0) continue;
    if (token.kind === "name" && token.value === "from" && tokens[j + 1]?.kind === "string") {
      return { tokens: tokens.slice(start, j), specifier: tokens[j + 1].value };
    }
    if (token.kind === "punct" && (token.value === ";" || token.value === "=")) return undefined;
    if (token.kind === "name" && STATEMENT_WORDS.has(token.value)) return undefined;
  }
  return undefined;
}

function isTypeOnlyClause(clause: readonly Token[]): boolean {
  const [first, second] = clause;
  // `import type X from`, `import type { X } from`, `export type * from`; but not a default
  // import named `type` (`import type from`, `import type, { X } from`).
  return first?.kind === "name" && first.value === "type" && second !== undefined &&
    second.value !== ",";
}

/**
 * The repository path a specifier points at, for relative specifiers (`./`, `../`); undefined
 * for bare and URL specifiers. A path that climbs out of the repository keeps its leading `../`.
 */
export function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return undefined;
  const parts = fromFile.split("/").slice(0, -1);
  let climbedOut = 0;
  for (const part of specifier.split("/")) {
    if (part === "." || part === "") continue;
    if (part === "..") {
      if (parts.length > 0) parts.pop();
      else climbedOut++;
    } else {
      parts.push(part);
    }
  }
  return [...Array(climbedOut).fill(".."), ...parts].join("/");
}

/** Source files the graph is made of (the repository has no JavaScript sources). */
const SOURCE_FILE = /\.(ts|tsx)$/;
/** Import targets that are modules (an import of JSON or CSS is not an edge of the graph). */
const MODULE_FILE = /\.[cm]?[jt]sx?$/;

/** Builds the graph from file contents, keyed by repository path. */
export function buildGraph(sources: ReadonlyMap<string, string>): ImportGraph {
  const files = [...sources.keys()].sort(compare);
  const byPair = new Map<string, ImportEdge>();
  for (const from of files) {
    for (const { specifier, typeOnly } of parseImports(sources.get(from)!)) {
      const to = resolveSpecifier(from, specifier);
      if (to === undefined || !MODULE_FILE.test(to)) continue;
      const key = `${from}\n${to}`;
      const known = byPair.get(key);
      if (known) known.typeOnly &&= typeOnly;
      else byPair.set(key, { from, to, typeOnly });
    }
  }
  return { files, imports: [...byPair.values()] };
}

// ---------------------------------------------------------------------------------------------
// Reading the repository.

/** Tracked files and new ones git does not ignore, that exist on disk, minus skipped folders. */
export async function listSources(root: URL): Promise<string[]> {
  const { success, stdout, stderr } = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`git ls-files failed: ${new TextDecoder().decode(stderr)}`);
  const paths = new TextDecoder().decode(stdout).split("\0").filter((path) =>
    SOURCE_FILE.test(path) && !SKIPPED_DIRECTORIES.some((dir) => path.startsWith(dir))
  );
  const existing: string[] = [];
  for (const path of new Set(paths)) {
    // The index still lists files moved away but not yet committed.
    const info = await Deno.stat(new URL(path, root)).catch(() => undefined);
    if (info?.isFile) existing.push(path);
  }
  return existing.sort(compare);
}

export async function readRepositoryGraph(root: URL): Promise<ImportGraph> {
  const sources = new Map<string, string>();
  await Promise.all(
    (await listSources(root)).map(async (path) => {
      sources.set(path, await Deno.readTextFile(new URL(path, root)));
    }),
  );
  return buildGraph(sources);
}

/** The repository root: the folder above scripts/. */
export const REPOSITORY_ROOT = new URL("../", import.meta.url);

if (import.meta.main) {
  const graph = await readRepositoryGraph(REPOSITORY_ROOT);
  const violations = findViolations(graph);
  for (const { line } of violations) console.log(line);
  console.log(summary(graph, violations));
  Deno.exit(violations.length > 0 ? 1 : 0);
}
