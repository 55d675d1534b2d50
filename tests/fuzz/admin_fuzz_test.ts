/**
 * Fuzzing the admin API (/admin/api): every route of api/admin/*.ts, with path parameters,
 * queries and JSON bodies generated from the request schemas of api/admin/schemas.ts (through
 * `z.toJSONSchema`), valid-looking and hostile, sent mostly with the admin token and sometimes
 * with a wrong one, an API key or none. No answer may be a 5xx, carry a stack trace or internal
 * path, come late, or lack an error code when it is an error; the server answers /healthz
 * afterwards.
 */
import fc from "./fast_check.ts";
import { z } from "zod";
import {
  ConnectionTestBody,
  CreateAdapterBody,
  RotateSecretBody,
} from "../../api/admin/schemas/adapters.ts";
import {
  CreateKeyBody,
  CreateTenantBody,
  CreateUserBody,
  PatchTenantBody,
  PatchUserBody,
} from "../../api/admin/schemas/identity.ts";
import { ReleaseLockBody, SweepBody } from "../../api/admin/schemas/storage.ts";
import { ADMIN_TOKEN } from "../helpers/admin.ts";
import { withServer } from "../helpers/server.ts";
import { fuzzEachOperation } from "./operations.ts";
import type { Operation, Param } from "./requests.ts";
import type { JsonSchema, SchemaContext } from "./schema.ts";
import { knownValues, makeWorld, type World } from "./world.ts";

const BASE = "/admin/api";

const json = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as JsonSchema;

const SEQ: JsonSchema = { type: "integer", exclusiveMinimum: 0 };
const TEXT: JsonSchema = { type: "string" };
const path = (name: string, schema: JsonSchema = SEQ): Param => ({
  name,
  in: "path",
  required: true,
  schema,
});
const query = (name: string, schema: JsonSchema): Param => ({
  name,
  in: "query",
  required: false,
  schema,
});

function op(
  method: string,
  route: string,
  params: Param[] = [],
  body?: { schema: z.ZodType; optional?: boolean },
): Operation {
  return {
    method,
    path: route,
    params,
    body: body ? { kind: "json", schema: json(body.schema) } : null,
    bodyOptional: body?.optional,
  };
}

/** Every route the admin API mounts (api/admin/index.ts and its route modules). */
const ADMIN_OPERATIONS: Operation[] = [
  op("POST", "/tenants", [], { schema: CreateTenantBody }),
  op("GET", "/tenants"),
  op("GET", "/tenants/{id}", [path("id")]),
  op("PATCH", "/tenants/{id}", [path("id")], { schema: PatchTenantBody }),
  op("POST", "/users", [], { schema: CreateUserBody }),
  op("GET", "/users", [query("tenantId", SEQ)]),
  op("GET", "/users/{userSeq}", [path("userSeq")]),
  op("PATCH", "/users/{userSeq}", [path("userSeq")], { schema: PatchUserBody }),
  op("POST", "/keys", [], { schema: CreateKeyBody }),
  op("GET", "/keys", [query("userSeq", SEQ)]),
  op("DELETE", "/keys/{keyId}", [path("keyId", TEXT)]),
  op("POST", "/adapters", [], { schema: CreateAdapterBody }),
  op("GET", "/adapters"),
  op("GET", "/adapters/{name}", [path("name", TEXT)]),
  op("DELETE", "/adapters/{name}", [path("name", TEXT)]),
  op("POST", "/adapters/{name}/rotate-secret", [path("name", TEXT)], {
    schema: RotateSecretBody,
    optional: true,
  }),
  op("POST", "/adapters/{name}/test", [path("name", TEXT)], {
    schema: ConnectionTestBody,
    optional: true,
  }),
  op("GET", "/locks"),
  op("GET", "/locks/releases", [query("limit", { type: "integer", minimum: 1, maximum: 1000 })]),
  op("DELETE", "/locks/{resourceSeq}", [path("resourceSeq")], {
    schema: ReleaseLockBody,
    optional: true,
  }),
  op("GET", "/share-links"),
  op("DELETE", "/share-links/{shareSeq}", [path("shareSeq")]),
  op("POST", "/blobs/sweep", [], { schema: SweepBody, optional: true }),
];

const AUTH = fc.oneof(
  { weight: 12, arbitrary: fc.constant("admin") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "none",
      "wrong",
      "api-key",
      "lowercase-scheme",
      "prefix",
      "huge",
      "junk",
    ),
  },
);

function credentials(w: World) {
  return (label: string, junk: string): [string, string][] => {
    const value = {
      admin: `Bearer ${ADMIN_TOKEN}`,
      none: null,
      wrong: "Bearer wrong-admin-token",
      "api-key": `Bearer ${w.alice.apiKey}`,
      "lowercase-scheme": `bearer ${ADMIN_TOKEN}`,
      prefix: `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
      huge: `Bearer ${"t".repeat(20_000)}`,
      junk: `Bearer ${junk}`,
    }[label];
    return value ? [["authorization", value]] : [];
  };
}

Deno.test("fuzz: every admin API route", async (t) => {
  await withServer(async (server) => {
    const w = await makeWorld(server);
    const known = knownValues(w);
    // The connection test fetches baseUrl: only addresses that answer (or fail) at once, so a
    // slow network is never mistaken for a hang of the service.
    const baseUrls = fc.constantFrom(
      server.url,
      `${server.url}/`,
      `${server.url}/prefix`,
      `${server.url}/../x`,
      `${server.url}?q=1`,
      "http://127.0.0.1:1",
      "http://user:pw@127.0.0.1:1",
      "ftp://127.0.0.1/",
      "not a url",
      "",
      "http://[::1",
    );
    const ctx: SchemaContext = {
      resolve: () => ({}),
      known: (field) => (field === "baseUrl" ? baseUrls : known(field)),
    };
    await fuzzEachOperation(t, server, {
      name: "admin",
      base: BASE,
      operations: ADMIN_OPERATIONS,
      ctx,
      auth: AUTH,
      credentials: credentials(w),
    });
  });
});
