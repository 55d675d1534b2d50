/**
 * One delivery attempt over HTTP, as the Standard Webhooks specification has it: POST of the JSON
 * body with `webhook-id` (the same on every attempt, so a receiver drops repeats),
 * `webhook-timestamp` (seconds, this attempt's) and `webhook-signature` (`v1,` and base64
 * HMAC-SHA256 of `id.timestamp.body`, made by the `standardwebhooks` package). The outbound rules
 * of webhook_target.ts apply: the configured URL only, checked before the attempt, no redirect
 * followed, and a time limit (DRIVE_WEBHOOK_TIMEOUT_MS) for the whole exchange.
 */
import { Webhook } from "standardwebhooks";
import { readHead } from "../../lib/bytes.ts";
import { reachProblem } from "./webhook_target.ts";

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

/** Reads at most RESPONSE_EXCERPT_BYTES of `res`'s body, then lets go of the rest. */
async function excerptOf(res: Response): Promise<string | null> {
  if (!res.body) return null;
  // A body cut short (or past the time limit) keeps what arrived.
  const bytes = await readHead(res.body, RESPONSE_EXCERPT_BYTES);
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

interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
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
  const url = new URL(req.url);
  const refused = await reachProblem(url, opts.allowPrivate);
  if (refused) return done(null, `refused by the outbound rules: ${refused}`);
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "drive-webhooks/1",
        ...signatureHeaders(req, new Date()),
      },
      body: req.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(opts.timeoutMs),
    });
    // The status decides; the first KiB of the body is kept for the attempt log, no more read.
    const response = await excerptOf(res);
    if (res.status >= 200 && res.status < 300) return done(res.status, null, response);
    if (res.status >= 300 && res.status < 400) {
      return done(res.status, `answered ${res.status}; redirects are not followed`, response);
    }
    return done(res.status, `answered ${res.status}`, response);
  } catch (err) {
    if (err instanceof DOMException && err.name === "TimeoutError") {
      return done(null, `no answer within ${opts.timeoutMs} ms`);
    }
    const message = err instanceof Error ? err.message : String(err);
    return done(null, `could not connect: ${message.slice(0, 200)}`);
  }
}
