/**
 * Fuzzing the storage provider protocol (/doc-storage/v1) with raw HTTP requests for its nine
 * operations: generated document paths (existing names, hostile names, broken percent-encoding,
 * dot segments), right and wrong methods, queries, media types and length framing (exact,
 * missing, chunked, shorter or longer than declared), bodies, and credentials: correctly signed
 * for one of the seeded adapters, signed with one claim tampered, signed with a wrong secret,
 * junk, or none, sometimes replayed. No answer may be a 5xx (except the protocol's own 501 "not
 * supported"), carry a stack trace or internal path, or come late; the server answers /healthz
 * afterwards.
 */
import fc from "./fast_check.ts";
import { signJwt } from "../../provider/jwt.ts";
import { sha256Hex } from "../../lib/secrets.ts";
import { withServer } from "../helpers/server.ts";
import { PROVIDER_JWT_HEADER, providerClaims } from "../helpers/provider.ts";
import {
  assertAlive,
  checkAnswer,
  concat,
  fuzz,
  type FuzzAnswer,
  type FuzzRequest,
  type RawRequest,
  runsFor,
  sendRaw,
} from "./harness.ts";
import {
  bodyMangle,
  fileBytes,
  hostileJson,
  hostileString,
  jsonText,
  mangledJson,
  nameLike,
  oneIn,
} from "./values.ts";
import { pct } from "./requests.ts";
import { makeWorld, type World } from "./world.ts";
import { OPERATION_METHOD } from "../../provider/paths.ts";
import { OPERATIONS } from "../../kv/adapters/operations.ts";

// The protocol's operations and methods as the server declares them: the fuzzer's point is what
// the server does with them, not to pin the list (tests/provider/ does that).
const METHOD: Record<string, string> = OPERATION_METHOD;
const JSON_FIELD: Record<string, string> = {
  lock: "owner",
  unlock: "owner",
  mkdir: "name",
  rename: "name",
};

/** Segments sent exactly as written: tricks percent-decoding and path normalization must catch. */
const RAW_SEGMENTS = [
  "",
  ".",
  "..",
  "%2e",
  "%2E%2e",
  "%",
  "%zz",
  "%0",
  "%00",
  "a%2fb",
  "a%5Cb",
  "%C3%28",
  "%ED%A0%80",
  "%EF%BF%BF",
  "%E2%80%AE",
  "%F4%90%80%80",
  "a b",
  "a\tb",
  "\u00e9",
  "a;b=c",
  "~",
  "%25",
  "%2525",
];

interface Segment {
  text: string;
  raw: boolean;
}

const segment: fc.Arbitrary<Segment> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom("Reports", "Q1", "Public", "a.txt", "b.txt", "notes.txt").map((
      text,
    ) => ({ text, raw: false })),
  },
  { weight: 3, arbitrary: nameLike.map((text) => ({ text, raw: false })) },
  { weight: 2, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((text) => ({ text, raw: true })) },
  { weight: 1, arbitrary: hostileString.map((text) => ({ text, raw: false })) },
);

/**
 * Paths that exist under the adapters' roots (Alice's drive; "Reports" for fuzz-folder), some
 * with a new last name, so that signed requests get past path resolution to the operations.
 */
const EXISTING_PATHS = [
  [],
  ["Reports"],
  ["Reports", "a.txt"],
  ["Reports", "Q1"],
  ["Reports", "Q1", "b.txt"],
  ["Public"],
  ["notes.txt"],
  ["caf\u00e9.txt"],
  ["a.txt"],
  ["Q1"],
  ["Q1", "b.txt"],
];
const existingPath: fc.Arbitrary<Segment[]> = fc.tuple(
  fc.constantFrom(...EXISTING_PATHS),
  oneIn(3, fc.oneof(nameLike, fc.constantFrom("new.txt", "New folder"))),
).map(([path, extra]) =>
  [...path, ...(extra === null ? [] : [extra])].map((text) => ({ text, raw: false }))
);

