/**
 * Fuzzing the drive external API from its own OpenAPI document: for every operation it
 * declares, requests with generated path parameters, queries, headers and bodies (JSON,
 * multipart or raw bytes, as declared), valid-looking and hostile, sent with a real API key of a
 * seeded user, another user's, a read-only one, a foreign tenant's, a broken one or none. No
 * answer may be a 5xx, carry a stack trace or an internal path, come late, or lack an error
 * code when it is an error; the server answers /healthz afterwards. See docs/security.md,
 * "Fuzzing", for the settings.
 */
import fc from "./fast_check.ts";
import { withServer } from "../helpers/server.ts";
import { fuzzEachOperation } from "./operations.ts";
import { operationsOf } from "./requests.ts";
import type { SchemaContext } from "./schema.ts";
import { knownValues, makeWorld, type World } from "./world.ts";

const BASE = "/api/external/v1";

// ------------------------------------------------------------------------------ credentials

/** Who sends a request: mostly a real key of a seeded user, sometimes a broken one or none. */
const AUTH_VALID = ["alice", "bob", "alice-read-only", "mallory"] as const;
const AUTH_BROKEN = [
  "none",
  "empty-bearer",
  "basic",
  "lowercase-scheme",
  "tampered",
  "unknown-key",
  "huge-key",
  "junk",
] as const;
const AUTH_LABELS = [...AUTH_VALID, ...AUTH_BROKEN] as const;
const authArb = fc.oneof(
  { weight: 12, arbitrary: fc.constant("alice" as const) },
  { weight: 4, arbitrary: fc.constantFrom(...AUTH_VALID) },
  { weight: 2, arbitrary: fc.constantFrom(...AUTH_BROKEN) },
);
type AuthLabel = typeof AUTH_LABELS[number];

function authHeader(w: World, label: string, junk: string): string | null {
  const key = w.alice.apiKey;
  switch (label as AuthLabel) {
    case "alice":
      return `Bearer ${key}`;
    case "bob":
      return `Bearer ${w.bob.apiKey}`;
    case "alice-read-only":
      return `Bearer ${w.aliceRead.apiKey}`;
    case "mallory":
      return `Bearer ${w.mallory.apiKey}`;
    case "none":
      return null;
    case "empty-bearer":
      return "Bearer ";
    case "basic":
      return `Basic ${btoa("alice:secret")}`;
    case "lowercase-scheme":
      return `bearer ${key}`;
    case "tampered":
      return `Bearer ${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    case "unknown-key":
      return "Bearer drv_nosuchkey_0123456789abcdef";
    case "huge-key":
      return `Bearer drv_${"k".repeat(3_000)}_${"s".repeat(3_000)}`;
    case "junk":
      return `Bearer ${junk}`;
  }
}

function credentials(w: World) {
  return (label: string, junk: string): [string, string][] => {
    const h = authHeader(w, label, junk);
    return h === null ? [] : [["authorization", h]];
  };
}

Deno.test("fuzz: every drive API operation of the OpenAPI document", async (t) => {
  await withServer(async (server) => {
    const w = await makeWorld(server);
    const doc = await (await fetch(`${server.url}${BASE}/openapi.json`)).json();
    const ctx: SchemaContext = {
      resolve: (ref) => ref.split("/").slice(1).reduce((o, k) => o[k], doc),
      known: knownValues(w),
    };
    const ops = operationsOf(doc);
    if (ops.length < 40) throw new Error(`only ${ops.length} operations in the OpenAPI document`);
    await fuzzEachOperation(t, server, {
      name: "drive",
      base: BASE,
      operations: ops,
      ctx,
      auth: authArb,
      credentials: credentials(w),
    });
  });
});
