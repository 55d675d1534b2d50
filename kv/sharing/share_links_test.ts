/**
 * Share-link password budgets, on :memory: KV: each client's budget and its growing waits, and
 * the per-link ceiling that slows guessing without locking out a visitor with the password.
 * The clock is Date.now, stubbed per test (the tests of one file run one after another).
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { guessRateKey } from "../keys.ts";
import { assertFails, domainTest, newFolder, newShare, newUser, withClock } from "../testing.ts";
import { shareFlags } from "../../tests/helpers/api.ts";
import { grantLinkAccess, passwordRetryAfter } from "./share_links.ts";
import {
  BUSY_FIRST_DELAY_MS,
  CEILING_PER_MINUTE,
  FORGET_AFTER_MS,
  FREE_WRONG_PASSWORDS,
  guessDelayMs,
  MAX_DELAY_MS,
} from "../identity/guess_throttle.ts";
import type { Share } from "./shares.ts";

const PASSWORD = "correct horse";

async function passwordLink(d: Deps): Promise<Share> {
  const owner = await newUser(d, "olivia");
  const folder = await newFolder(d, owner, "Locked");
  return await newShare(d, owner, folder, {
    st: "PUBLIC_LINK",
    ...shareFlags(),
    password: PASSWORD,
  });
}

/** One password try by `client`: "granted", "wrong" (LINK_001) or the seconds to wait. */
async function attempt(
  d: Deps,
  share: Share,
  password: string,
  client: string,
): Promise<"granted" | "wrong" | number> {
  try {
    const out = await grantLinkAccess(d.kv, share, password, client);
    return "retryAfter" in out ? out.retryAfter : "granted";
  } catch (err) {
    if ((err as { code?: string }).code === "LINK_001") return "wrong";
    throw err;
  }
}

Deno.test("guessDelayMs: free tries, then doubling from 1 s to the 15 min cap; busy starts at 5 s", () => {
  const normal = Array.from({ length: 16 }, (_, i) => guessDelayMs(i + 1, false));
  assert.deepEqual(
    normal.map((ms) => ms / 1000),
    [0, 0, 0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900],
  );
  const busy = Array.from({ length: 10 }, (_, i) => guessDelayMs(i + 1, true));
  assert.deepEqual(busy.map((ms) => ms / 1000), [5, 10, 20, 40, 80, 160, 320, 640, 900, 900]);
  assert.equal(guessDelayMs(10_000, false), MAX_DELAY_MS);
});

domainTest(
  "a client's own wrong passwords grow its wait; a right one starts it over",
  async (d) => {
    const share = await passwordLink(d);
    await withClock(async (clock) => {
      for (let i = 0; i < FREE_WRONG_PASSWORDS; i++) {
        assert.equal(await attempt(d, share, "wrong", "198.51.100.7"), "wrong", `try ${i + 1}`);
      }
      // Each further try waits twice as long as the one before, the wait shown as Retry-After.
      for (const waitS of [1, 2, 4, 8]) {
        assert.equal(await passwordRetryAfter(d.kv, share.shareSeq, "198.51.100.7"), waitS);
        assert.equal(await attempt(d, share, PASSWORD, "198.51.100.7"), waitS);
        clock.now += waitS * 1000 - 1;
        assert.equal(await attempt(d, share, "wrong", "198.51.100.7"), 1, "1 ms still to wait");
        clock.now += 1;
        assert.equal(await attempt(d, share, "wrong", "198.51.100.7"), "wrong");
      }
      assert.equal(await passwordRetryAfter(d.kv, share.shareSeq, "198.51.100.7"), 16);
      // Another client of the same link is not affected.
      assert.equal(await passwordRetryAfter(d.kv, share.shareSeq, "203.0.113.9"), 0);
      assert.equal(await attempt(d, share, PASSWORD, "203.0.113.9"), "granted");

      // The right password, once the wait is over, opens the link and clears the budget.
      clock.now += 16_000;
      assert.equal(await attempt(d, share, PASSWORD, "198.51.100.7"), "granted");
      for (let i = 0; i < FREE_WRONG_PASSWORDS; i++) {
        assert.equal(await attempt(d, share, "wrong", "198.51.100.7"), "wrong");
      }
      assert.equal(await attempt(d, share, "wrong", "198.51.100.7"), 1);
    });
  },
);

