/**
 * Redocly CLI lints every OpenAPI document the service serves (api/http/docs_page.ts, fetched
 * from a running server) with the repository's redocly.yaml: 0 errors and 0 warnings. redocly.yaml turns
 * `no-ambiguous-paths` off, because the rule compares path shapes only; `collidingPaths` below
 * makes the same check with the path parameters' schemas, so two paths one URL can really reach
 * both still fail.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { API_DOCUMENTS } from "../../api/http/docs_page.ts";
import { type Json, npmTool, REDOCLY, writeDocuments } from "./openapi_tools.ts";

const CONFIG = new URL("../../redocly.yaml", import.meta.url).pathname;

Deno.test("Redocly lints every served OpenAPI document with 0 errors and 0 warnings", async () => {
  const dir = await Deno.makeTempDir({ prefix: "redocly-" });
  try {
    const docs = await withServer((server) => writeDocuments(server.url, dir));
    assert.equal(docs.length, API_DOCUMENTS.length);
    // The sign-in document's operations are browser navigations: a redirect is their success,
    // and the callback redirects its refusals too (to /signin?error=<code>), so the rules that
    // every operation has a 2XX and a 4XX answer do not apply to it. Every other rule does.
    const navigation = `${dir}/redocly-navigation.yaml`;
    await Deno.writeTextFile(
      navigation,
      (await Deno.readTextFile(CONFIG)) +
        "  operation-2xx-response: off\n  operation-4xx-response: off\n",
    );
    for (const { slug, file } of docs) {
      const config = slug === "auth" ? navigation : CONFIG;
      const args = ["lint", `--config=${config}`, "--format=json", file];
      const run = await npmTool(REDOCLY, args, dir).output();
      const stdout = new TextDecoder().decode(run.stdout);
      const stderr = new TextDecoder().decode(run.stderr);
      let report: { totals: { errors: number; warnings: number }; problems: Json[] };
      try {
        report = JSON.parse(stdout);
      } catch {
        throw new Error(`redocly gave no report for ${slug} (exit ${run.code}): ${stderr}`);
      }
      const problems = report.problems.map((p: Json) =>
        `${p.severity} ${p.ruleId} at ${p.location?.[0]?.pointer}: ${p.message}`
      );
      assert.deepEqual(problems, [], `${slug}.json:\n${problems.join("\n")}`);
      assert.deepEqual([report.totals.errors, report.totals.warnings], [0, 0], slug);
      assert.equal(run.code, 0, stderr);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Whether a path parameter's schema admits `segment` (a literal of another path). */
function admits(schema: Json, segment: string): boolean {
  if (schema?.type === "integer" || schema?.type === "number") {
    return /^-?\d+(\.\d+)?$/.test(segment);
  }
  if (Array.isArray(schema?.enum)) return schema.enum.map(String).includes(segment);
  if (typeof schema?.pattern === "string" && !new RegExp(schema.pattern, "u").test(segment)) {
    return false;
  }
  if (typeof schema?.maxLength === "number" && segment.length > schema.maxLength) return false;
  return !(typeof schema?.minLength === "number" && segment.length < schema.minLength);
}

/** The schema of path parameter `name` of `path`, from any of its operations. */
function pathParameter(doc: Json, path: string, name: string): Json {
  const item = doc.paths[path];
  const all = [...(item.parameters ?? [])];
  for (const op of Object.values<Json>(item)) all.push(...(op?.parameters ?? []));
  return all.find((p) => p?.in === "path" && p.name === name)?.schema;
}

/**
 * Pairs of paths of `doc` that one URL matches both of: same segment count, and at each segment
 * equal literals, two parameters, or a parameter whose schema admits the other's literal.
 */
export function collidingPaths(doc: Json): string[] {
  const paths = Object.keys(doc.paths ?? {});
  const out: string[] = [];
  const param = (segment: string) => /^\{(.+)\}$/.exec(segment)?.[1];
  for (const [i, a] of paths.entries()) {
    for (const b of paths.slice(i + 1)) {
      const sa = a.split("/");
      const sb = b.split("/");
      if (sa.length !== sb.length) continue;
      const meet = sa.every((x, k) => {
        const [pa, pb] = [param(x), param(sb[k])];
        if (pa && pb) return true;
        if (pa) return admits(pathParameter(doc, a, pa), sb[k]);
        if (pb) return admits(pathParameter(doc, b, pb), x);
        return x === sb[k];
      });
      if (meet) out.push(`${a} and ${b}`);
    }
  }
  return out;
}

Deno.test("no two paths of a served document can match the same URL", async () => {
  const dir = await Deno.makeTempDir({ prefix: "paths-" });
  try {
    const docs = await withServer((server) => writeDocuments(server.url, dir));
    for (const { slug, doc } of docs) assert.deepEqual(collidingPaths(doc), [], slug);
    // The pairs redocly.yaml's rule would report are there, and told apart by their types.
    const external = docs.find((d) => d.slug === "external")!.doc;
    assert.ok(external.paths["/shares/link/{token}"] && external.paths["/shares/{shareSeq}/users"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("collidingPaths finds paths a URL reaches both of, and only those", () => {
  const op = (name: string, schema: Json) => ({
    get: { parameters: [{ in: "path", name, schema }] },
  });
  const doc = (schema: Json) => ({
    paths: {
      "/shares/link/{token}": op("token", { type: "string" }),
      "/shares/{shareSeq}/users": op("shareSeq", schema),
      "/shares/users/search": {},
    },
  });
  // A string {shareSeq} admits "link": GET /shares/link/users reaches both.
  assert.deepEqual(collidingPaths(doc({ type: "string" })), [
    "/shares/link/{token} and /shares/{shareSeq}/users",
  ]);
  assert.deepEqual(collidingPaths(doc({ type: "string", pattern: "^[a-z]+$" })).length, 1);
  // An integer, or a pattern "link" does not match, keeps them apart.
  assert.deepEqual(collidingPaths(doc({ type: "integer" })), []);
  assert.deepEqual(collidingPaths(doc({ type: "string", pattern: "^[0-9]+$" })), []);
});
