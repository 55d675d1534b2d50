/**
 * A self-contained, browsable page for openapi.json: no CDN, no external fonts, so it works on
 * an offline host. It renders operations grouped by tag with their parameters, request bodies,
 * responses and error codes.
 */
export const API_DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Drive external API v1</title>
<style>
  :root { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24; }
  body { margin: 0; background: #f6f7f9; }
  header { background: #1f3a5f; color: #fff; padding: 16px 24px; }
  header h1 { margin: 0; font-size: 20px; }
  main { max-width: 1100px; margin: 0 auto; padding: 16px; }
  h2 { margin-top: 32px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
  details { background: #fff; border: 1px solid #d0d7de; border-radius: 6px; margin: 8px 0; }
  summary { cursor: pointer; padding: 10px 12px; display: flex; gap: 12px; align-items: baseline; }
  summary:focus-visible { outline: 3px solid #0969da; }
  .m { font-weight: 700; font-family: ui-monospace, monospace; min-width: 64px; text-transform: uppercase; }
  .get { color: #0969da; } .post { color: #1a7f37; } .patch { color: #9a6700; } .put { color: #8250df; } .delete { color: #cf222e; }
  .p { font-family: ui-monospace, monospace; word-break: break-all; }
  .body { padding: 0 16px 12px; }
  table { border-collapse: collapse; width: 100%; margin: 8px 0; font-size: 14px; }
  th, td { text-align: left; border-bottom: 1px solid #eaeef2; padding: 4px 6px; vertical-align: top; }
  pre { background: #f6f8fa; padding: 8px; overflow: auto; font-size: 13px; }
</style>
</head>
<body>
<header><h1>Drive external API v1</h1><div>Machine-readable: <a style="color:#fff" href="openapi.json">openapi.json</a></div></header>
<main id="root">Loading…</main>
<script>
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
function resolve(doc, schema) {
  if (schema && schema.$ref) return doc.components.schemas[schema.$ref.split("/").pop()];
  return schema;
}
function example(doc, schema, depth = 0) {
  schema = resolve(doc, schema);
  if (!schema || depth > 6) return null;
  if (schema.example !== undefined) return schema.example;
  if (schema.anyOf) return example(doc, schema.anyOf[0], depth + 1);
  if (schema.type === "object" || schema.properties) {
    const out = {};
    for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = example(doc, v, depth + 1);
    return out;
  }
  if (schema.type === "array") return [example(doc, schema.items, depth + 1)];
  if (schema.enum) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  return { string: "string", integer: 0, number: 0, boolean: true, null: null }[Array.isArray(schema.type) ? schema.type[0] : schema.type] ?? null;
}
function render(doc) {
  const byTag = {};
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = (op.tags ?? ["Other"])[0];
      (byTag[tag] ??= []).push({ path, method, op });
    }
  }
  let html = "";
  for (const tag of Object.keys(byTag).sort()) {
    html += "<h2>" + esc(tag) + "</h2>";
    for (const { path, method, op } of byTag[tag]) {
      html += '<details><summary><span class="m ' + method + '">' + method + '</span><span class="p">' + esc(path) + "</span><span>" + esc(op.summary) + "</span></summary><div class=body>";
      if (op.description) html += "<p>" + esc(op.description) + "</p>";
      const params = op.parameters ?? [];
      if (params.length) {
        html += "<table><tr><th>Parameter</th><th>In</th><th>Required</th><th>Description</th></tr>";
        for (const p of params) html += "<tr><td><code>" + esc(p.name) + "</code></td><td>" + esc(p.in) + "</td><td>" + (p.required ? "yes" : "no") + "</td><td>" + esc(p.description ?? p.schema?.description ?? "") + "</td></tr>";
        html += "</table>";
      }
      const body = op.requestBody?.content;
      if (body) {
        for (const [type, media] of Object.entries(body)) {
          html += "<p>Request body <code>" + esc(type) + "</code></p><pre>" + esc(JSON.stringify(example(doc, media.schema), null, 2)) + "</pre>";
        }
      }
      html += "<table><tr><th>Status</th><th>Meaning</th></tr>";
      for (const [status, res] of Object.entries(op.responses ?? {})) html += "<tr><td>" + esc(status) + "</td><td>" + esc(res.description) + "</td></tr>";
      html += "</table></div></details>";
    }
  }
  document.getElementById("root").innerHTML = html;
}
fetch("openapi.json").then((r) => r.json()).then(render).catch((e) => {
  document.getElementById("root").textContent = "Could not load openapi.json: " + e;
});
</script>
</body>
</html>`;