domainTest(
  "a budget is forgotten an hour after its last try, not after the longest wait",
  async (d) => {
    const share = await passwordLink(d);
    await withClock(async (clock) => {
      for (let i = 0; i < FREE_WRONG_PASSWORDS; i++) await attempt(d, share, "wrong", "a");
      clock.now += 1000;
      assert.equal(await attempt(d, share, "wrong", "a"), "wrong");
      // Waiting out the wait does not earn free tries: the next wrong one waits longer still.
      clock.now += 2000;
      assert.equal(await attempt(d, share, "wrong", "a"), "wrong");
      assert.equal(await passwordRetryAfter(d.kv, share.shareSeq, "a"), 4);
      clock.now += FORGET_AFTER_MS;
      assert.equal(await passwordRetryAfter(d.kv, share.shareSeq, "a"), 0);
      for (let i = 0; i < FREE_WRONG_PASSWORDS; i++) {
        assert.equal(await attempt(d, share, "wrong", "a"), "wrong");
      }
    });
  },
);

domainTest("concurrent tries of one client are counted before any is checked", async (d) => {
  const share = await passwordLink(d);
  const burst = await Promise.all(
    Array.from({ length: 12 }, () => attempt(d, share, "wrong", "198.51.100.7")),
  );
  assert.equal(burst.filter((r) => r === "wrong").length, FREE_WRONG_PASSWORDS, String(burst));
  assert.ok(burst.every((r) => r === "wrong" || r === 1), String(burst));
});

domainTest("wrong passwords count towards the link's ceiling; right ones do not", async (d) => {
  const share = await passwordLink(d);
  for (const client of ["a", "b", "c"]) await attempt(d, share, "wrong", client);
  await attempt(d, share, PASSWORD, "d");
  const rate = (await d.kv.get<{ count: number }>(guessRateKey(`link:${share.shareSeq}`))).value;
  assert.equal(rate?.count, 3);
});

domainTest(
  "over the link's ceiling every wrong password costs a wait, yet the password opens at once",
  async (d) => {
    const share = await passwordLink(d);
    await withClock(async (clock) => {
      // One second into a minute, so the steps below stay inside it.
      clock.now = Math.floor(clock.now / 60_000) * 60_000 + 1000;
      // A flood from many addresses in the last minute (what counting CEILING_PER_MINUTE
      // wrong passwords would leave; checking that many scrypt hashes here would take seconds).
      await d.kv.set(guessRateKey(`link:${share.shareSeq}`), {
        minute: Math.floor(clock.now / 60_000),
        count: CEILING_PER_MINUTE,
        previous: 0,
      });
      // A new address gets no free tries: its first wrong password already costs 5 s, then 10 s.
      assert.equal(await attempt(d, share, "wrong", "203.0.113.1"), "wrong");
      assert.equal(await attempt(d, share, "wrong", "203.0.113.1"), BUSY_FIRST_DELAY_MS / 1000);
      clock.now += BUSY_FIRST_DELAY_MS;
      assert.equal(await attempt(d, share, "wrong", "203.0.113.1"), "wrong");
      assert.equal(await passwordRetryAfter(d.kv, share.shareSeq, "203.0.113.1"), 10);

      // The rightful visitor, from an address of its own, is never made to wait by the flood.
      assert.equal(await attempt(d, share, PASSWORD, "198.51.100.7"), "granted");
      // A visitor's own typo costs the short busy wait, after which the password opens the link.
      assert.equal(await attempt(d, share, "typo", "192.0.2.44"), "wrong");
      assert.equal(await attempt(d, share, PASSWORD, "192.0.2.44"), BUSY_FIRST_DELAY_MS / 1000);
      clock.now += BUSY_FIRST_DELAY_MS;
      assert.equal(await attempt(d, share, PASSWORD, "192.0.2.44"), "granted");

      // Two minutes after the flood the link is no longer busy: the free tries are back.
      clock.now += 120_000;
      for (let i = 0; i < FREE_WRONG_PASSWORDS - 1; i++) {
        assert.equal(await attempt(d, share, "wrong", "203.0.113.2"), "wrong");
      }
      assert.equal(await attempt(d, share, "wrong", "203.0.113.2"), "wrong");
      assert.equal(await passwordRetryAfter(d.kv, share.shareSeq, "203.0.113.2"), 1);
    });
  },
);

domainTest("an ORG_LINK takes no password tries", async (d) => {
  const owner = await newUser(d, "oscar");
  const share = await newShare(d, owner, await newFolder(d, owner, "Org"), {
    st: "ORG_LINK",
    ...shareFlags(),
    password: PASSWORD,
  });
  await assertFails(grantLinkAccess(d.kv, share, PASSWORD, "a"), "LINK_003");
});
