/**
 * litmus 0.13 (http://www.webdav.org/neon/litmus/), the WebDAV conformance suite, against the
 * real server (main.ts as a process) on each blob store: every suite must run with 0 failures.
 * Its warnings are printed, and listed with reasons in docs/webdav.md. Without litmus the test is
 * skipped with a message, except in CI (CI=true), where it fails: .ci/run installs it.
 */
import assert from "node:assert/strict";
import { type BlobStoreName, withDavServer } from "./helpers.ts";

/** All five suites of litmus 0.13. */
export const LITMUS_SUITES = ["basic", "copymove", "props", "locks", "http"] as const;

async function litmusPath(): Promise<string | null> {
  for (const p of ["/usr/bin/litmus", "/usr/local/bin/litmus"]) {
    if (await Deno.stat(p).then(() => true, () => false)) return p;
  }
  return null;
}

export interface SuiteResult {
  suite: string;
  run: number;
  passed: number;
  failed: number;
  warnings: string[];
  output: string;
}

/** litmus's summary line: "<- summary for `basic': of 16 tests run: 16 passed, 0 failed. 100.0%" */
const SUMMARY = /summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed/;

export function parseLitmus(suite: string, output: string): SuiteResult {
  const m = SUMMARY.exec(output);
  if (!m || m[1] !== suite) throw new Error(`no litmus summary for ${suite}:\n${output}`);
  const warnings = output.split("\n").filter((l) => l.includes("WARNING:")).map((l) =>
    l.replace(/^.*WARNING:\s*/, "").trim()
  );
  return { suite, run: +m[2], passed: +m[3], failed: +m[4], warnings, output };
}

export async function runLitmus(
  litmus: string,
  suite: string,
  url: string,
  user: string,
  pass: string,
): Promise<SuiteResult> {
  // litmus writes debug.log into its working directory.
  const cwd = await Deno.makeTempDir({ prefix: "litmus-" });
  try {
    const out = await new Deno.Command(litmus, {
      args: ["-k", url, user, pass],
      env: { TESTS: suite },
      cwd,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return parseLitmus(suite, text);
  } finally {
    await Deno.remove(cwd, { recursive: true }).catch(() => {});
  }
}

Deno.test("parseLitmus reads the summary and the warnings", () => {
  const r = parseLitmus(
    "basic",
    " 9. delete_fragment....... WARNING: DELETE removed collection resource\n" +
      "<- summary for `basic': of 16 tests run: 15 passed, 1 failed. 93.8%\n",
  );
  assert.deepEqual([r.run, r.passed, r.failed, r.warnings], [16, 15, 1, [
    "DELETE removed collection resource",
  ]]);
  assert.throws(() =>
    parseLitmus("props", "<- summary for `basic': of 1 tests run: 1 passed, 0 failed")
  );
});

const litmus = await litmusPath();
const inCi = Deno.env.get("CI") === "true";
if (!litmus && !inCi) {
  console.log("litmus is not installed (apt-get install litmus): the litmus tests are skipped");
}

for (const store of ["fs", "kv"] as BlobStoreName[]) {
  Deno.test({
    name: `litmus ${LITMUS_SUITES.join(" ")}: 0 failures [${store} blobs]`,
    ignore: !litmus && !inCi,
    async fn() {
      assert.ok(litmus, "litmus is not installed; CI must have it (.ci/run installs it)");
      await withDavServer(store, async (server) => {
        // Bearer-less Basic sign-in with the account id and an API key, as a user mounts it.
        const user = await server.newUser("litmus");
        const failures: string[] = [];
        for (const suite of LITMUS_SUITES) {
          const r = await runLitmus(litmus!, suite, user.driveUrl, user.accountId, user.key);
          console.log(
            `litmus ${suite} [${store}]: ${r.passed}/${r.run} passed, ${r.failed} failed` +
              (r.warnings.length ? `; warnings: ${r.warnings.join(" | ")}` : ""),
          );
          if (r.failed > 0 || r.passed !== r.run) {
            failures.push(
              `${suite}:\n${r.output.split("\n").filter((l) => /FAIL/.test(l)).join("\n")}`,
            );
          }
        }
        assert.deepEqual(failures, [], failures.join("\n"));
      });
    },
  });
}