/** A claim (path into the claims or the header) set to a hostile value before signing. */
const TAMPER_PATHS = [
  "header.alg",
  "header.typ",
  "header.crit",
  "header.kid",
  "iss",
  "aud",
  "iat",
  "exp",
  "jti",
  "nbf",
  "request",
  "request.adapter",
  "request.method",
  "request.path",
  "request.content_type",
  "request.content_length",
  "request.content_sha256",
  "request.office_connection_id",
  "request.arguments",
  "request.arguments.save_type",
  "request.client_metadata",
  "request.extra",
];

type Auth =
  | { kind: "signed"; adapter: number; tamper: null | { path: string; value: unknown } }
  | { kind: "lifetime"; adapter: number; iatOffset: number; life: number }
  | { kind: "wrong-secret"; adapter: number; secret: string }
  | { kind: "other-adapter"; signer: number; named: number }
  | { kind: "junk"; jwt: string; adapter: string }
  | { kind: "no-jwt"; adapter: number }
  | { kind: "no-adapter"; adapter: number };

const adapterIndex = fc.oneof(
  { weight: 6, arbitrary: fc.constant(0) },
  { weight: 3, arbitrary: fc.constantFrom(1, 2, 3) },
);

const auth: fc.Arbitrary<Auth> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant("signed" as const),
      adapter: adapterIndex,
      tamper: fc.constant(null),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("signed" as const),
      adapter: adapterIndex,
      tamper: fc.record({
        path: fc.constantFrom(...TAMPER_PATHS),
        value: fc.oneof(
          hostileJson,
          fc.constantFrom(undefined, "none", "HS512", "doc-office", "GET", ["crit"], {}),
        ),
      }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("lifetime" as const),
      adapter: adapterIndex,
      iatOffset: fc.constantFrom(-3_600, -120, -61, 0, 30, 61, 3_600, 2 ** 31),
      life: fc.constantFrom(-1, 0, 1, 60, 61, 3_600, 2 ** 40),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("wrong-secret" as const),
      adapter: adapterIndex,
      secret: fc.constantFrom("", "x", "wrong-secret-0123456789abcdef0123456789"),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("other-adapter" as const),
      signer: adapterIndex,
      named: adapterIndex,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("junk" as const),
      jwt: fc.oneof(
        fc.constantFrom(
          "a.b.c",
          "",
          ".",
          "..",
          "...",
          "eyJhbGciOiJub25lIn0.e30.",
          "eyJhbGciOiJIUzI1NiJ9.e30.AAAA",
          "a".repeat(6_000),
          "a.b.c".repeat(2_000),
        ),
        fc.base64String({ maxLength: 200 }),
        hostileString,
      ),
      adapter: fc.oneof(
        fc.constantFrom("fuzz-office", "nope", "", "x".repeat(2_100), "fuzz-office\u00e9"),
        hostileString,
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("no-jwt" as const), adapter: adapterIndex }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("no-adapter" as const), adapter: adapterIndex }),
  },
);

type Framing = "exact" | "none" | "chunked" | "short" | "long" | "bogus";

interface ProviderCase {
  op: string;
  wrongMethod: string | null;
  segments: Segment[];
  suffix: string;
  contentType: string | null | "default";
  framing: Framing;
  bogusLength: string;
  body: Uint8Array | null;
  auth: Auth;
  replay: boolean;
}

const enc = new TextEncoder();

function bodyFor(op: string): fc.Arbitrary<Uint8Array | null> {
  if (op === "put") return fileBytes;
  const field = JSON_FIELD[op];
  if (field) {
    const value = fc.oneof(
      { weight: 4, arbitrary: fc.oneof(nameLike, fc.constantFrom("fuzz", "owner-1")) },
      { weight: 1, arbitrary: hostileJson },
    );
    return fc.tuple(
      fc.oneof(
        { weight: 8, arbitrary: value.map((v) => ({ [field]: v })) },
        fc.tuple(value, hostileJson).map(([v, x]) => ({ [field]: v, extra: x })),
        hostileJson,
        fc.constant({}),
      ),
      bodyMangle,
    ).map(([v, m]) => mangledJson(v, m));
  }
  return oneIn(
    6,
    fc.oneof(fc.uint8Array({ maxLength: 32 }), hostileJson.map((v) => enc.encode(jsonText(v)))),
  );
}

