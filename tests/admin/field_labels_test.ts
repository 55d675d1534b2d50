/**
 * The console names every field of an admin request body in words (issue 21, bug 13a): an API
 * message "url: must be ..." shows as "Receiver URL: must be ...", as the webhook form labels
 * the field, never as "Url:".
 */
import assert from "node:assert/strict";
import { humanizeMessage } from "../../ui/shared/form.ts";
import { withServer } from "../helpers/server.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

Deno.test("the webhook URL error names the field as the console labels it", () => {
  assert.equal(
    humanizeMessage("url: must be an absolute http or https URL"),
    "Receiver URL: must be an absolute http or https URL",
  );
});

Deno.test("every field of an admin request body has a label in the console", async () => {
  await withServer(async (server) => {
    const doc = await (await fetch(`${server.url}/admin/api/openapi.json`)).json();
    const fields = new Set<string>();
    const collect = (schema: Json) => {
      const s = schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
      for (const name of Object.keys(s?.properties ?? {})) fields.add(name);
    };
    for (const item of Object.values(doc.paths) as Json[]) {
      for (const op of Object.values(item) as Json[]) {
        collect(op?.requestBody?.content?.["application/json"]?.schema);
      }
    }
    assert.ok(fields.has("url") && fields.has("quotaBytes"), [...fields].join());
    // A labelled field's nested path reads "Label › sub"; an unknown one stays "field.sub".
    const raw = [...fields].filter((f) => !humanizeMessage(`${f}.sub: bad`).includes(" › "));
    assert.deepEqual(raw, [], `shown by their API name: ${raw.join(", ")}`);
  });
});
