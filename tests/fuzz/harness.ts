/**
 * Fuzz harness: the run settings (seed, number of cases, per-request deadline), sending one
 * generated request with a deadline (through fetch, or byte for byte over TCP), and the checks
 * every answer must pass: no 5xx, no stack trace or internal path, an answer in time, and the
 * server still alive afterwards.
 *
 * Settings come from the environment so that a failure seen in CI can be replayed exactly:
 * - `FUZZ_SEED`: the run's seed, which each property mixes with its name (default: a fresh random
 *   one, printed by every property);
 * - `FUZZ_RUNS`: cases per property (default: a small number in `deno task test`, many more in
 *   `deno task fuzz`, which sets `FUZZ_LONG=1`);
 * - `FUZZ_TIMEOUT_MS`: how long one request may take before it counts as a hang (5 s).
 */
import fc from "./fast_check.ts";
import { readHead } from "../../lib/bytes.ts";
import { concat } from "../helpers/http.ts";

function envInt(name: string): number | undefined {
  const raw = Deno.env.get(name);
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return n;
}

/** One seed for the whole process, so every property of a run can be replayed with it. */
export const FUZZ_SEED = envInt("FUZZ_SEED") ?? (Math.random() * 2 ** 31) | 0;
export const FUZZ_LONG = Deno.env.get("FUZZ_LONG") === "1";
const FUZZ_RUNS = envInt("FUZZ_RUNS");
export const FUZZ_TIMEOUT_MS = envInt("FUZZ_TIMEOUT_MS") ?? 5_000;

/**
 * Cases for one property: `FUZZ_RUNS` when set, otherwise `short` (what `deno task test` runs,
 * sized so the whole fuzz suite stays well under a minute on a 2-core machine) or 40 times as
 * many under `deno task fuzz`.
 */
export function runsFor(short: number): number {
  return FUZZ_RUNS ?? (FUZZ_LONG ? short * 40 : short);
}

/**
 * Checks `property` on `runs` generated cases with the process's seed, and prints how to replay
 * it. fast-check's own failure report (seed, path, the shrunk counterexample and the error,
 * which names the request and the answer) is what the test fails with.
 */
export async function fuzz<T>(
  name: string,
  arb: fc.Arbitrary<T>,
  property: (value: T) => Promise<void>,
  runs: number,
): Promise<void> {
  const seed = propertySeed(name);
  // The same settings replay the same cases in the same order, so that the properties run
  // before this one leave the server as they did.
  const replay = `FUZZ_SEED=${FUZZ_SEED}${
    FUZZ_RUNS !== undefined ? ` FUZZ_RUNS=${FUZZ_RUNS}` : FUZZ_LONG ? " FUZZ_LONG=1" : ""
  }`;
  console.log(
    `[fuzz] ${name}: seed ${FUZZ_SEED} (fast-check seed ${seed}), ${runs} cases (replay: ${replay})`,
  );
  tally = new Map();
  slowest = 0;
  const started = performance.now();
  try {
    await fc.assert(fc.asyncProperty(arb, property), {
      seed,
      numRuns: runs,
      // One property's time, cases and shrinking, is bounded in `deno task test`: shrinking a
      // failure replays requests one by one and could otherwise run long; what it shrank so far
      // is still reported.
      interruptAfterTimeLimit: FUZZ_LONG ? undefined : 60_000,
      markInterruptAsFailure: false,
    });
  } finally {
    // What the cases reached: a run that only ever sees 400 and 401 tests the validation alone.
    const statuses = [...tally].sort(([a], [b]) => a - b).map(([k, n]) => `${k}×${n}`).join(" ");
    const ms = Math.round(performance.now() - started);
    console.log(
      `[fuzz] ${name}: answers ${statuses || "none"} in ${ms} ms (slowest ${slowest} ms)`,
    );
  }
}

/**
 * The run's seed mixed with the property's name (FNV-1a): properties of similar shape draw
 * different cases, and FUZZ_SEED alone still replays every one of them.
 */
