/**
 * Tests for the import-structure check on the repository itself: it must be clean, and the
 * script must run with the permissions deno.json's tasks give it. The rules are tested on
 * synthetic graphs in scripts/imports/violations_test.ts, the graph builder in
 * scripts/imports/graph_test.ts.
 */
import assert from "node:assert/strict";
import { readRepositoryGraph, REPOSITORY_ROOT } from "./check_imports.ts";
import { findViolations } from "./imports/violations.ts";

Deno.test("the repository has no import cycles and no upward imports", async () => {
  const graph = await readRepositoryGraph(REPOSITORY_ROOT);
  assert.ok(graph.files.includes("main.ts") && graph.files.includes("scripts/check_imports.ts"));
  assert.ok(graph.imports.some(({ from, to }) => from === "main.ts" && to === "boot.ts"));
  assert.ok(
    graph.imports.some(({ from, to, typeOnly }) =>
      from === "ui/admin/api.ts" && to === "api/admin/schemas/common.ts" && typeOnly
    ),
  );
  const lines = findViolations(graph).map(({ line }) => line);
  assert.deepEqual(lines, [], lines.join("\n"));
});

Deno.test("deno task check and test run the check with the permissions it needs", async () => {
  const { tasks } = JSON.parse(await Deno.readTextFile(new URL("deno.json", REPOSITORY_ROOT)));
  const commands = [tasks.check, tasks.test].map((task: string) =>
    task.split(" && ").find((command) => command.includes("scripts/check_imports.ts"))
  );
  assert.ok(commands[0] !== undefined && commands[0] === commands[1], String(commands));
  const [program, ...args] = commands[0].split(" ");
  assert.equal(program, "deno");
  const { code, stdout, stderr } = await new Deno.Command(program, {
    args,
    cwd: REPOSITORY_ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, output);
  assert.match(output, /^imports: \d+ files, \d+ edges, no cycles, no upward imports\n$/);
});
