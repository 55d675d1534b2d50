/**
 * The OpenAPI tools the document tests run, as npm packages through Deno: Redocly CLI (lint,
 * tests/runtime/redocly_lint_test.ts) and Prism (a validating proxy,
 * tests/runtime/prism_replay_test.ts). Both are pinned here and in openapi_tools.lock (their whole
 * dependency tree, used frozen), outside deno.json: test-only packages stay out of the service's
 * import map and lock (tests/runtime/runtime_graph_test.ts). After a version change, regenerate
 * the lock: `rm tests/runtime/openapi_tools.lock && deno cache --no-config
 * --lock=tests/runtime/openapi_tools.lock npm:@redocly/cli@<v> npm:@stoplight/prism-cli@<v>`.
 */
import { API_DOCUMENTS } from "../../api/http/docs_page.ts";

export const REDOCLY = "npm:@redocly/cli@2.77.0";
export const PRISM = "npm:@stoplight/prism-cli@5.16.0";
const LOCK = new URL("./openapi_tools.lock", import.meta.url).pathname;

// deno-lint-ignore no-explicit-any
export type Json = any;

/** One served OpenAPI document, as written to disk. */
export interface WrittenDocument {
  slug: string;
  file: string;
  doc: Json;
  /** Where its paths are mounted (its `servers[0].url`), e.g. "/public/v1". */
  base: string;
}

/** Fetches every document the service serves (GET over HTTP) into `dir` as `<slug>.json`. */
export async function writeDocuments(url: string, dir: string): Promise<WrittenDocument[]> {
  const out: WrittenDocument[] = [];
  for (const { slug, url: path } of API_DOCUMENTS) {
    const res = await fetch(`${url}${path}`);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    const doc = await res.json();
    const file = `${dir}/${slug}.json`;
    await Deno.writeTextFile(file, JSON.stringify(doc, null, 2));
    out.push({ slug, file, doc, base: doc.servers[0].url });
  }
  return out;
}

/**
 * `deno run` of a pinned npm tool, run in `cwd` (a temp dir: Prism needs a node_modules folder,
 * which Deno creates there; without it a CommonJS `require("fp-ts/Either")` is not found). No
 * telemetry, no update check.
 */
export function npmTool(spec: string, args: string[], cwd: string): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-config",
      `--lock=${LOCK}`,
      "--frozen",
      "--node-modules-dir=auto",
      spec,
      ...args,
    ],
    cwd,
    env: { NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}
