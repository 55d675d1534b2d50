/**
 * Test-only packages stay out of the runtime graph. deno.json's import map is what every process
 * started from this checkout installs on a cold start, so it holds only what the server (main.ts,
 * which also dispatches the admin CLI) imports, plus the console's source packages, which
 * type-checking and `deno task build` need. A package only tests use is imported by its full
 * `npm:` specifier from one module under tests/ (tests/browser/playwright.ts,
 * tests/fuzz/fast_check.ts), and the compiled binary embeds only what main.ts reaches
 * (`--exclude-unused-npm`, scripts/compile.ts).
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** Packages only tests import (by full npm: specifier); none may reach the server. */
const TEST_ONLY = [
  "playwright-core",
  "fast-check",
  "tus-js-client",
  "openapi-typescript",
  "axe-core",
];

/** Import-map packages main.ts does not reach, each with why it is in the map. */
const NOT_RUNTIME: Record<string, string> = {
  "preact": "the console's source (ui/), bundled into static/build/ by deno task build",
  "@preact/signals": "the console's source (ui/), bundled into static/build/ by deno task build",
  "tus-js-client": "the app's and the share page's uploads (ui/), bundled into static/build/",
};

/** `npm:hono@4.13.19`, `npm:/@hono/zod-openapi@1.6.3/x` → `hono`, `@hono/zod-openapi`. */
function packageName(specifier: string): string {
  const name = /^(@[^/@]+\/[^/@]+|[^/@]+)/.exec(specifier.replace(/^npm:\/?/, ""));
  if (!name) throw new Error(`not an npm specifier: ${specifier}`);
  return name[1];
}

async function runtimePackages(): Promise<Set<string>> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  const info = JSON.parse(new TextDecoder().decode(stdout)) as {
    modules: { specifier: string }[];
  };
  return new Set(
    info.modules.map((m) => m.specifier).filter((s) => s.startsWith("npm:")).map(packageName),
  );
}

async function importMapPackages(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const targets = Object.values(config.imports as Record<string, string>);
  return [...new Set(targets.filter((t) => t.startsWith("npm:")).map(packageName))];
}

Deno.test("packageName reads plain, scoped and sub-path npm specifiers", () => {
  const cases: [specifier: string, name: string][] = [
    ["npm:hono@4.13.19", "hono"],
    ["npm:/hono@4.13.19/body-limit", "hono"],
    ["npm:@hono/zod-openapi@1.6.3", "@hono/zod-openapi"],
    ["npm:/@preact/signals@2.11.4/", "@preact/signals"],
    ["npm:/ipaddr.js@2.5.0", "ipaddr.js"],
  ];
  for (const [specifier, name] of cases) assert.equal(packageName(specifier), name, specifier);
});

Deno.test("every npm package of deno.json's import map is imported by main.ts or listed with its reason", async () => {
  const runtime = await runtimePackages();
  const stray = (await importMapPackages()).filter((p) => !runtime.has(p) && !(p in NOT_RUNTIME));
  assert.deepEqual(
    stray,
    [],
    "used only outside the server: import it by its full npm: specifier from tests/ instead",
  );
});

Deno.test("main.ts reaches no test-only package", async () => {
  const runtime = await runtimePackages();
  for (const testOnly of TEST_ONLY) {
    assert.equal(runtime.has(testOnly), false, testOnly);
  }
  // The graph is real: the server's own packages are in it.
  for (const used of ["hono", "zod", "@hono/zod-openapi"]) assert.ok(runtime.has(used), used);
});

/** The npm packages a lockfile pins, by name. */
async function lockedPackages(file: string): Promise<Set<string>> {
  const lock = JSON.parse(await Deno.readTextFile(new URL(file, ROOT))) as {
    npm?: Record<string, unknown>;
  };
  return new Set(Object.keys(lock.npm ?? {}).map((k) => packageName(`npm:${k}`)));
}

Deno.test("deno.runtime.lock pins exactly the server's packages and no test-only one", async () => {
  // The server runs with --lock=deno.runtime.lock --frozen (deno.json's start, dev and admin
  // tasks): `deno run` installs every package of the lockfile it is given, so with deno.lock a
  // first `deno run main.ts` downloaded playwright-core. Not reached by this: the task runner
  // of Deno 2.9 itself installs all of deno.lock before it runs any task (docs/deploy.md).
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--lock=deno.runtime.lock", "--frozen", "main.ts"],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.equal(
    code,
    0,
    "deno.runtime.lock is out of date (run `deno task lock:runtime`): " +
      new TextDecoder().decode(stderr),
  );
  const locked = await lockedPackages("deno.runtime.lock");
  for (const testOnly of TEST_ONLY) assert.equal(locked.has(testOnly), false, testOnly);
  for (const used of await runtimePackages()) assert.ok(locked.has(used), used);
  const tasks = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))).tasks;
  for (const task of ["start", "start:small", "dev", "admin"]) {
    assert.match(tasks[task], /--lock=deno\.runtime\.lock --frozen/, task);
  }
});
