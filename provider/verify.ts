/**
 * The provider's verification pipeline. The spec's steps, with the body read moved after
 * authentication so that nobody unauthenticated can make the provider store (or buffer) a byte:
 *   1. method, raw path, query, media type and framing (oversize rejected before reading);
 *   2. adapter secret, JWT signature, header and claims (spec step 3);
 *   3. every signed request field that the headers decide (adapter, method, path, content
 *      type, length; for an empty body also its hash) against the real request (spec step 4);
 *   4. jti recorded atomically in KV (spec step 5): replays, even concurrent copies of one JWT,
 *      are refused before a byte of their body is read;
 *   5. only now the body is read, bounded and hashed (spec step 2: put streams it into a
 *      temporary blob, or only hashes it when step 6 refuses the put anyway; JSON operations
 *      read it into at most 16 KiB of memory), and its SHA-256 compared with the signed
 *      `content_sha256`: a mismatch is the same 401, the temporary blob deleted;
 * after which operations.ts checks access and runs the operation. A failure in 1-3 leaves the
 * jti unused; from 4 on the jti stays used (the spec signs every retry with a fresh jti), and
 * nothing of a failed request remains in storage.
 */
import { createHash } from "node:crypto";
import { type BlobInfo, BlobSizeMismatchError, BlobTooLargeError } from "../blobs/store.ts";
import { type Adapter, loadAdapterWithSecret } from "../kv/adapters/adapters.ts";
import type { Deps } from "../kv/deps.ts";
import type { ReadAhead } from "./read_ahead.ts";
import { recordJti } from "../kv/adapters/replay.ts";
import { isObject, JWT_AUD, JWT_ISS, type RequestClaims, verifyJwtSignature } from "./jwt.ts";
import { MAX_JSON_REQUEST_BYTES, MAX_JWT_BYTES, MAX_JWT_LIFETIME_S } from "./limits.ts";
import {
  newNameProblem,
  OPERATION_METHOD,
  operationOf,
  parseProviderPath,
  PathError,
  type ProviderUrl,
  rawTarget,
} from "./paths.ts";
import { ProviderError, unauthorized } from "./responses.ts";

const ADAPTER_HEADER = "x-doc-storage-adapter";
const JWT_HEADER = "x-doc-storage-request-jwt";
const EMPTY_SHA256 = createHash("sha256").digest("hex");

const BODY_OPERATIONS = new Set(["put", "lock", "unlock", "mkdir", "rename"]);

export interface VerifiedRequest {
  url: ProviderUrl;
  adapter: Adapter;
  claims: RequestClaims;
  /** The identity epoch read with the adapter record (kv/identity/cache.ts), for its user. */
  identityEpoch: bigint;
  /**
   * Settles once the request's jti is recorded (spec step 5): rejects with the 401 of a replay.
   * Already settled, except for info and list, whose reads overlap the commit; runOperation
   * answers nothing before it settles.
   */
  replayChecked: Promise<void>;
  /** info and list: keys read with the adapter record, and their entries (read_ahead.ts). */
  readAhead: { keys: Deno.KvKey[]; entries: Deno.KvEntryMaybe<unknown>[] };
  /** JSON operations: the body bytes (at most 16 KiB). */
  jsonBytes?: Uint8Array;
  /**
   * put: the body, already in the blob store; the operation must use it or delete it. Absent
   * when the adapter does not offer put or is read-only (the body was only hashed).
   */
  blob?: BlobInfo;
}

interface Framing {
  contentType: string | null;
  length: number;
}

/** Step 1: everything that can be checked from the request line and headers. */
function checkShape(req: Request, maxDocBytes: number): { url: ProviderUrl; framing: Framing } {
  const target = rawTarget(req.url);
  const operation = operationOf(target.path);
  if (!operation) throw new ProviderError(404, "No such endpoint");
  const method = OPERATION_METHOD[operation];
  if (req.method !== method) {
    throw new ProviderError(405, `Use ${method} for ${operation}`, { allow: method });
  }
  if (target.hasQuery || target.hasFragment) {
    throw new ProviderError(400, "Query strings are not allowed");
  }
  let url: ProviderUrl;
  try {
    url = parseProviderPath(target.path);
  } catch (err) {
    if (err instanceof PathError) throw new ProviderError(err.status, err.message);
    throw err;
  }
  // A put names the entry it creates: a name the drive refuses is 400 before anything is read.
  const name = url.segments[url.segments.length - 1];
  const nameProblem = operation === "put" && name !== undefined &&
    newNameProblem(name, "the last path segment");
  if (nameProblem) throw new ProviderError(400, `Invalid path: ${nameProblem}`);
  const contentType = req.headers.get("content-type");
  const encoding = req.headers.get("content-encoding");
  if (encoding !== null && encoding.toLowerCase() !== "identity") {
    throw new ProviderError(415, "Compressed request bodies are not accepted");
  }
  const declared = req.headers.get("content-length");
  const chunked = req.headers.has("transfer-encoding");
  if (!BODY_OPERATIONS.has(operation)) {
    if (contentType !== null) throw new ProviderError(415, `${operation} takes no Content-Type`);
    if (chunked || (declared !== null && declared !== "0")) {
      throw new ProviderError(400, `${operation} takes no request body`);
    }
    return { url, framing: { contentType, length: 0 } };
  }
  const wanted = operation === "put" ? "application/octet-stream" : "application/json";
  const mediaOk = operation === "put"
    ? contentType === wanted
    : contentType !== null && /^application\/json(\s*;\s*charset="?utf-8"?)?$/i.test(contentType);
  if (!mediaOk) throw new ProviderError(415, `Send the body as ${wanted}`);
  if (declared === null || chunked) throw new ProviderError(411, "Content-Length is required");
  if (!/^\d{1,16}$/.test(declared)) throw new ProviderError(400, "Invalid Content-Length");
  const length = Number(declared);
  const limit = operation === "put" ? maxDocBytes : MAX_JSON_REQUEST_BYTES;
  if (length > limit) {
    throw new ProviderError(413, `The request body is larger than ${limit} bytes`);
  }
  return { url, framing: { contentType, length } };
}