function propertySeed(name: string): number {
  let h = 0x811c9dc5 ^ FUZZ_SEED;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** Statuses of the answers the current property got, by status. */
let tally = new Map<number, number>();
/** The longest a request of the current property took, in ms (how close to a hang it came). */
let slowest = 0;

function count(status: number, since: number): void {
  tally.set(status, (tally.get(status) ?? 0) + 1);
  slowest = Math.max(slowest, Math.round(performance.now() - since));
}

// ------------------------------------------------------------------------------ requests

/** One generated HTTP request, as the failure report shows it. */
export interface FuzzRequest {
  method: string;
  /** Server-relative target, sent as is (fetch may still normalize it; raw sends do not). */
  target: string;
  headers: [string, string][];
  body?: Uint8Array | string;
  /** Send the body chunked (a stream without Content-Length). */
  chunked?: boolean;
}

export interface FuzzAnswer {
  status: number;
  headers: Headers;
  /** The body as text (at most MAX_READ bytes of it). */
  text: string;
}

/** Bodies are read up to this many bytes; a longer answer (a download) is cut there. */
const MAX_READ = 1 << 20;

/** A short printable form of a request for error messages. */
export function describe(req: FuzzRequest, answer?: FuzzAnswer): string {
  const body = req.body === undefined
    ? ""
    : typeof req.body === "string"
    ? req.body
    : new TextDecoder().decode(req.body);
  const headers = req.headers.map(([k, v]) => `${k}: ${clip(v, 120)}`).join("\n  ");
  const out = [
    `${req.method} ${clip(req.target, 400)}${req.chunked ? " (chunked)" : ""}`,
    `  ${headers}`,
    `  body (${body.length} chars): ${clip(JSON.stringify(body), 400)}`,
  ];
  if (answer) out.push(`→ ${answer.status} ${clip(answer.text, 600)}`);
  return out.join("\n");
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}… (${s.length} chars)`;
}

/** At most MAX_READ bytes of the body as text; a body that breaks off is a failure. */
async function readCapped(res: Response): Promise<string> {
  if (!res.body) return "";
  return new TextDecoder().decode(await readHead(res.body, MAX_READ, { onBreak: "throw" }));
}

/**
 * Sends `req` through fetch and reads the answer, all within the deadline; a request the server
 * does not answer in time throws (a hang is a failure).
 */
export async function send(baseUrl: string, req: FuzzRequest): Promise<FuzzAnswer> {
  const signal = AbortSignal.timeout(FUZZ_TIMEOUT_MS);
  const since = performance.now();
  let body: BodyInit | undefined;
  if (req.body !== undefined) {
    const bytes = typeof req.body === "string" ? new TextEncoder().encode(req.body) : req.body;
    body = req.chunked
      ? new ReadableStream<Uint8Array>({
        start(ctrl) {
          // Two chunks, so a parser that handles only one read is exercised as well.
          const cut = bytes.byteLength >> 1;
          ctrl.enqueue(bytes.slice(0, cut));
          ctrl.enqueue(bytes.slice(cut));
          ctrl.close();
        },
      })
      : bytes as Uint8Array<ArrayBuffer>;
  }
  try {
    const res = await fetch(`${baseUrl}${req.target}`, {
      method: req.method,
      headers: req.headers,
      body,
      redirect: "manual",
      signal,
    });
    const text = await readCapped(res);
    count(res.status, since);
    return { status: res.status, headers: res.headers, text };
  } catch (err) {
    if (signal.aborted) {
      throw new Error(`no answer within ${FUZZ_TIMEOUT_MS} ms (a hang):\n${describe(req)}`);
    }
    throw new Error(`the request failed: ${(err as Error).message}\n${describe(req)}`);
  }
}

/** A request written byte for byte to a fresh TCP connection (odd targets, exact framing). */
export interface RawRequest {
  method: string;
  /** The request target exactly as it goes on the request line. */
  target: string;
  headers: [string, string][];
  body?: Uint8Array;
  /** Send only this many body bytes, then half-close (a body shorter than announced). */
  sendBytes?: number;
}

/**
 * Sends a raw HTTP/1.1 request (Connection: close) and reads the answer until the server
 * closes, all within the deadline. Chunked answers are decoded.
 */
export async function sendRaw(baseUrl: string, req: RawRequest): Promise<FuzzAnswer> {
  const { hostname, port } = new URL(baseUrl);
  const since = performance.now();
  const conn = await Deno.connect({ hostname, port: Number(port) });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      conn.close();
    } catch { /* already closed */ }
  }, FUZZ_TIMEOUT_MS);
  const enc = new TextEncoder();
  const shown: FuzzRequest = {
    method: req.method,
    target: req.target,
    headers: req.headers,
    body: req.body,
  };
  try {
    const head = [`${req.method} ${req.target} HTTP/1.1`, `host: ${hostname}:${port}`];
    for (const [k, v] of req.headers) head.push(`${k}: ${v}`);
    head.push("connection: close", "", "");
    const body = req.body ?? new Uint8Array();
    const out = concat([
      enc.encode(head.join("\r\n")),
      body.subarray(0, req.sendBytes ?? body.byteLength),
    ]);
    try {
      for (let off = 0; off < out.byteLength;) off += await conn.write(out.subarray(off));
      if (req.sendBytes !== undefined) await conn.closeWrite();
    } catch {
      // The server may answer (413, 401) and close before reading everything: read the answer.
    }
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(64 * 1024);
    let got = 0;
    try {
      for (let n = await conn.read(buf); n !== null && got < MAX_READ; n = await conn.read(buf)) {
        chunks.push(buf.slice(0, n));
        got += n;
      }
    } catch (err) {
      if (!timedOut && chunks.length === 0) throw err;
    }
    if (timedOut) {
      throw new Error(`no answer within ${FUZZ_TIMEOUT_MS} ms (a hang):\n${describe(shown)}`);
    }
    const answer = parseAnswer(concat(chunks), shown);
    count(answer.status, since);
    return answer;
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* already closed */ }
  }
}

function parseAnswer(all: Uint8Array, req: FuzzRequest): FuzzAnswer {
  const text = new TextDecoder("latin1").decode(all);
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) {
    throw new Error(`no complete HTTP answer (${all.byteLength} bytes):\n${describe(req)}`);
  }
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers = new Headers();
  for (const l of lines) {
    const i = l.indexOf(":");
    if (i > 0) headers.append(l.slice(0, i).trim(), l.slice(i + 1).trim());
  }
  let body: Uint8Array = all.slice(end + 4);
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) body = dechunk(body);
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    text: new TextDecoder().decode(body),
  };
}

function dechunk(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder("latin1").decode(bytes);
  const parts: Uint8Array[] = [];
  let pos = 0;
  while (pos < text.length) {
    const eol = text.indexOf("\r\n", pos);
    if (eol < 0) break;
    const size = parseInt(text.slice(pos, eol), 16);
    if (!(size > 0)) break;
    parts.push(bytes.slice(eol + 2, eol + 2 + size));
    pos = eol + 2 + size + 2;
  }
  return concat(parts);
}

export { concat };

// ------------------------------------------------------------------------------ checks

/**
 * What must never reach a client: stack frames, source locations, file URLs and the server's own
 * directories. A marker the request itself carried (an echoed name) does not count.
 */
function leakMarkers(): (string | RegExp)[] {
  return [
    "/work/",
    "file://",
    "ext:core",
    "ext:deno",
    "node_modules",
    Deno.cwd(),
    /\.(?:ts|tsx|js|mjs):\d+/,
    /^\s+at \S/m,
    /\bat (?:async )?\S+ \((?:file|ext|node):/,
  ];
}

export interface CheckOptions {
  /** Directories of the server under test (its data dir): never in a body. */
  secretPaths?: string[];
  /** Accept this 5xx answer (the provider's spec-defined 501 "not supported"). */
  allow5xx?: (answer: FuzzAnswer) => boolean;
  /** Every 4xx must carry an error code (the drive, admin and public APIs do). */
  errorCode?: boolean;
}

/** Throws, naming the request and the answer, when an answer breaks a rule. */
export function checkAnswer(req: FuzzRequest, answer: FuzzAnswer, opts: CheckOptions = {}): void {
  if (answer.status >= 500 && !opts.allow5xx?.(answer)) {
    throw new Error(`a ${answer.status} answer:\n${describe(req, answer)}`);
  }
  if (!(answer.status >= 100 && answer.status < 600)) {
    throw new Error(`no valid status:\n${describe(req, answer)}`);
  }
  const sent = `${req.target}\n${req.headers.map(([k, v]) => `${k}: ${v}`).join("\n")}\n${
    typeof req.body === "string" ? req.body : new TextDecoder().decode(req.body ?? new Uint8Array())
  }`;
  for (const marker of [...leakMarkers(), ...(opts.secretPaths ?? [])]) {
    const found = typeof marker === "string"
      ? answer.text.includes(marker) && !sent.includes(marker)
      : marker.test(answer.text) && !marker.test(sent);
    if (found) {
      throw new Error(`the answer leaks ${String(marker)}:\n${describe(req, answer)}`);
    }
  }
  // Deno's HTTP layer answers a request head over its limit (64 KiB) with an empty 400 before
  // the app sees it: that refusal is the runtime's, not an app error without a code.
  const head = req.target.length + req.headers.reduce((n, [k, v]) => n + k.length + v.length, 0);
  const runtimeRefusal = head > 60_000 && answer.status === 400 && answer.text === "";
  // A HEAD answer has no body to carry a code (tus's HEAD, api/external/uploads.ts).
  if (
    opts.errorCode && answer.status >= 400 && !runtimeRefusal && req.method !== "HEAD" &&
    !/\b[A-Z][A-Z_]*_\d{3}\b/.test(answer.text)
  ) {
    throw new Error(`a ${answer.status} answer without an error code:\n${describe(req, answer)}`);
  }
}

/** The server still answers /healthz (after a property, and whenever a request failed). */
export async function assertAlive(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(FUZZ_TIMEOUT_MS) });
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`/healthz answered ${res.status} after the fuzz run`);
}
