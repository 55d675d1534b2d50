/**
 * One delivery attempt over HTTP, as the Standard Webhooks specification has it: POST of the JSON
 * body with `webhook-id` (the same on every attempt, so a receiver drops repeats),
 * `webhook-timestamp` (seconds, this attempt's) and `webhook-signature` (`v1,` and base64
 * HMAC-SHA256 of `id.timestamp.body`, made by the `standardwebhooks` package). The outbound rules
 * of webhook_target.ts apply: the configured URL only, its host resolved and vetted once before
 * the attempt and the connection pinned to the vetted addresses, no redirect followed, and a time
 * limit (DRIVE_WEBHOOK_TIMEOUT_MS) for the whole exchange, lookup included.
 *
 * Why undici and not fetch: fetch resolves the host itself, so a name could answer a public
 * address to the check and 127.0.0.1 to the connection (DNS rebinding). undici (the Node.js
 * project's HTTP client; runs on Deno through npm:) takes the connection's `lookup`, so the
 * socket goes to the vetted address while the Host header and the TLS server name (SNI and the
 * certificate check) stay the URL's name. Deno's own options do not fit: createHttpClient has no
 * resolver, and its `proxy: { transport: "tcp" }` speaks plain proxy HTTP even for https URLs;
 * Deno.connect + Deno.startTls would pin too, but leave HTTP/1.1 framing to hand-written code.
 * Through this client, HTTP(S)_PROXY variables do not apply to webhooks (a proxy would resolve
 * the name itself, out of reach of the check).
 */
import { Agent, request } from "undici";
import { Webhook } from "standardwebhooks";
import { concatBytes } from "../../lib/bytes.ts";
import { type Resolver, systemResolver, vetTarget } from "./webhook_target.ts";

export interface AttemptOutcome {
  ok: boolean;
  /** The HTTP status answered, or null when there was no answer. */
  status: number | null;
  /** Why it failed, in words (never the response body, which the receiver controls). */
  error: string | null;
  durationMs: number;
  /**
   * The first RESPONSE_EXCERPT_BYTES of the answer's body, as text, for the administrator to
   * read; null when there was no answer or no body.
   */
  response: string | null;
}

/** How much of an answer's body an attempt keeps: 1 KiB; the rest is never read. */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** Reads at most RESPONSE_EXCERPT_BYTES of `body`, then lets go of the rest. */
async function excerptOf(body: AsyncIterable<Uint8Array>): Promise<string | null> {
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    // Leaving the loop early destroys the stream: the rest is never read.
    for await (const chunk of body) {
      parts.push(chunk);
      size += chunk.byteLength;
      if (size >= RESPONSE_EXCERPT_BYTES) break;
    }
  } catch {
    // A body cut short (or past the time limit) keeps what arrived.
  }
  const bytes = concatBytes(parts).subarray(0, RESPONSE_EXCERPT_BYTES);
  // A character cut at the limit is dropped rather than shown as a replacement mark.
  const text = new TextDecoder().decode(bytes).replace(/\uFFFD$/, "");
  return text === "" ? null : text;
}

export interface SignedRequest {
  url: string;
  /** The Standard Webhooks signing secret (`whsec_...`). */
  secret: string;
  /** The message id: the `webhook-id` header. */
  messageId: string;
  payload: string;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** How the host is resolved; systemResolver unless a test fakes DNS. */
  resolve?: Resolver;
  /** Loopback stand-ins for internet addresses, so a test's receivers stay on 127.0.0.0/8. */
  treatAsPublic?: readonly string[];
  /** Extra trusted roots (PEM) beside the system's, for a test's self-signed receiver. */
  caCerts?: string[];
}

/**
 * A connection pool for one attempt whose every connection goes to `addresses` (already vetted):
 * its lookup answers them whatever name it is asked, so nothing resolves the host again. Literal
 * addresses skip the lookup and are the vetted address themselves.
 */
function pinnedAgent(addresses: readonly string[], caCerts?: string[]): Agent {
  const family = (address: string) => address.includes(":") ? 6 : 4;
  return new Agent({
    connect: {
      ...(caCerts ? { ca: caCerts } : {}),
      lookup: (_name, options, callback) => {
        if (options.all) {
          callback(null, addresses.map((address) => ({ address, family: family(address) })));
        } else callback(null, addresses[0], family(addresses[0]));
      },
    },
  });
}

/** `promise`, or the abort reason of `signal` once it fires. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The three Standard Webhooks headers for `req`, signed at `at`. */
function signatureHeaders(req: SignedRequest, at: Date): Record<string, string> {
  return {
    "webhook-id": req.messageId,
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": new Webhook(req.secret).sign(req.messageId, at, req.payload),
  };
}

export async function sendSigned(req: SignedRequest, opts: SendOptions): Promise<AttemptOutcome> {
  const started = performance.now();
  const done = (
    status: number | null,
    error: string | null,
    response: string | null = null,
  ): AttemptOutcome => ({
    ok: error === null,
    status,
    error,
    durationMs: Math.round(performance.now() - started),
    response,
  });
  const signal = AbortSignal.timeout(opts.timeoutMs);
  let agent: Agent | null = null;
  try {
    const target = await untilAborted(
      vetTarget(new URL(req.url), {
        allowPrivate: opts.allowPrivate,
        treatAsPublic: opts.treatAsPublic,
        resolve: opts.resolve ?? systemResolver,
      }),
      signal,
    );
    if ("problem" in target) return done(null, `refused by the outbound rules: ${target.problem}`);
    agent = pinnedAgent(target.addresses, opts.caCerts);
    // undici follows no redirect: a 3xx comes back as it is.
    const res = await request(target.url, {
      dispatcher: agent,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "drive-webhooks/1",
        ...signatureHeaders(req, new Date()),
      },
      body: req.payload,
      signal,
    });
    const status = res.statusCode;
    // The status decides; the first KiB of the body is kept for the attempt log, no more read.
    const response = await excerptOf(res.body);
    if (status >= 200 && status < 300) return done(status, null, response);
    if (status >= 300 && status < 400) {
      return done(status, `answered ${status}; redirects are not followed`, response);
    }
    return done(status, `answered ${status}`, response);
  } catch (err) {
    if (signal.aborted) return done(null, `no answer within ${opts.timeoutMs} ms`);
    const message = err instanceof Error ? err.message : String(err);
    return done(null, `could not connect: ${message.slice(0, 200)}`);
  } finally {
    // One pool per attempt: its sockets close now, nothing is kept for the next attempt.
    agent?.destroy().catch(() => {});
  }
}
