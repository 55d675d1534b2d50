/**
 * The password-guess throttle, one rule for every secret a client may guess: share-link passwords
 * (share_links.ts) and WebDAV sign-in, where Basic auth carries an API key as the password
 * (dav/auth.ts). A subject is what is guessed at: a link, or an account.
 *   ["link_guess", shareSeq, client]     -> GuessBudget (one client's tries; a try is counted
 *                                                       before the check)
 *   ["link_guess_rate", shareSeq]        -> GuessRate   (wrong guesses a minute, all clients)
 *   ["dav_guess", account, client]       -> GuessBudget (the same, for an account's sign-in)
 *   ["dav_guess_rate", account]          -> GuessRate
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { davGuessKey, davGuessRateKey, linkGuessKey, linkGuessRateKey } from "../keys.ts";

/** What is guessed at: a share link's password, or an account's WebDAV sign-in (lowercased). */
export type GuessSubject = { kind: "link"; shareSeq: number } | { kind: "dav"; account: string };

const budgetKey = (s: GuessSubject, client: string) =>
  s.kind === "link" ? linkGuessKey(s.shareSeq, client) : davGuessKey(s.account, client);
const rateKey = (s: GuessSubject) =>
  s.kind === "link" ? linkGuessRateKey(s.shareSeq) : davGuessRateKey(s.account);

// Throttle the guesser, not the subject (below: "link"). Each client (an IP address, or an IPv6 /64, named by the
// edge) has its own budget per link: FREE_WRONG_PASSWORDS tries, then a wait that doubles from
// FIRST_DELAY_MS up to MAX_DELAY_MS; a right password clears it. So whoever floods a link with
// wrong passwords locks out only themselves.
//
// Across all clients a link has a ceiling, LINK_CEILING_PER_MINUTE wrong passwords a minute.
// Above it the link is "busy": every client's budget tightens (no free tries; each wrong password
// costs a wait from BUSY_FIRST_DELAY_MS, doubling), which slows guessing from many addresses.
// The ceiling deliberately never refuses a try by itself: a client that has not guessed wrong
// still gets its try at once and a right password still opens the link. A global refusal is
// what an attacker could keep triggering forever to lock the rightful visitor out, so a busy
// link costs a visitor at most the wait after their own typo (BUSY_FIRST_DELAY_MS).
//
// Both live in KV, so every process of the service shares them. expireIn removes the records
// only lazily, so each also carries its own timestamps and a stale one is read as absent.

/** Wrong passwords a client may try at once before it must wait. */
export const FREE_WRONG_PASSWORDS = 5;
/** The wait after the last free try; each further wrong password doubles it. */
const FIRST_DELAY_MS = 1000;
/** The longest a client ever waits between two tries. */
export const MAX_DELAY_MS = 15 * 60 * 1000;
/** A budget with no try for this long starts over (longer than MAX_DELAY_MS, so waiting out the
 * longest delay does not earn new free tries). */
export const FORGET_AFTER_MS = 60 * 60 * 1000;
/** Wrong passwords a minute for one link, over all clients, above which the link is busy. */
export const LINK_CEILING_PER_MINUTE = 100;
/** On a busy link, the wait after a client's first wrong password; it doubles from there. */
export const BUSY_FIRST_DELAY_MS = 5000;

const MINUTE_MS = 60_000;

/** One client's password tries on one link. */
interface GuessBudget {
  /** Tries taken and not cleared by a right password (wrong ones, and any still being checked). */
  tries: number;
  /** No further try before this time (ms since the epoch). */
  blockedUntil: number;
  /** When the last try was taken; FORGET_AFTER_MS later the budget is fresh again. */
  lastTryAt: number;
}

/** Wrong passwords for one link in the current and the previous minute, all clients. */
interface GuessRate {
  /** The current minute (ms since the epoch / 60 000). */
  minute: number;
  count: number;
  /** The count of minute - 1. */
  previous: number;
}

/** How long a client must wait after its `tries`-th try, in ms. */
export function guessDelayMs(tries: number, busy: boolean): number {
  const normal = tries < FREE_WRONG_PASSWORDS
    ? 0
    : FIRST_DELAY_MS * 2 ** (tries - FREE_WRONG_PASSWORDS);
  const delay = busy ? Math.max(normal, BUSY_FIRST_DELAY_MS * 2 ** (tries - 1)) : normal;
  return Math.min(delay, MAX_DELAY_MS);
}

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

