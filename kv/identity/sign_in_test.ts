/**
 * Sign-in checks on :memory: KV, through the one guess throttle: a flood of wrong passwords on an
 * account from many addresses (past its ceiling) never keeps the rightful user out; a client
 * guessing over many accounts tightens only its own budgets; the try is counted by the login as
 * typed, so an unknown account is throttled exactly like a known one. The clock is Date.now,
 * stubbed per test.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { guessRateKey } from "../keys.ts";
import { domainTest, newUser, withClock } from "../testing.ts";
import { BUSY_FIRST_DELAY_MS, CEILING_PER_MINUTE, FREE_WRONG_PASSWORDS } from "./guess_throttle.ts";
import { setPassword } from "./passwords.ts";
import { checkSignIn } from "./sign_in.ts";

const PASSWORD = "violet-harbour-tandem-42";

/** "ok", "wrong", or the seconds to wait. */
async function attempt(d: Deps, login: string, password: string, client: string) {
  const r = await checkSignIn(d, login, password, client);
  if (r.ok) return "ok";
  return r.retryAfter > 0 ? r.retryAfter : "wrong";
}

/** What a flood of wrong passwords from many addresses in this minute leaves on `subject`. */
const flood = (d: Deps, subject: string, now: number) =>
  d.kv.set(guessRateKey(subject), {
    minute: Math.floor(now / 60_000),
    count: CEILING_PER_MINUTE,
    previous: 0,
  });

domainTest("a flood on an account never keeps its user out; unknown accounts alike", async (d) => {
  const u = await newUser(d, "ana");
  await setPassword(d.kv, u.userSeq, PASSWORD);
  await withClock(async (clock) => {
    clock.now = Math.floor(clock.now / 60_000) * 60_000 + 1000;
    // Free tries, then a wait: the same for a known and an unknown login.
    for (const login of ["ana", "nobody"]) {
      for (let i = 0; i < FREE_WRONG_PASSWORDS; i++) {
        assert.equal(await attempt(d, login, "wrong-guess-xyz", "203.0.113.9"), "wrong", login);
      }
      assert.equal(await attempt(d, login, "wrong-guess-xyz", "203.0.113.9"), 1, login);
    }
    // The account is flooded from everywhere: the user, from their own address, gets in at once.
    await flood(d, "account:ana", clock.now);
    assert.equal(await attempt(d, "ana", PASSWORD, "198.51.100.7"), "ok");
    // A typo from their address costs only the short busy wait.
    assert.equal(await attempt(d, "ANA ", "typo-typo-typo", "192.0.2.44"), "wrong");
    assert.equal(await attempt(d, "ana", PASSWORD, "192.0.2.44"), BUSY_FIRST_DELAY_MS / 1000);
    clock.now += BUSY_FIRST_DELAY_MS;
    assert.equal(await attempt(d, "ana", PASSWORD, "192.0.2.44"), "ok");
  });
});

domainTest("a client guessing over many accounts tightens its own budgets only", async (d) => {
  const u = await newUser(d, "bo");
  await setPassword(d.kv, u.userSeq, PASSWORD);
  await withClock(async (clock) => {
    clock.now = Math.floor(clock.now / 60_000) * 60_000 + 1000;
    await flood(d, "client:203.0.113.9", clock.now);
    // That client gets no free try on any account...
    assert.equal(await attempt(d, "bo", "wrong-guess-xyz", "203.0.113.9"), "wrong");
    assert.equal(await attempt(d, "bo", PASSWORD, "203.0.113.9"), BUSY_FIRST_DELAY_MS / 1000);
    // ...while everyone else keeps theirs.
    for (let i = 0; i < FREE_WRONG_PASSWORDS; i++) {
      assert.equal(await attempt(d, "bo", "wrong-guess-xyz", "198.51.100.7"), "wrong");
    }
    assert.equal(await attempt(d, "bo", PASSWORD, "192.0.2.1"), "ok");
  });
});
