/**
 * The attempts of a webhook delivery, as Svix and GitHub show them (docs/changes.md
 * "Webhooks"): each with its time, the status or the network error, its duration, the first KiB
 * of the answer and when the next try is due. A delivery keeps the MAX_KEPT_ATTEMPTS latest
 * (its `attempts` counts them all), so its KV value stays far below Deno KV's 64 KiB.
 */
import type { AttemptOutcome } from "./webhook_send.ts";

/** How many attempts a delivery keeps, newest first; older ones are dropped. */
export const MAX_KEPT_ATTEMPTS = 20;

export interface DeliveryAttempt {
  /** When the attempt began (ISO 8601). */
  at: string;
  /** The HTTP status answered; null when there was no answer. */
  status: number | null;
  /** Why it failed, in words (network error, timeout, non-2xx); null when it succeeded. */
  error: string | null;
  durationMs: number;
  /** The first RESPONSE_EXCERPT_BYTES of the answer's body, as text; null when none. */
  response: string | null;
  /** When the retry this failure scheduled is due; null when none was (success, or the end). */
  nextAttemptAt: string | null;
}

/** What a delivery record holds of its attempts (older records have no `attemptLog`). */
interface AttemptRecord {
  attempts: number;
  attemptLog?: DeliveryAttempt[];
  lastAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastDurationMs: number | null;
}

/** `log` with the attempt begun at `at` in front, bounded to MAX_KEPT_ATTEMPTS. */
export function withAttempt(
  log: readonly DeliveryAttempt[] | undefined,
  at: string,
  outcome: AttemptOutcome,
  nextAttemptAt: string | null,
): DeliveryAttempt[] {
  const attempt: DeliveryAttempt = {
    at,
    status: outcome.status,
    error: outcome.error,
    durationMs: outcome.durationMs,
    response: outcome.response,
    nextAttemptAt,
  };
  return [attempt, ...(log ?? [])].slice(0, MAX_KEPT_ATTEMPTS);
}

/**
 * The attempts of `record`, newest first. A record written before attempts were kept has only
 * its last one, rebuilt from the last* fields.
 */
export function attemptsOf(record: AttemptRecord): DeliveryAttempt[] {
  if (record.attemptLog) return record.attemptLog;
  if (record.attempts === 0 || record.lastAttemptAt === null) return [];
  return [{
    at: record.lastAttemptAt,
    status: record.lastStatus,
    error: record.lastError,
    durationMs: record.lastDurationMs ?? 0,
    response: null,
    nextAttemptAt: null,
  }];
}
