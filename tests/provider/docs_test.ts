/**
 * docs/provider.md's operation table against the provider's code: each refusal with 409 that an
 * operation makes is in its row (the delete row once left out the non-empty directory, issue 21).
 * The behaviour itself is tested over HTTP in drive_test.ts.
 */
import assert from "node:assert/strict";

const doc = await Deno.readTextFile(new URL("../../docs/provider.md", import.meta.url));
const code = await Deno.readTextFile(new URL("../../provider/operations.ts", import.meta.url));

function row(operation: string): string {
  const line = doc.split("\n").find((l) => new RegExp(`^\\| ${operation} +\\|`).test(l));
  assert.ok(line, `docs/provider.md has no row for ${operation}`);
  return line;
}

Deno.test("docs/provider.md: the delete row says a non-empty directory is refused with 409, as the code does", () => {
  assert.match(code, /new ProviderError\(409, "The directory is not empty"\)/);
  assert.match(row("delete"), /non-empty directory is 409/);
});

Deno.test("docs/provider.md: the mkdir and rename rows say a taken name is 409", () => {
  assert.match(row("mkdir"), /existing name is 409/);
  assert.match(row("rename"), /taken name is 409/);
});
