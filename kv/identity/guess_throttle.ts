/**
 * The one throttle of password guessing: share-link passwords (kv/sharing/share_links.ts),
 * sign-in passwords (kv/identity/sign_in.ts) and WebDAV sign-in (dav/auth.ts, where Basic auth
 * carries an app password or API key) all take their tries here, by the same policy.
 *   ["guess", subject, client]  -> GuessBudget (one client's tries on one subject; a try is
 *                                  counted before the check)
 *   ["guess_rate", subject]     -> GuessRate   (wrong passwords a minute on one subject, all
 *                                  clients)
 * A subject is what is guessed at: `link:<shareSeq>`, `account:<login>`; or `client:<name>`, a
 * client's wrong passwords over every account, which makes that client's own budgets tighter.
 *
 * Throttle the guesser, not the target. Each client (an IP address, or an IPv6 /64, named by the
 * edge) has its own budget per subject: FREE_WRONG_PASSWORDS tries, then a wait that doubles from
 * FIRST_DELAY_MS up to MAX_DELAY_MS; a right password clears it. So whoever floods a link or an
 * account with wrong passwords locks out only themselves.
 *
 * Across all clients a subject has a ceiling, CEILING_PER_MINUTE wrong passwords a minute. Above
 * it the subject is "busy": every client's budget tightens (no free tries; each wrong password
 * costs a wait from BUSY_FIRST_DELAY_MS, doubling), which slows guessing from many addresses.
 * The ceiling deliberately never refuses a try by itself: a client that has not guessed wrong
 * still gets its try at once and a right password still gets in. A global refusal is what an
 * attacker could keep triggering forever to lock the rightful user out, so a busy subject costs
 * them at most the wait after their own typo (BUSY_FIRST_DELAY_MS).
 *
 * Both live in KV, so every process of the service shares them. expireIn removes the records
 * only lazily, so each also carries its own timestamps and a stale one is read as absent.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { guessKey, guessRateKey } from "../keys.ts";

/** Wrong passwords a client may try at once before it must wait. */
export const FREE_WRONG_PASSWORDS = 5;
/** The wait after the last free try; each further wrong password doubles it. */
const FIRST_DELAY_MS = 1000;
/** The longest a client ever waits between two tries. */
export const MAX_DELAY_MS = 15 * 60 * 1000;
/** A budget with no try for this long starts over (longer than MAX_DELAY_MS, so waiting out the
 * longest delay does not earn new free tries). */
export const FORGET_AFTER_MS = 60 * 60 * 1000;
/** Wrong passwords a minute on one subject, over all clients, above which it is busy. */
export const CEILING_PER_MINUTE = 100;
/** On a busy subject, the wait after a client's first wrong password; it doubles from there. */
export const BUSY_FIRST_DELAY_MS = 5000;

const MINUTE_MS = 60_000;

/** One client's password tries on one subject. */
export interface GuessBudget {
  /** Tries taken and not cleared by a right password (wrong ones, and any still being checked). */
  tries: number;
  /** No further try before this time (ms since the epoch). */
  blockedUntil: number;
  /** When the last try was taken; FORGET_AFTER_MS later the budget is fresh again. */
  lastTryAt: number;
}

/** Wrong passwords on one subject in the current and the previous minute, all clients. */
export interface GuessRate {
  /** The current minute (ms since the epoch / 60 000). */
  minute: number;
  count: number;
  /** The count of minute - 1. */
  previous: number;
}

/** What is guessed at and who guesses; `alsoBusy` subjects tighten the budget too. */
export interface Guesser {
  subject: string;
  client: string;
  /** Further rate subjects whose ceiling makes this budget busy (e.g. the client's own rate). */
  alsoBusy?: readonly string[];
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

/** Wrong passwords on any of `subjects` in the last 60 s reach the ceiling (two fixed minutes). */
async function isBusy(kv: Deno.Kv, subjects: readonly string[], now: number): Promise<boolean> {
  const minute = Math.floor(now / MINUTE_MS);
  const elapsed = (now - minute * MINUTE_MS) / MINUTE_MS;
  const entries = await kv.getMany<GuessRate[]>(subjects.map((s) => guessRateKey(s)));
  return entries.some((e) => {
    const rate = rateAt(e.value, minute);
    return rate.count + rate.previous * (1 - elapsed) >= CEILING_PER_MINUTE;
  });
}

/** Seconds until the client may try another password on the subject, or 0. */
export async function guessRetryAfter(kv: Deno.Kv, g: Guesser): Promise<number> {
  return (await guessCheck(kv, g)).retryAfter;
}

/**
 * One read: the seconds until the client may try again (or 0), and whether it has tries on
 * record (then a right password should clearGuesses). For checks on every request (WebDAV
 * sign-in), where taking a try before each check would cost a commit per request.
 */
export async function guessCheck(
  kv: Deno.Kv,
  g: Guesser,
): Promise<{ retryAfter: number; tried: boolean }> {
  const now = Date.now();
  const budget = liveBudget(await kv.get<GuessBudget>(guessKey(g.subject, g.client)), now);
  const retryAfter = budget && now < budget.blockedUntil ? seconds(budget.blockedUntil - now) : 0;
  return { retryAfter, tried: budget !== null };
}

/**
 * Takes one try from the client's budget before the password is checked, as if it were wrong,
 * so requests arriving together cannot all pass a check made before any of them was counted.
 * Returns the seconds to wait when the client must wait (nothing taken), or 0.
 */
export async function takeGuess(kv: Deno.Kv, g: Guesser): Promise<number> {
  const busy = await isBusy(kv, [g.subject, ...(g.alsoBusy ?? [])], Date.now());
  return commitWithRetry(async () => {
    const key = guessKey(g.subject, g.client);
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

/** A right password: the client's budget on the subject starts over. */
export async function clearGuesses(kv: Deno.Kv, g: Guesser): Promise<void> {
  await kv.delete(guessKey(g.subject, g.client));
}

class RateNotCounted extends Error {}

/**
 * Counts a wrong password towards the ceilings of `subjects`. The count only decides whether a
 * subject is busy, so under contention so heavy that the retries run out it is dropped rather
 * than turning the caller's "wrong password" into another error.
 */
export async function countWrongGuess(kv: Deno.Kv, subjects: readonly string[]): Promise<void> {
  for (const subject of subjects) {
    const key = guessRateKey(subject);
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
}
