import assert from "node:assert/strict";
import { renderErrorCatalog } from "../../scripts/gen_error_docs.ts";
import { ERROR_CATALOG } from "../../kv/errors.ts";

Deno.test("docs/errors.md is generated from the current error catalog (run `deno task docs`)", async () => {
  const committed = await Deno.readTextFile(new URL("../../docs/errors.md", import.meta.url));
  assert.equal(committed, renderErrorCatalog());
});

Deno.test("every error code has the <AREA>_<NNN> form and a 4xx/5xx status", () => {
  for (const [code, { status }] of Object.entries(ERROR_CATALOG)) {
    assert.match(code, /^[A-Z][A-Z_]*_\d{3}$/, code);
    assert.ok(status >= 400 && status < 600, `${code} has status ${status}`);
  }
});

Deno.test("every error code the code base throws is in the catalog", async () => {
  const thrown = new Set<string>();
  for (const dir of ["api", "kv", "provider", "lib", "blobs"]) {
    for await (const path of walk(new URL(`../../${dir}/`, import.meta.url))) {
      const text = await Deno.readTextFile(path);
      for (const m of text.matchAll(/fail\(\s*"([A-Z_]+_\d{3})"/g)) thrown.add(m[1]);
      for (const m of text.matchAll(/new DriveError\(\s*"([A-Z_]+_\d{3})"/g)) thrown.add(m[1]);
    }
  }
  assert.ok(thrown.size > 10, "the scan found the throw sites");
  for (const code of thrown) {
    assert.ok(code in ERROR_CATALOG, `${code} is thrown but not catalogued`);
  }
});

async function* walk(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* walk(url);
    else if (entry.name.endsWith(".ts")) yield url;
  }
}
