/**
 * docs/architecture.md's folder map ("## Folder map") cannot drift from the tree:
 * - every path it names in backticks exists;
 * - every folder of the code (api/, kv/, provider/, blobs/, lib/, server/, ui/, cli/, scripts/,
 *   tests/, bench/, at any depth) is named;
 * - every source file of the service (at the root and in api/, kv/, provider/, blobs/, lib/,
 *   server/, cli/) is named, tests aside.
 *
 * The map names a file relative to the folder its paragraph or bullet is about: in
 * "`api/http/`: ... `auth.ts`", `auth.ts` is `api/http/auth.ts`. A name is looked up against each
 * folder named before it in the same paragraph or bullet, nearest first, then from the root.
 */
import assert from "node:assert/strict";
import { existsSync as exists } from "node:fs";
import { dirname, join } from "node:path";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAP_HEADING = "## Folder map";
/** Folders whose every sub-folder the map must name. */
const MAPPED_FOLDERS = ["api", "kv", "provider", "blobs", "lib", "server", "ui", "cli", "scripts"]
  .concat(["tests", "bench"]);
/** Folders whose every source file the map must name (the service's own code), and the root's. */
const FILE_MAPPED_FOLDERS = ["api", "kv", "provider", "blobs", "lib", "server", "cli"];
const isServiceFile = (path: string) =>
  !path.includes("/") || FILE_MAPPED_FOLDERS.some((top) => path.startsWith(`${top}/`));
/** A backticked token that is a path: lowercase path characters, a folder or a known extension. */
const PATH_TOKEN = /^\.?[a-z0-9_\-][a-z0-9_.\-/]*(\/|\.(ts|tsx|md|json|css|html|png|txt))$/;

/** Files git knows in the work tree (tracked or new, not ignored), without the deleted ones. */
async function treeFiles(): Promise<string[]> {
  const { stdout } = await new Deno.Command("git", {
    args: ["ls-files", "--cached", "--others", "--exclude-standard"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  const listed = new TextDecoder().decode(stdout).split("\n").filter(Boolean);
  return listed.filter((path) => exists(join(ROOT, path)));
}

/** The folder map's text, split into paragraphs and bullets (each resolves names on its own). */
function mapBlocks(markdown: string): string[] {
  const start = markdown.indexOf(`\n${MAP_HEADING}\n`);
  assert.ok(start >= 0, `docs/architecture.md has no "${MAP_HEADING}"`);
  const rest = markdown.slice(start + MAP_HEADING.length + 2);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  return section.split(/\n\s*\n|\n(?=- )/);
}

/**
 * Every path token of the map, resolved to a path from the root ("api/http/auth.ts",
 * "kv/tree/"), or reported as not found.
 */
function resolveMap(markdown: string): { named: Set<string>; missing: string[] } {
  const named = new Set<string>();
  const missing: string[] = [];
  for (const block of mapBlocks(markdown)) {
    const folders: string[] = [];
    for (const [, token] of block.matchAll(/`([^`\n]+)`/g)) {
      if (!PATH_TOKEN.test(token)) continue;
      const candidates = [...folders.toReversed().map((folder) => folder + token), token];
      const found = candidates.find((path) => exists(join(ROOT, path)));
      if (!found) {
        missing.push(`\`${token}\` (looked for ${candidates.join(", ")})`);
        continue;
      }
      named.add(found);
      if (found.endsWith("/")) folders.push(found);
      else if (found.includes("/")) named.add(dirname(found) + "/");
    }
  }
  return { named, missing };
}

const isTest = (path: string) => /_test\.tsx?$/.test(path);

Deno.test("docs/architecture.md's folder map names every folder and file, and only real ones", async () => {
  const markdown = await Deno.readTextFile(join(ROOT, "docs/architecture.md"));
  const { named, missing } = resolveMap(markdown);
  const files = await treeFiles();
  const folders = new Set(
    files.map((path) => dirname(path) + "/")
      .filter((folder) => MAPPED_FOLDERS.some((top) => folder.startsWith(`${top}/`))),
  );
  const unnamedFolders = [...folders].filter((folder) => !named.has(folder)).sort();
  const unnamedFiles = files
    .filter(isServiceFile)
    .filter((path) => /\.tsx?$/.test(path) && !isTest(path) && !named.has(path))
    .sort();
  assert.deepEqual(
    { missing, unnamedFolders, unnamedFiles },
    { missing: [], unnamedFolders: [], unnamedFiles: [] },
    "fix the folder map in docs/architecture.md (missing: named there but not in the tree)",
  );
});

Deno.test("the folder map check resolves names against their paragraph's folders", () => {
  const markdown = [
    "# T",
    "## Folder map",
    "- `api/http/`: `auth.ts`, and `lib/secrets.ts`; `nowhere.ts`.",
    "- `ui/admin/` (`pages/`, shared `components/`).",
    "",
    "`serve.ts` at the root.",
    "## Next",
    "`ignored.ts`",
  ].join("\n");
  const { named, missing } = resolveMap(markdown);
  for (const path of ["api/http/", "api/http/auth.ts", "lib/secrets.ts", "lib/"]) {
    assert.ok(named.has(path), path);
  }
  for (const path of ["ui/admin/", "ui/admin/pages/", "ui/admin/components/", "serve.ts"]) {
    assert.ok(named.has(path), path);
  }
  assert.equal(missing.length, 1);
  assert.match(missing[0], /^`nowhere\.ts`/);
});
