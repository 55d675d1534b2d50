/**
 * Tests for the graph builder: `deno info` on tiny projects in a temp folder (every import form
 * the repository uses, JSX, files Deno cannot load), and the pure steps around it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { graphFromModules, type ModuleInfo, readGraph, rootModules } from "./graph.ts";

/** The deno.json of the test projects: the repository's import map and JSX settings, in short. */
const DENO_JSON = JSON.stringify({
  imports: {
    hono: "npm:hono@4.13.19",
    preact: "npm:preact@10.29.8",
    "preact/": "npm:/preact@10.29.8/",
  },
  compilerOptions: { jsx: "react-jsx", jsxImportSource: "preact" },
});

/**
 * Writes `files` into `project/` of a new temp folder (a path starting with `../` lands beside
 * it) and returns the project's URL and its .ts/.tsx paths; `await using` removes the folder.
 */
async function project(files: Record<string, string>) {
  const temp = await Deno.makeTempDir({ prefix: "check_imports_" });
  const dir = join(temp, "project");
  for (const [path, text] of Object.entries({ "deno.json": DENO_JSON, ...files })) {
    await Deno.mkdir(dirname(join(dir, path)), { recursive: true });
    await Deno.writeTextFile(join(dir, path), text);
  }
  const sources = Object.keys(files).filter((path) => /^[^.].*\.tsx?$/.test(path)).sort();
  return {
    root: pathToFileURL(dir + "/"),
    sources,
    [Symbol.asyncDispose]: () => Deno.remove(temp, { recursive: true }),
  };
}

function edgesOf(graph: { imports: readonly { from: string; to: string; typeOnly: boolean }[] }) {
  return graph.imports.map(({ from, to, typeOnly }) =>
    `${from} → ${to}${typeOnly ? " (type)" : ""}`
  );
}

Deno.test("Deno's graph has every import form and whether it is type-only", async () => {
  const main = `/**
 * Module doc mentioning import { x } from "./not_in_doc.ts".
 */
import { a, b as c } from "./values.ts";
import type { T } from "../types.ts";
import type Default from "./default_type.ts";
import { type U, type V } from "./inline_types.ts";
import Def, * as ns from "./namespace.ts";
import "./side_effect.ts";
import {
  many,
  lines,
} from "./multi_line.ts";
import data from "./data.json" with { type: "json" };
import { Hono } from "hono";
import { createHash } from "node:crypto";
import { both } from "./both.ts";
import type { Both } from "./both.ts";
import type { Twice } from "./types_twice.ts";
export type { Again } from "./types_twice.ts";
import { outside } from "../../outside.ts";
export { d } from "./reexport.ts";
export * from "./star.ts";
export * as star from "./star_as.ts";
export type { W } from "./type_reexport.ts";
export type * from "./type_star.ts";
export const local = 1;
export { local as alias };
export type Local = typeof import("./typeof_import.ts");
// import { commented } from "./commented.ts";
/* import "./block_commented.ts"; */
const text = 'import { s } from "./in_string.ts"';
const html = \`<script type="module">import x from "./in_template.ts";</script> \${
  await import("./in_substitution.ts")
}\`;
const pattern = /import "\\.\\/in_regex.ts"/;
const half = 1 / 2; const other = "./not_import.ts";
async function later() {
  const { e } = await import("./dynamic.ts");
  const f = await import("./dynamic_with_options.ts", { with: {} });
  return import.meta.url + obj.import("./method_call.ts");
}
`;
  const targets = [
    "sub/values.ts",
    "types.ts",
    "sub/default_type.ts",
    "sub/inline_types.ts",
    "sub/namespace.ts",
    "sub/side_effect.ts",
    "sub/multi_line.ts",
    "sub/both.ts",
    "sub/types_twice.ts",
    "sub/reexport.ts",
    "sub/star.ts",
    "sub/star_as.ts",
    "sub/type_reexport.ts",
    "sub/type_star.ts",
    "sub/typeof_import.ts",
    "sub/in_substitution.ts",
    "sub/dynamic.ts",
    "sub/dynamic_with_options.ts",
    "sub/with space #1.ts",
  ];
  await using fixture = await project({
    "sub/main.ts": main,
    "sub/data.json": "{}",
    "../outside.ts": "export const outside = 1;",
    ...Object.fromEntries(targets.map((path) => [path, "export {};\n"])),
  });
  const { root, sources } = fixture;
  const graph = await readGraph(root, sources);
  assert.deepEqual(graph.files, sources);
  assert.deepEqual(edgesOf(graph), [
    "sub/main.ts → ../outside.ts",
    "sub/main.ts → sub/both.ts",
    "sub/main.ts → sub/default_type.ts (type)",
    "sub/main.ts → sub/dynamic.ts",
    "sub/main.ts → sub/dynamic_with_options.ts",
    "sub/main.ts → sub/in_substitution.ts",
    "sub/main.ts → sub/inline_types.ts",
    "sub/main.ts → sub/multi_line.ts",
    "sub/main.ts → sub/namespace.ts",
    "sub/main.ts → sub/reexport.ts",
    "sub/main.ts → sub/side_effect.ts",
    "sub/main.ts → sub/star.ts",
    "sub/main.ts → sub/star_as.ts",
    "sub/main.ts → sub/type_reexport.ts (type)",
    "sub/main.ts → sub/type_star.ts (type)",
    "sub/main.ts → sub/typeof_import.ts (type)",
    "sub/main.ts → sub/types_twice.ts (type)",
    "sub/main.ts → sub/values.ts",
    "sub/main.ts → types.ts (type)",
  ]);
  // npm packages are not resolved, so nothing is fetched and no lockfile is written.
  assert.ok(!existsSync(new URL("deno.lock", root)));
});

