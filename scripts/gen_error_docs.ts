/**
 * Writes docs/errors.md from the error catalog (kv/errors.ts). Run `deno task docs`;
 * tests/runtime/docs_test.ts fails when the committed file is stale.
 */
import { ERROR_CATALOG } from "../kv/errors.ts";

export function renderErrorCatalog(): string {
  const lines = [
    "# Error codes",
    "",
    "Generated from `kv/errors.ts` by `deno task docs`; do not edit by hand.",
    "",
    "The external API answers failures as",
    '`{"result": false, "code": <status>, "message": "...", "errorCode": "<CODE>", "data": null}`;',
    'the admin API as `{"error": "<CODE>", "message": "...", "field"?: "..."}`. The storage provider',
    "protocol answers plain text with the statuses of its own spec, and the editor-session endpoints",
    "answer plain text on lock, unlock and permission failures (see api.md).",
    "",
    "| Code | HTTP status | Meaning |",
    "|---|---|---|",
  ];
  for (const [code, { status, meaning }] of Object.entries(ERROR_CATALOG)) {
    lines.push(
      `| ${code} | ${status} | ${meaning.replaceAll("\\", "\\\\").replaceAll("|", "\\|")} |`,
    );
  }
  return lines.join("\n") + "\n";
}

if (import.meta.main) {
  const target = new URL("../docs/errors.md", import.meta.url);
  await Deno.writeTextFile(target, renderErrorCatalog());
  console.log(`wrote ${target.pathname}`);
}