/** Read failures of the request body (client gone, framing broken), told apart from storage. */
class BodyReadError extends Error {}

async function* requestBody(req: Request): AsyncGenerator<Uint8Array> {
  if (!req.body) return;
  const reader = req.body.getReader();
  try {
    while (true) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch {
        throw new BodyReadError("The request body ended early");
      }
      if (chunk.done) return;
      yield chunk.value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** Step 5 for JSON operations: at most `length` (<= 16 KiB) bytes in memory, hashed. */
async function readJsonBody(req: Request, length: number) {
  const buf = new Uint8Array(length);
  let fill = 0;
  for await (const chunk of requestBody(req)) {
    if (fill + chunk.byteLength > length) {
      throw new BodyReadError("Body longer than Content-Length");
    }
    buf.set(chunk, fill);
    fill += chunk.byteLength;
  }
  if (fill !== length) throw new BodyReadError("Body shorter than Content-Length");
  return { bytes: buf, sha256: createHash("sha256").update(buf).digest("hex") };
}

/**
 * Step 5 for a put that step 6 will refuse anyway (put not offered: 501; read-only adapter:
 * 403): the spec verifies the body before either answer, so it is read and hashed, but never
 * written anywhere.
 */
async function hashPutBody(req: Request, length: number): Promise<string> {
  const hash = createHash("sha256");
  let total = 0;
  try {
    for await (const chunk of requestBody(req)) {
      total += chunk.byteLength;
      if (total > length) break;
      hash.update(chunk);
    }
  } catch (err) {
    if (!(err instanceof BodyReadError)) throw err;
  }
  if (total !== length) {
    throw new ProviderError(400, "The request body does not match its Content-Length");
  }
  return hash.digest("hex");
}

/** Step 5 for put: streamed into a new blob (hashing as it goes), never over `length`. */
async function bufferPutBody(d: Deps, req: Request, length: number): Promise<BlobInfo> {
  try {
    return await d.blobs.write(requestBody(req), { maxBytes: length, expectedSize: length });
  } catch (err) {
    if (
      err instanceof BodyReadError || err instanceof BlobSizeMismatchError ||
      err instanceof BlobTooLargeError
    ) {
      throw new ProviderError(400, "The request body does not match its Content-Length");
    }
    throw err;
  }
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);
const isHex64 = (v: unknown) => typeof v === "string" && /^[0-9a-f]{64}$/.test(v);

/** client_metadata limits: 2,048 bytes, keys 1-64 non-blank, strings <= 512, depth <= 8. */
function clientMetadataOk(meta: unknown): boolean {
  if (!isObject(meta)) return false;
  if (new TextEncoder().encode(JSON.stringify(meta)).byteLength > 2048) return false;
  const keyOk = (k: string) => k.trim() !== "" && [...k].length <= 64;
  // Depth counts containers: the root object is 0, its object or array values 1, ...
  const walk = (v: unknown, depth: number): boolean => {
    if (typeof v === "string") return [...v].length <= 512;
    if (Array.isArray(v)) return depth <= 8 && v.every((x) => walk(x, depth + 1));
    if (isObject(v)) {
      return depth <= 8 && Object.entries(v).every(([k, x]) => keyOk(k) && walk(x, depth + 1));
    }
    return true;
  };
  return walk(meta, 0);
}

/** Step 2 (claims part): the payload's registered claims and the types of `request`. */
export function claimsOk(
  p: Record<string, unknown>,
  nowS: number,
): p is RequestClaims & Record<string, unknown> {
  if (p.iss !== JWT_ISS) return false;
  const aud = p.aud;
  if (!(aud === JWT_AUD || (Array.isArray(aud) && aud.length === 1 && aud[0] === JWT_AUD))) {
    return false;
  }
  if (!isInt(p.iat) || !isInt(p.exp)) return false;
  if (p.iat > nowS || p.exp <= nowS) return false;
  const lifetime = p.exp - p.iat;
  if (lifetime <= 0 || lifetime > MAX_JWT_LIFETIME_S) return false;
  if (typeof p.jti !== "string" || p.jti === "" || [...p.jti].length > 64) return false;
  const r = p.request;
  if (!isObject(r)) return false;
  if (typeof r.adapter !== "string" || typeof r.method !== "string" || typeof r.path !== "string") {
    return false;
  }
  if ("content_type" in r && typeof r.content_type !== "string") return false;
  if (!isInt(r.content_length) || r.content_length < 0 || !isHex64(r.content_sha256)) return false;
  if ("office_connection_id" in r && typeof r.office_connection_id !== "string") return false;
  if ("arguments" in r && !isObject(r.arguments)) return false;
  if ("client_metadata" in r && !clientMetadataOk(r.client_metadata)) return false;
  return true;
}

/**
 * Every signed field the headers decide equals the real request. The hash is compared here
 * only when the body is empty (its hash is known); otherwise once the body has been read.
 */
function matchesRequest(
  r: RequestClaims["request"],
  real: { adapter: string; method: string; path: string; framing: Framing },
): boolean {
  return r.adapter === real.adapter &&
    r.method === real.method &&
    r.path === real.path &&
    (real.framing.contentType === null
      ? !("content_type" in r)
      : r.content_type === real.framing.contentType) &&
    r.content_length === real.framing.length &&
    (real.framing.length > 0 || r.content_sha256 === EMPTY_SHA256);
}

/**
 * Steps 2-4, from the headers alone (no byte of the body has been read); throws the one 401
 * on any failure. Recording the jti is last, so a request that fails before it leaves the jti
 * unused. A refused jti is the same 401, through `replayChecked`.
 */
async function authenticate(
  d: Deps,
  req: Request,
  url: ProviderUrl,
  framing: Framing,
  readAhead?: ReadAhead,
): Promise<Omit<VerifiedRequest, "url" | "jsonBytes" | "blob">> {
  const name = req.headers.get(ADAPTER_HEADER) ?? "";
  const jwt = req.headers.get(JWT_HEADER) ?? "";
  if (name === "" || jwt === "" || jwt.length > MAX_JWT_BYTES) throw unauthorized();
  // Read ahead only for operations that change nothing (provider/read_ahead.ts).
  const aheadKeys = readAhead && READ_ONLY.has(url.operation)
    ? readAhead.keysFor(name, url.operation, url.rawPath)
    : [];
  const loaded = await loadAdapterWithSecret(d, name, aheadKeys);
  const payload = verifyJwtSignature(jwt, loaded?.secret ?? null);
  if (!loaded || !isObject(payload)) throw unauthorized();
  const nowS = Math.floor(Date.now() / 1000);
  if (!claimsOk(payload, nowS)) throw unauthorized();
  const real = { adapter: loaded.adapter.name, method: req.method, path: url.rawPath, framing };
  if (!matchesRequest(payload.request, real)) throw unauthorized();
  const recording = recordJti(d.kv, loaded.adapter.name, payload.jti, payload.exp).then((fresh) => {
    if (!fresh) throw unauthorized();
  });
  // info and list change nothing: their reads run while the jti commits (runOperation answers
  // only once it has). Every other operation starts after it, as the spec orders.
  if (!READ_ONLY.has(url.operation)) await recording;
  else recording.catch(() => {}); // Awaited by runOperation; never an unhandled rejection.
  return {
    adapter: loaded.adapter,
    claims: payload,
    identityEpoch: loaded.epoch,
    replayChecked: recording,
    readAhead: { keys: aheadKeys, entries: loaded.alsoRead },
  };
}

/**
 * Operations that only read: their work may overlap the jti commit and start from entries read
 * ahead (see authenticate).
 */
const READ_ONLY = new Set(["info", "list"]);

export async function verifyProviderRequest(
  d: Deps,
  req: Request,
  readAhead?: ReadAhead,
): Promise<VerifiedRequest> {
  const { url, framing } = checkShape(req, d.config.providerMaxDocBytes);
  const auth = await authenticate(d, req, url, framing, readAhead);
  // The signed hash is public (it is in the JWT payload): a plain comparison is fine.
  const signedSha256 = auth.claims.request.content_sha256;
  if (url.operation === "put") {
    if (!auth.adapter.operations.includes("put") || auth.adapter.readOnly) {
      if ((await hashPutBody(req, framing.length)) !== signedSha256) throw unauthorized();
      return { url, ...auth };
    }
    const blob = await bufferPutBody(d, req, framing.length);
    if (blob.sha256 !== signedSha256) {
      await d.blobs.delete(blob.blobId).catch(() => {});
      throw unauthorized();
    }
    return { url, blob, ...auth };
  }
  if (BODY_OPERATIONS.has(url.operation)) {
    let body;
    try {
      body = await readJsonBody(req, framing.length);
    } catch (err) {
      if (err instanceof BodyReadError) throw new ProviderError(400, err.message);
      throw err;
    }
    if (body.sha256 !== signedSha256) throw unauthorized();
    return { url, jsonBytes: body.bytes, ...auth };
  }
  return { url, ...auth };
}
