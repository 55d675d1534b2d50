/**
 * docs/deploy.md's `/etc/drive/env`, read the way systemd's EnvironmentFile reads it, starts the
 * service. It once put `# comments` after values, which systemd keeps as part of the value.
 */
import assert from "node:assert/strict";
import { startMain } from "../helpers/process.ts";

/**
 * systemd's EnvironmentFile rules (systemd.exec(5)): blank lines and lines starting with `#` or
 * `;` are skipped; `KEY=VALUE`, whitespace around the key and before the value dropped; a value
 * in single or double quotes is taken as quoted (backslash escapes inside double quotes);
 * otherwise the rest of the line is the value, trailing whitespace removed, `#` included; a
 * backslash at the end of a line joins the next one.
 */
function parseEnvironmentFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  const lines = text.replace(/\\\n/g, "").split("\n");
  for (const raw of lines) {
    const line = raw.trimStart();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const eq = line.indexOf("=");
    if (eq < 0) throw new Error(`not KEY=VALUE: ${raw}`);
    const key = line.slice(0, eq).trim();
    const rest = line.slice(eq + 1).trimStart();
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      const m = quote === '"' ? /^"((?:[^"\\]|\\.)*)"\s*$/.exec(rest) : /^'([^']*)'\s*$/.exec(rest);
      if (!m) throw new Error(`unterminated or trailing text after quotes: ${raw}`);
      env[key] = quote === '"' ? m[1].replace(/\\(.)/g, "$1") : m[1];
    } else {
      env[key] = rest.trimEnd();
    }
  }
  return env;
}

/** The code block after the line that introduces `/etc/drive/env` in docs/deploy.md. */
async function documentedEnvFile(): Promise<string> {
  const doc = await Deno.readTextFile(new URL("../../docs/deploy.md", import.meta.url));
  const intro = doc.indexOf("`/etc/drive/env` (environment file");
  assert.ok(intro >= 0, "docs/deploy.md no longer introduces /etc/drive/env");
  const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(intro));
  assert.ok(block, "no code block after the /etc/drive/env introduction");
  return block[1];
}

Deno.test("the parser reads an EnvironmentFile as systemd does", () => {
  const env = parseEnvironmentFile(
    '# c\n; c\n\n  A = 1  \nB=x # not a comment\nC="q \\" s"\nD=\'s # q\'\nE=a\\\nb\n',
  );
  assert.deepEqual(env, { A: "1", B: "x # not a comment", C: 'q " s', D: "s # q", E: "ab" });
});

Deno.test("docs/deploy.md's /etc/drive/env, read as systemd reads it, starts the service", async () => {
  const env = parseEnvironmentFile(await documentedEnvFile());
  for (const [name, value] of Object.entries(env)) {
    assert.doesNotMatch(value, /#/, `${name}: systemd keeps "${value}" whole`);
  }
  const dir = await Deno.makeTempDir({ prefix: "drive-deploy-env-" });
  try {
    // The placeholders and the machine's paths and port, filled in for a test run.
    assert.equal(env.DRIVE_SECRETS_KEY, "...");
    const main = await startMain({
      ...env,
      DRIVE_SECRETS_KEY: btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32)))),
      DRIVE_DATA_DIR: dir,
      PORT: "0",
    });
    const res = await fetch(`${main.url}/healthz`);
    assert.deepEqual(await res.json(), { status: "ok" });
    assert.equal((await main.stop()).code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