/** Operation names that are not one: the provider's 404, whatever else the request says. */
const NOT_OPERATIONS = ["move", "", "INFO", "info/", "put.json", "..", "%69nfo"];

/** Requests for the operations `ops` (one drawn per case). */
const caseArb = (ops: string[]): fc.Arbitrary<ProviderCase> =>
  fc.constantFrom(...ops).chain((op) =>
    fc.record({
      op: fc.constant(op),
      wrongMethod: fc.oneof(
        { weight: 10, arbitrary: fc.constant(null) },
        fc.constantFrom("GET", "PUT", "POST", "DELETE", "PATCH", "OPTIONS", "HEAD", "get"),
      ),
      segments: fc.oneof(
        { weight: 6, arbitrary: existingPath },
        { weight: 3, arbitrary: fc.array(segment, { maxLength: 4 }) },
      ),
      suffix: fc.oneof(
        { weight: 12, arbitrary: fc.constant("") },
        fc.constantFrom("?", "?a=1", "#frag", "/", "//", "?jwt=x&adapter=y"),
      ),
      contentType: fc.oneof(
        { weight: 10, arbitrary: fc.constant("default" as const) },
        fc.constantFrom(
          null,
          "",
          "application/octet-stream; charset=utf-8",
          "application/json; charset=utf-8",
          "application/json",
          "application/octet-stream",
          "text/plain",
          "APPLICATION/OCTET-STREAM",
          "multipart/form-data; boundary=x",
        ),
      ),
      framing: fc.oneof(
        { weight: 10, arbitrary: fc.constant<Framing>("exact") },
        fc.constantFrom<Framing>("none", "chunked", "short", "long", "bogus"),
      ),
      bogusLength: fc.constantFrom("abc", "-1", "1, 2", "+5", "99999999999999999999", "0x10", ""),
      body: bodyFor(op),
      auth,
      replay: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, fc.constant(true)),
    })
  );