Deno.test("Deno's graph is not thrown off by JSX text", async () => {
  await using fixture = await project({
    "ui/page.tsx": `import { h } from "preact";
import { api } from "../api.ts";
export function Page() {
  return <p>Don't import things from "./jsx_text.ts" here: https://example.com</p>;
}
export { Page as Default } from "./after_jsx.ts";
`,
    "api.ts": "export const api = 1;",
    "ui/after_jsx.ts": "export {};",
  });
  assert.deepEqual(edgesOf(await readGraph(fixture.root, fixture.sources)), [
    "ui/page.tsx → api.ts",
    "ui/page.tsx → ui/after_jsx.ts",
  ]);
});

Deno.test("a file Deno cannot load fails the graph with Deno's message", async () => {
  await using fixture = await project({
    "main.ts": `import "./missing.ts";\nimport "./broken.ts";\n`,
    "broken.ts": "export const = 1;\n",
  });
  await assert.rejects(readGraph(fixture.root, fixture.sources), (error: Error) => {
    assert.match(error.message, /^deno info could not load:/);
    assert.match(error.message, /broken\.ts \(imported by main\.ts\): SyntaxError/);
    assert.match(error.message, /missing\.ts \(imported by main\.ts\): .*not found/i);
    return true;
  });
});

Deno.test("module URLs map to repository paths; npm, node, remote and JSON are no edges", () => {
  const root = pathToFileURL("/repo/");
  const url = (path: string) => new URL(path, root).href;
  const code = (path: string) => ({ specifier: path, code: { specifier: url(path) } });
  const modules: ModuleInfo[] = [
    { specifier: "data:application/typescript;base64,", kind: "esm", dependencies: [] },
    {
      specifier: url("main.ts"),
      kind: "esm",
      dependencies: [
        code("kv/db.ts"),
        { specifier: "./t.ts", type: { specifier: url("t.ts") } },
        {
          specifier: "./both.ts",
          code: { specifier: url("both.ts") },
          type: { specifier: url("both.ts") },
        },
        // `// @ts-types="./lib.d.ts"`: the code and its types are two modules.
        {
          specifier: "./lib.js",
          code: { specifier: url("lib.js") },
          type: { specifier: url("lib.d.ts") },
        },
        code("data.json"),
        code("../outside.ts"),
        { specifier: "hono", code: { specifier: "npm:hono@4.13.19" } },
        { specifier: "node:fs", code: { specifier: "node:fs" } },
        { specifier: "https://example.com/x.ts", code: { specifier: "https://example.com/x.ts" } },
      ],
    },
    {
      specifier: url("lib.js"),
      kind: "esm",
      typesDependency: { dependency: { specifier: url("lib.d.ts") } },
    },
    ...["kv/db.ts", "t.ts", "both.ts", "lib.d.ts", "../outside.ts"].map((path) => ({
      specifier: url(path),
      kind: "esm",
    })),
    { specifier: url("data.json"), kind: "asserted" },
    // Not in the file list (say under static/build/): its imports are no edges.
    { specifier: url("static/build/x.ts"), kind: "esm", dependencies: [code("main.ts")] },
    {
      specifier: "npm:hono@4.13.19",
      error: "npm specifiers were requested; but --no-npm is specified",
    },
    { specifier: "node:fs", kind: "node" },
    { specifier: "https://example.com/x.ts", error: "remote modules are not allowed" },
  ];
  const graph = graphFromModules(root, ["main.ts", "lib.js", "kv/db.ts"], modules);
  assert.deepEqual(graph.files, ["kv/db.ts", "lib.js", "main.ts"]);
  assert.deepEqual(edgesOf(graph), [
    "lib.js → lib.d.ts (type)",
    "main.ts → ../outside.ts",
    "main.ts → both.ts",
    "main.ts → kv/db.ts",
    "main.ts → lib.d.ts (type)",
    "main.ts → lib.js",
    "main.ts → t.ts (type)",
  ]);
});

Deno.test("the root modules import every file once, in URLs short enough for a command line", () => {
  const root = pathToFileURL("/repo/");
  const files = Array.from({ length: 300 }, (_, i) => `kv/tree/module_${i}.ts`);
  const decode = (url: string) => atob(url.slice(url.indexOf(",") + 1));
  const urls = rootModules(root, [...files, "ui/with space #1.ts"], 2_000);
  assert.ok(urls.length > 1);
  assert.ok(
    urls.every((url) => url.length <= 2_000 && url.startsWith("data:application/typescript")),
  );
  const imported = urls.flatMap((url) => decode(url).trim().split("\n"));
  assert.deepEqual(imported, [
    ...files.map((file) => `import "${new URL(file, root).href}";`),
    `import "${new URL("ui/with%20space%20%231.ts", root).href}";`,
  ]);
  assert.equal(rootModules(root, files).length, 1);
});