function liveBudget(entry: Deno.KvEntryMaybe<GuessBudget>, now: number): GuessBudget | null {
  return entry.value && now < entry.value.lastTryAt + FORGET_AFTER_MS ? entry.value : null;
}

/** The rate record moved on to `minute` (counts of minutes that passed dropped). */
function rateAt(rate: GuessRate | null, minute: number): GuessRate {
  if (rate?.minute === minute) return rate;
  if (rate?.minute === minute - 1) return { minute, count: 0, previous: rate.count };
  return { minute, count: 0, previous: 0 };
}

/** Wrong passwords for the link in the last 60 s, estimated from two fixed minutes. */
async function isBusy(kv: Deno.Kv, subject: GuessSubject, now: number): Promise<boolean> {
  const minute = Math.floor(now / MINUTE_MS);
  const rate = rateAt((await kv.get<GuessRate>(rateKey(subject))).value, minute);
  const elapsed = (now - minute * MINUTE_MS) / MINUTE_MS;
  return rate.count + rate.previous * (1 - elapsed) >= LINK_CEILING_PER_MINUTE;
}

/** Seconds until `client` may guess again at `subject`, or 0. */
export async function guessRetryAfter(
  kv: Deno.Kv,
  subject: GuessSubject,
  client: string,
): Promise<number> {
  return (await guessCheck(kv, subject, client)).retryAfter;
}

/**
 * One read: the seconds until `client` may guess again (or 0), and whether it has wrong guesses
 * on record (then a right guess should clearTries). For checks on every request (WebDAV
 * sign-in), where taking a try before each check would cost a commit per request.
 */
export async function guessCheck(
  kv: Deno.Kv,
  subject: GuessSubject,
  client: string,
): Promise<{ retryAfter: number; tried: boolean }> {
  const now = Date.now();
  const budget = liveBudget(await kv.get<GuessBudget>(budgetKey(subject, client)), now);
  const retryAfter = budget && now < budget.blockedUntil ? seconds(budget.blockedUntil - now) : 0;
  return { retryAfter, tried: budget !== null };
}

/**
 * Takes one try from the client's budget before the password is checked, as if it were wrong,
 * so requests arriving together cannot all pass a check made before any of them was counted.
 * Returns the seconds to wait when the client must wait (nothing taken), or 0.
 */
export async function takeTry(
  kv: Deno.Kv,
  subject: GuessSubject,
  client: string,
): Promise<number> {
  const busy = await isBusy(kv, subject, Date.now());
  return commitWithRetry(async () => {
    const key = budgetKey(subject, client);
    const cur = await kv.get<GuessBudget>(key);
    const now = Date.now();
    const budget = liveBudget(cur, now);
    if (budget && now < budget.blockedUntil) return seconds(budget.blockedUntil - now);
    const tries = (budget?.tries ?? 0) + 1;
    const next: GuessBudget = {
      tries,
      blockedUntil: now + guessDelayMs(tries, busy),
      lastTryAt: now,
    };
    const op = kv.atomic().check(cur).set(key, next, { expireIn: FORGET_AFTER_MS });
    return (await commit(op)) === true ? 0 : CONFLICT;
  });
}

/** A right password: the client's budget starts over. */
export async function clearTries(
  kv: Deno.Kv,
  subject: GuessSubject,
  client: string,
): Promise<void> {
  await kv.delete(budgetKey(subject, client));
}

class RateNotCounted extends Error {}

/**
 * Counts a wrong password towards the link's ceiling. The count only decides whether the link
 * is busy, so under contention so heavy that the retries run out it is dropped rather than
 * turning the visitor's LINK_001 into another error.
 */
export async function countWrongGuess(kv: Deno.Kv, subject: GuessSubject): Promise<void> {
  const key = rateKey(subject);
  try {
    await commitWithRetry(async () => {
      const cur = await kv.get<GuessRate>(key);
      const rate = rateAt(cur.value, Math.floor(Date.now() / MINUTE_MS));
      const next: GuessRate = { ...rate, count: rate.count + 1 };
      const op = kv.atomic().check(cur).set(key, next, { expireIn: 2 * MINUTE_MS });
      return (await commit(op)) === true ? undefined : CONFLICT;
    }, () => {
      throw new RateNotCounted();
    });
  } catch (err) {
    if (!(err instanceof RateNotCounted)) throw err;
  }
}
