/**
 * Fuzzing what anyone can reach without a key: the share-link API (/public/v1/links/...), the
 * share page and console shells (/s/{token}, /admin/{page}), the static files (/static/...) and
 * the API documentation. Tokens, access tokens, resource seqs, asset names and passwords are
 * valid-looking or hostile. No answer may be a 5xx, carry a stack trace or internal path, or
 * come late; the link API's errors carry an error code; the server answers /healthz afterwards.
 */
import fc from "./fast_check.ts";
import { withServer } from "../helpers/server.ts";
import { assertAlive, checkAnswer, fuzz, runsFor, send } from "./harness.ts";
import { type Operation, type Param, requestArb, toRequest } from "./requests.ts";
import type { JsonSchema, SchemaContext } from "./schema.ts";
import { knownValues, makeWorld } from "./world.ts";

const TOKEN: Param = { name: "token", in: "path", required: true, schema: { type: "string" } };
const ACCESS: Param[] = [
  { name: "access", in: "query", required: false, schema: { type: "string" } },
  { name: "x-link-access", in: "header", required: false, schema: { type: "string" } },
];
const SEQ: JsonSchema = { type: "integer", exclusiveMinimum: 0 };

const PUBLIC_OPERATIONS: { op: Operation; errorCode: boolean }[] = [
  {
    op: { method: "GET", path: "/public/v1/links/{token}", params: [TOKEN, ...ACCESS], body: null },
    errorCode: true,
  },
  {
    op: {
      method: "POST",
      path: "/public/v1/links/{token}/access",
      params: [TOKEN],
      body: {
        kind: "json",
        schema: {
          type: "object",
          properties: { password: { type: "string", maxLength: 128 } },
          required: ["password"],
        },
      },
    },
    errorCode: true,
  },
  {
    op: {
      method: "GET",
      path: "/public/v1/links/{token}/items",
      params: [
        TOKEN,
        ...ACCESS,
        { name: "folderSeq", in: "query", required: false, schema: SEQ },
        { name: "cursor", in: "query", required: false, schema: { type: "string" } },
      ],
      body: null,
    },
    errorCode: true,
  },
  {
    op: {
      method: "GET",
      path: "/public/v1/links/{token}/files/{rs}/download",
      params: [TOKEN, { name: "rs", in: "path", required: true, schema: SEQ }, ...ACCESS],
      body: null,
    },
    errorCode: true,
  },
  {
    op: { method: "GET", path: "/s/{token}", params: [TOKEN], body: null },
    errorCode: false,
  },
  {
    op: {
      method: "GET",
      path: "/admin/{page}",
      params: [{ name: "page", in: "path", required: true, schema: { type: "string" } }],
      body: null,
    },
    errorCode: false,
  },
  {
    op: {
      method: "GET",
      path: "/static/{asset}",
      params: [{ name: "asset", in: "path", required: true, schema: { type: "string" } }],
      body: null,
    },
    errorCode: false,
  },
  {
    // Any path at all: the app's one notFound and the routes no table above names.
    op: {
      method: "GET",
      path: "/{any}",
      params: [{ name: "any", in: "path", required: true, schema: { type: "string" } }],
      body: null,
    },
    errorCode: false,
  },
];

/** Paths sent unencoded: their slashes and dots are the point. */
const RAW_PATHS = new Set(["/static/{asset}", "/{any}"]);

/** Names under static/ and tricks to leave it. */
const ASSETS = [
  "build/manifest.json",
  "build/admin.js",
  "build/styles.css",
  "build/app.js",
  "templates/en-US/blank.docx",
  "templates/ko-KR/blank.txt",
  "../deno.json",
  "..%2fdeno.json",
  "%2e%2e/deno.json",
  "build/../../main.ts",
  "build/",
  "build",
  "/etc/passwd",
  "build/manifest.json%00.png",
  "x".repeat(256),
  `build/${"x".repeat(256)}`,
  `build/${"\u00e9".repeat(200)}.js`,
  `${"a/".repeat(300)}b`,
];

Deno.test("fuzz: the link API, shells, static files and docs reachable without a key", async (t) => {
  await withServer(async (server) => {
    const w = await makeWorld(server);
    const known = knownValues(w);
    const ctx: SchemaContext = {
      resolve: () => ({}),
      known: (field) =>
        field === "asset"
          ? fc.constantFrom(...ASSETS)
          : field === "page"
          ? fc.constantFrom("tenants", "users", "keys", "adapters", "locks", "Tenants", "a-b", "-")
          : field === "password"
          ? fc.constantFrom("fuzz-secret", "wrong", "")
          : field === "any"
          ? fc.constantFrom(
            "api/external/v1/docs",
            "api/external/v1/openapi.json",
            "api/external/v2/x",
            "healthz",
            "",
            "admin",
            "admin/",
            "admin/api",
            "doc-storage/v1",
            "doc-storage/v1/",
            "public/v1",
            "s/",
            "static/",
            "favicon.ico",
            "%2e%2e/%2e%2e/etc/passwd",
          )
          : field === "cursor"
          ? fc.constantFrom("", "0", "abc", "eyJ4IjoxfQ")
          : known(field),
    };
    const none = () => [] as [string, string][];
    for (const { op, errorCode } of PUBLIC_OPERATIONS) {
      await t.step(`${op.method} ${op.path}`, async () => {
        await fuzz(
          `public ${op.method} ${op.path}`,
          requestArb(op, ctx, fc.constant("none")),
          async (g) => {
            const req = toRequest(
              "",
              op,
              RAW_PATHS.has(op.path) ? { ...g, rawPath: true } : g,
              none,
            );
            const answer = await send(server.url, req);
            checkAnswer(req, answer, { secretPaths: [server.config.dataDir], errorCode });
          },
          runsFor(20),
        );
      });
    }
    await assertAlive(server.url);
  });
});