/** A header value as it can go on the wire: no CR or LF (they would end the header). */
function headerValue(s: string): string {
  return s.replace(/[\r\n]/g, " ");
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let o = target;
  for (const k of path.slice(0, -1)) {
    if (o[k] === null || typeof o[k] !== "object") o[k] = {};
    o = o[k] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete o[last];
  else o[last] = value;
}

function toRaw(w: World, c: ProviderCase): RawRequest {
  const op = c.op;
  const method = c.wrongMethod ?? METHOD[op] ?? "GET";
  const doc = c.segments.map((s) => (s.raw ? s.text : pct(s.text))).join("/");
  const path = `/doc-storage/v1/${doc === "" ? "" : `${doc}/`}${op}`;
  const target = `${path}${c.suffix}`;
  const body = c.body ?? new Uint8Array();
  const contentType = c.contentType === "default"
    ? (op === "put" ? "application/octet-stream" : JSON_FIELD[op] ? "application/json" : null)
    : c.contentType;

  const headers: [string, string][] = [];
  if (contentType !== null) headers.push(["content-type", contentType]);
  let wire = body;
  let sendBytes: number | undefined;
  switch (c.framing) {
    case "exact":
      if (c.body !== null || method === "PUT" || method === "POST") {
        headers.push(["content-length", String(body.byteLength)]);
      }
      break;
    case "none":
      wire = new Uint8Array();
      break;
    case "chunked":
      headers.push(["transfer-encoding", "chunked"]);
      wire = concat([
        ...(body.byteLength ? [enc.encode(`${body.byteLength.toString(16)}\r\n`), body] : []),
        enc.encode(`${body.byteLength ? "\r\n" : ""}0\r\n\r\n`),
      ]);
      break;
    case "short":
      // Announces more than it sends, then ends its side: the server sees the body end early.
      headers.push(["content-length", String(body.byteLength + 10)]);
      sendBytes = body.byteLength;
      break;
    case "long":
      headers.push(["content-length", String(Math.max(0, body.byteLength - 3))]);
      break;
    case "bogus":
      headers.push(["content-length", c.bogusLength]);
      break;
  }

  const a = c.auth;
  const adapterOf = (i: number) => w.adapters[i % w.adapters.length];
  const claimsFor = (adapterName: string) => ({
    header: { ...PROVIDER_JWT_HEADER } as Record<string, unknown>,
    claims: providerClaims(adapterName, {
      method,
      path,
      contentType: contentType ?? undefined,
      length: body.byteLength,
      sha256: sha256Hex(body),
    }) as Record<string, unknown>,
  });
  switch (a.kind) {
    case "signed":
    case "lifetime": {
      const ad = adapterOf(a.adapter);
      const { header, claims } = claimsFor(ad.name);
      if (a.kind === "lifetime") {
        claims.iat = (claims.iat as number) + a.iatOffset;
        claims.exp = (claims.iat as number) + a.life;
      } else if (a.tamper) {
        const [root, ...rest] = a.tamper.path.split(".");
        if (root === "header") setPath(header, rest, a.tamper.value);
        else setPath(claims, [root, ...rest], a.tamper.value);
      }
      headers.push(["x-doc-storage-adapter", ad.name]);
      headers.push(["x-doc-storage-request-jwt", signJwt(header, claims, ad.secret)]);
      break;
    }
    case "wrong-secret": {
      const ad = adapterOf(a.adapter);
      const { header, claims } = claimsFor(ad.name);
      headers.push(["x-doc-storage-adapter", ad.name]);
      headers.push(["x-doc-storage-request-jwt", signJwt(header, claims, a.secret)]);
      break;
    }
    case "other-adapter": {
      const signer = adapterOf(a.signer);
      const named = adapterOf(a.named);
      const { header, claims } = claimsFor(named.name);
      headers.push(["x-doc-storage-adapter", named.name]);
      headers.push(["x-doc-storage-request-jwt", signJwt(header, claims, signer.secret)]);
      break;
    }
    case "junk":
      headers.push(["x-doc-storage-adapter", headerValue(a.adapter)]);
      headers.push(["x-doc-storage-request-jwt", headerValue(a.jwt)]);
      break;
    case "no-jwt":
      headers.push(["x-doc-storage-adapter", adapterOf(a.adapter).name]);
      break;
    case "no-adapter": {
      const ad = adapterOf(a.adapter);
      const { header, claims } = claimsFor(ad.name);
      headers.push(["x-doc-storage-request-jwt", signJwt(header, claims, ad.secret)]);
      break;
    }
  }
  return { method, target, headers, body: wire, sendBytes };
}

/** The protocol's "not supported" answer is a 501 by design; any other 5xx is a failure. */
const notSupported = (a: FuzzAnswer) =>
  a.status === 501 && /"code"\s*:\s*"[A-Z]+_NOT_SUPPORTED"/.test(a.text);

Deno.test("fuzz: the nine storage provider operations, signed and unsigned", async (t) => {
  await withServer(async (server) => {
    const w = await makeWorld(server);
    // One property per operation, so every one gets its cases and a failure in one does not
    // hide the others; then targets that name no operation.
    const groups: [string, string[], number][] = [
      ...OPERATIONS.map((op): [string, string[], number] => [op, [op], 45]),
      ["not an operation", NOT_OPERATIONS, 20],
    ];
    for (const [name, ops, runs] of groups) {
      await t.step(name, async () => {
        await fuzz(
          `provider ${name}`,
          caseArb(ops),
          async (c) => {
            const raw = toRaw(w, c);
            const shown: FuzzRequest = { ...raw, body: raw.body };
            for (let i = 0; i < (c.replay ? 2 : 1); i++) {
              const answer = await sendRaw(server.url, raw);
              checkAnswer(shown, answer, {
                secretPaths: [server.config.dataDir],
                allow5xx: notSupported,
              });
            }
          },
          runsFor(runs),
        );
      });
    }
    await assertAlive(server.url);
  });
});
