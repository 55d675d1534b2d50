/**
 * Sessions on :memory: KV: the idle timeout (a request within it keeps a session alive), the
 * absolute lifetime (however active), and what voids a session (a password set, disabling, a
 * replaced id at sign-in). The clock is Date.now, stubbed per test.
 */
import assert from "node:assert/strict";
import { domainTest, newUser, withClock } from "../testing.ts";
import { endSession, listSessions, startSession, verifySession } from "./sessions.ts";
import { setPassword } from "./passwords.ts";
import { getUser, setUserDisabled } from "./users.ts";

const MINUTE = 60_000;
const info = { userAgent: "test", address: "127.0.0.1", via: "password" as const };

domainTest(
  "sessions: the idle timeout, kept off by requests, and the absolute lifetime",
  async (d) => {
    const { sessionIdleMs, sessionLifetimeMs } = d.config;
    assert.equal(sessionIdleMs, 2 * 60 * MINUTE);
    assert.equal(sessionLifetimeMs, 7 * 24 * 60 * MINUTE);
    const u = await newUser(d, "ana");
    await withClock(async (clock) => {
      // Idle: one request within the timeout keeps it; nothing for the whole timeout ends it.
      const idle = await startSession(d, u.userSeq, info);
      clock.now += sessionIdleMs - MINUTE;
      assert.ok(await verifySession(d, idle.sessionId), "a request within the idle timeout");
      clock.now += sessionIdleMs - MINUTE;
      assert.ok(await verifySession(d, idle.sessionId), "the last request moved the idle end");
      clock.now += sessionIdleMs;
      assert.equal(await verifySession(d, idle.sessionId), null, "idle too long");

      // Absolute: a request every hour does not carry it past its lifetime.
      const busy = await startSession(d, u.userSeq, info);
      const end = busy.session.expiresAt;
      while (clock.now + 60 * MINUTE < end) {
        clock.now += 60 * MINUTE;
        assert.ok(await verifySession(d, busy.sessionId));
      }
      clock.now = end;
      assert.equal(await verifySession(d, busy.sessionId), null, "past its lifetime");
      assert.deepEqual(await listSessions(d.kv, d.config, (await getUser(d.kv, u.userSeq))!), []);
    });
  },
);

domainTest(
  "sessions: a password set, disabling, sign-out and a replaced id void them",
  async (d) => {
    const u = await newUser(d, "bo");
    const a = await startSession(d, u.userSeq, info);
    const b = await startSession(d, u.userSeq, info);
    assert.equal((await listSessions(d.kv, d.config, u)).length, 2);
    await endSession(d.kv, a.sessionId);
    assert.equal(await verifySession(d, a.sessionId), null);
    assert.ok(await verifySession(d, b.sessionId));

    await setPassword(d.kv, u.userSeq, "violet-harbour-tandem-42");
    assert.equal(await verifySession(d, b.sessionId), null, "a password set ends every session");
    const c = await startSession(d, u.userSeq, info);
    assert.ok(await verifySession(d, c.sessionId), "a session started after it works");

    // Starting a session with the id held before deletes that one (fixation).
    const e = await startSession(d, u.userSeq, { ...info, replaces: c.sessionId });
    assert.equal(await verifySession(d, c.sessionId), null);
    assert.ok(await verifySession(d, e.sessionId));

    await setUserDisabled(d.kv, u.userSeq, true);
    assert.equal(await verifySession(d, e.sessionId), null, "disabling ends it");
    await setUserDisabled(d.kv, u.userSeq, false);
    assert.equal(await verifySession(d, e.sessionId), null, "enabling does not revive it");
    assert.equal(await verifySession(d, "not-a-session-id"), null);
  },
);
