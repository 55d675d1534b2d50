/**
 * The import graph of the repository, read from Deno's own module graph: `deno info --json` on a
 * root module that imports every source file. Deno parses each file as it does to run or check
 * it, so every import form (static, `export … from`, dynamic with a literal, `typeof import()`)
 * is read as Deno reads it, and bare specifiers resolve through deno.json's import map.
 *
 * An edge is type-only when Deno loads its target for types alone: `import type`,
 * `export type … from` and `typeof import("x")`. `import { type A } from "x"` still loads "x"
 * (it stays as `import {} from "x"` under verbatimModuleSyntax), so it is a value import.
 * Only `file:` modules are in the graph; npm, `node:` and remote modules are outside it.
 */
import { join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** One import from a file to another file of the repository, by repository-relative paths. */
export interface ImportEdge {
  from: string;
  to: string;
  /** True when every import of `to` in `from` is type-only (see above). */
  typeOnly: boolean;
}

export interface ImportGraph {
  files: readonly string[];
  imports: readonly ImportEdge[];
}

/** The part of a module in `deno info --json` output that the graph is built from. */
export interface ModuleInfo {
  specifier: string;
  /** "esm" for JavaScript and TypeScript, "asserted" for JSON, "npm", "node", …; none on error. */
  kind?: string;
  error?: string;
  /** Each import: `code` when it loads the module at run time, `type` when types need it. */
  dependencies?: readonly {
    specifier: string;
    code?: { specifier?: string };
    type?: { specifier?: string };
  }[];
  /** The types of a JavaScript module (`@ts-self-types`). */
  typesDependency?: { dependency?: { specifier?: string } };
}

/** Source files the graph is made of (the repository has no JavaScript sources). */
const SOURCE_FILE = /\.(ts|tsx)$/;

/** Tracked files and new ones git does not ignore, that exist on disk, minus skipped folders. */
export async function listSources(root: URL, skipped: readonly string[]): Promise<string[]> {
  const { success, stdout, stderr } = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached", "--others", "--exclude-standard"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`git ls-files failed: ${new TextDecoder().decode(stderr)}`);
  const paths = new TextDecoder().decode(stdout).split("\0").filter((path) =>
    SOURCE_FILE.test(path) && !skipped.some((dir) => path.startsWith(dir))
  );
  const existing: string[] = [];
  for (const path of new Set(paths)) {
    // The index still lists files moved away but not yet committed.
    const info = await Deno.stat(join(fileURLToPath(root), path)).catch(() => undefined);
    if (info?.isFile) existing.push(path);
  }
  return existing.sort();
}

/** The graph of `files` (repository paths under `root`) and their imports among each other. */
export async function readGraph(root: URL, files: readonly string[]): Promise<ImportGraph> {
  const outputs = await Promise.all(rootModules(root, files).map((url) => denoInfo(root, url)));
  // Batches share modules (whatever both import); any copy of a module is the same.
  const modules = new Map(outputs.flat().map((module) => [module.specifier, module]));
  return graphFromModules(root, files, [...modules.values()]);
}

/**
 * Longest root module URL given to one `deno info` run; more files take several runs. Well below
 * the limits on one command-line argument (128 KiB on Linux, 32 KiB for a whole line on Windows).
 */
const MAX_ROOT_URL = 30_000;

/** data: URLs of modules that together import every file, none longer than `limit`. */
export function rootModules(root: URL, files: readonly string[], limit = MAX_ROOT_URL): string[] {
  const prefix = "data:application/typescript;base64,";
  const sources: string[] = [];
  for (const file of files) {
    const line = `import ${JSON.stringify(pathToFileURL(join(fileURLToPath(root), file)).href)};\n`;
    const last = sources.length - 1;
    const fits = last >= 0 &&
      prefix.length + ((sources[last].length + line.length) * 4) / 3 < limit;
    if (fits) sources[last] += line;
    else sources.push(line);
  }
  // File URLs are ASCII (percent-encoded), so btoa takes them; base64 keeps `#` and `%` intact.
  return sources.map((source) => prefix + btoa(source));
}

/**
 * Runs `deno info --json` (the `deno` on PATH) in `root`, so deno.json's import map and JSX
 * settings apply. npm and remote modules are not resolved (`--no-npm`, `--no-remote`): they stay
 * outside the graph and come back as modules with an error, so the check needs no network and no
 * package cache. `--no-lock` keeps it from reading or writing deno.lock.
 */
async function denoInfo(root: URL, rootModule: string): Promise<ModuleInfo[]> {
  const { success, stdout, stderr } = await new Deno.Command("deno", {
    args: ["info", "--json", "--no-npm", "--no-remote", "--no-lock", rootModule],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!success) throw new Error(`deno info failed: ${new TextDecoder().decode(stderr)}`);
  return JSON.parse(new TextDecoder().decode(stdout)).modules;
}

/**
 * Builds the graph from `deno info` modules (pure). Edges start at `files` and end at any
 * JavaScript or TypeScript `file:` module; an import of JSON is no edge. A target outside `root`
 * keeps its leading `../`, so the rules report it as unplaced. Throws when Deno could not load a
 * `file:` module (missing file, syntax error): the graph would be incomplete.
 */
export function graphFromModules(
  root: URL,
  files: readonly string[],
  modules: readonly ModuleInfo[],
): ImportGraph {
  const local = modules.filter((module) => module.specifier.startsWith("file:"));
  const failed = local.filter((module) => module.error !== undefined);
  if (failed.length > 0) {
    const importers = (url: string) =>
      local.filter((module) =>
        module.dependencies?.some(({ code, type }) =>
          code?.specifier === url || type?.specifier === url
        )
      ).map((module) => pathOf(root, module.specifier));
    const lines = failed.map(({ specifier, error }) => {
      const by = importers(specifier);
      return `  ${pathOf(root, specifier)}${
        by.length > 0 ? ` (imported by ${by.join(", ")})` : ""
      }: ${error}`;
    });
    throw new Error(`deno info could not load:\n${lines.join("\n")}`);
  }
  const esm = new Set(local.filter((m) => m.kind === "esm").map((m) => m.specifier));
  const sources = new Set(files);
  const byPair = new Map<string, ImportEdge>();
  const add = (from: string, target: string | undefined, typeOnly: boolean) => {
    if (target === undefined || !esm.has(target)) return;
    const to = pathOf(root, target);
    const known = byPair.get(`${from}\n${to}`);
    if (known) known.typeOnly &&= typeOnly;
    else byPair.set(`${from}\n${to}`, { from, to, typeOnly });
  };
  for (const module of local) {
    const from = pathOf(root, module.specifier);
    if (!sources.has(from)) continue;
    for (const { code, type } of module.dependencies ?? []) {
      add(from, code?.specifier, false);
      add(from, type?.specifier, true);
    }
    add(from, module.typesDependency?.dependency?.specifier, true);
  }
  const imports = [...byPair.values()].sort((a, b) =>
    a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0
  );
  return { files: [...files].sort(), imports };
}

/** The repository path of a `file:` URL, with `/` separators; `../…` when outside `root`. */
function pathOf(root: URL, url: string): string {
  return relative(fileURLToPath(root), fileURLToPath(url)).split(sep).join("/");
}
