import assert from "node:assert/strict";
import { attemptsOf, MAX_KEPT_ATTEMPTS, withAttempt } from "./webhook_attempts.ts";

const failed = { ok: false, status: 500, error: "answered 500", durationMs: 3, response: "no" };

Deno.test("a delivery keeps its latest attempts, newest first, up to the bound", () => {
  let log = withAttempt(undefined, "2026-01-01T00:00:00.000Z", failed, null);
  for (let i = 1; i < MAX_KEPT_ATTEMPTS + 5; i++) {
    log = withAttempt(log, new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), failed, null);
  }
  assert.equal(log.length, MAX_KEPT_ATTEMPTS);
  assert.equal(
    log[0].at,
    new Date(Date.UTC(2026, 0, 1, 0, 0, MAX_KEPT_ATTEMPTS + 4)).toISOString(),
  );
});

Deno.test("a record from before attempts were kept shows its last attempt", () => {
  const old = {
    attempts: 3,
    lastAttemptAt: "2026-01-01T00:00:00.000Z",
    lastStatus: 502,
    lastError: "answered 502",
    lastDurationMs: 12,
  };
  assert.deepEqual(attemptsOf(old), [{
    at: old.lastAttemptAt,
    status: 502,
    error: "answered 502",
    durationMs: 12,
    response: null,
    nextAttemptAt: null,
  }]);
  assert.deepEqual(attemptsOf({ ...old, attempts: 0, lastAttemptAt: null }), []);
});
