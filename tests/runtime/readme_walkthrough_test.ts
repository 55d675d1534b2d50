/**
 * The README's walkthrough, as a newcomer pastes it: the sh block between
 * `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->`, run by bash with `set -e` in an
 * empty directory against a started server. Only the two placeholder lines change: `BASE=` gets
 * the server's URL and `ADMIN=` the token a first start would have printed. Any failing step
 * (curl -f on a 4xx, cmp on different bytes) fails the test with what bash printed.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { ADMIN_TOKEN } from "../helpers/admin.ts";

const README = new URL("../../README.md", import.meta.url);

/** The shell lines of the marked block. */
export async function walkthroughScript(): Promise<string> {
  const text = await Deno.readTextFile(README);
  const marked = /<!-- walkthrough:start -->([\s\S]*?)<!-- walkthrough:end -->/.exec(text);
  assert.ok(marked, "README.md has no <!-- walkthrough:start --> ... end block");
  const fenced = /```sh\n([\s\S]*?)```/.exec(marked[1]);
  assert.ok(fenced, "the walkthrough block holds no ```sh fence");
  return fenced[1];
}

function withPlaceholders(script: string, base: string, admin: string): string {
  let replaced = 0;
  const out = script.replace(/^(BASE|ADMIN)=.*$/gm, (_, name: string) => {
    replaced++;
    return `${name}=${name === "BASE" ? base : admin}`;
  });
  assert.equal(replaced, 2, "the block must set BASE= and ADMIN= on lines of their own");
  return out;
}

async function runBash(script: string, cwd: string) {
  const { code, stdout, stderr } = await new Deno.Command("bash", {
    args: ["-e", "-o", "pipefail", "-c", script],
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code, out: dec.decode(stdout), err: dec.decode(stderr) };
}

Deno.test("README walkthrough: every pasted line succeeds against a started server", async () => {
  const script = await walkthroughScript();
  await withServer(async (server) => {
    const dir = await Deno.makeTempDir({ prefix: "drive-readme-" });
    try {
      const { code, out, err } = await runBash(
        withPlaceholders(script, server.url, ADMIN_TOKEN),
        dir,
      );
      assert.equal(code, 0, `walkthrough failed:\n${out}\n${err}`);
      assert.match(out, /downloaded file \d+: same bytes/);
      // The listing at the end shows the uploaded file in the folder.
      assert.match(out, /"name":"report\.txt"/);
      assert.equal(await Deno.readTextFile(`${dir}/copy.txt`), "Quarterly report\n");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});

Deno.test("README walkthrough: a placeholder admin token stops at the first admin call, naming the 401", async () => {
  const script = await walkthroughScript();
  await withServer(async (server) => {
    const dir = await Deno.makeTempDir({ prefix: "drive-readme-" });
    try {
      const { code, err } = await runBash(withPlaceholders(script, server.url, "adm_..."), dir);
      assert.notEqual(code, 0);
      assert.match(err, /401/);
      // Stopped before anything was created.
      const { body } = await server.admin.call("GET", "/tenants");
      assert.deepEqual(Array.isArray(body) ? body : body.items, []);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
});
