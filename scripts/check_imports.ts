/**
 * Import-structure check (issue 10): fails when the import graph has a cycle or an import that
 * runs back up the layers. Run by `deno task check` and `deno task test`:
 *
 *     deno run --allow-read --allow-run=git,deno scripts/check_imports.ts
 *
 * It lists the sources with git (scripts/imports/graph.ts), reads their imports from Deno's own
 * module graph (`deno info --json`), applies the rules of scripts/imports/rules.ts
 * (scripts/imports/violations.ts) and prints one line per violation and a summary.
 */
import { type ImportGraph, listSources, readGraph } from "./imports/graph.ts";
import { SKIPPED_DIRECTORIES } from "./imports/rules.ts";
import { findViolations, summary } from "./imports/violations.ts";

/** The repository root: the folder above scripts/. */
export const REPOSITORY_ROOT = new URL("../", import.meta.url);

/** The graph of every source file of the repository at `root`. */
export async function readRepositoryGraph(root: URL): Promise<ImportGraph> {
  return readGraph(root, await listSources(root, SKIPPED_DIRECTORIES));
}

if (import.meta.main) {
  const graph = await readRepositoryGraph(REPOSITORY_ROOT).catch((error: Error) => {
    console.error(error.message); // git or deno info failed: no graph to check
    Deno.exit(2);
  });
  const violations = findViolations(graph);
  for (const { line } of violations) console.log(line);
  console.log(summary(graph, violations));
  Deno.exit(violations.length > 0 ? 1 : 0);
}
