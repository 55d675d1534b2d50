/**
 * Share links (ORG_LINK, PUBLIC_LINK): resolving a token, the API-key lookup, and anonymous
 * access through the public link page.
 *   ["link_access", sha256(accessToken)]  -> LinkAccess  (after a correct password, ~1 h)
 *   ["link_guess", shareSeq, client]      -> GuessBudget (one client's password tries; a try is
 *                                                        counted before the check)
 *   ["link_guess_rate", shareSeq]         -> GuessRate   (wrong passwords a minute, all clients)
 * A token resolves only while its share exists, is still a link type and has not expired, and
 * while its owner and the owner's tenant are enabled (LINK_005 otherwise; the link comes back
 * when an administrator enables them).
 * Anonymous visitors get PUBLIC_LINK shares only (an ORG_LINK needs a signed-in member of the
 * owner's tenant: LINK_003); with a password they first trade it for an access token.
 */
import {
  accessIfVisible,
  authorizeLinkOpen,
  type Caller,
  NO_PERMISSIONS,
  type Permissions,
} from "./authorize.ts";
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { fail } from "../errors.ts";
import { verifyPassword } from "../../lib/passwords.ts";
import { loadPath, type Resource } from "../tree/resources.ts";
import { accountDisabledReason, getUser } from "../identity/users.ts";
import { randomToken, sha256Hex } from "../../lib/secrets.ts";
import { recordLinkVisit } from "./shared_list.ts";
import {
  getShare,
  intersectFlags,
  isExpired,
  LINK_TYPES,
  policyCap,
  policyOf,
  type Share,
  type ShareFlags,
} from "./shares.ts";
import { linkAccessKey, linkGuessKey, linkGuessRateKey, shareLinkKey } from "../keys.ts";

const LINK_ACCESS_TTL_MS = 60 * 60 * 1000;

interface LinkAccess {
  shareSeq: number;
  passwordSetAt: number | null;
  expiresAt: number;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The live link share of `token`, or SHARE_007 (unknown, revoked or expired). */
export async function resolveLinkToken(kv: Deno.Kv, token: string): Promise<Share> {
  const seq = TOKEN_PATTERN.test(token)
    ? (await kv.get<number>(shareLinkKey(sha256Hex(token)))).value
    : null;
  const share = seq === null ? null : await getShare(kv, seq);
  // The key is the token's hash, so a hit means the token matched; the type and expiry decide.
  if (!share || share.linkToken === null || !LINK_TYPES.has(share.type) || isExpired(share)) {
    fail("SHARE_007", "Unknown, revoked or expired share link", "token");
  }
  const owner = await getUser(kv, share.ownerSeq);
  const disabled = owner ? await accountDisabledReason(kv, owner) : null;
  if (disabled) {
    fail("LINK_005", `The link does not work while its owner is disabled (${disabled})`);
  }
  return share;
}

/** The link's resource when nothing on its path is in the trash; otherwise SHARE_007. */
async function linkRoot(kv: Deno.Kv, share: Share): Promise<Resource[]> {
  const loaded = await loadPath(kv, share.rs);
  if (!loaded || loaded.trashed) {
    fail("SHARE_007", "The shared resource is no longer available", "token");
  }
  return loaded.path;
}

/**
 * GET /shares/link/{token}: the key's account must be able to view the resource (through this
 * link, which it now presents, or any other share, or as owner), otherwise PERMISSION_002.
 * Opening records the visit (from then on a PUBLIC_LINK reaches this account through the API)
 * and lists the resource in the account's shared-with-me list.
 */
export async function lookupLinkForCaller(
  kv: Deno.Kv,
  caller: Caller,
  token: string,
): Promise<{ share: Share; resource: Resource; permissions: Permissions }> {
  const share = await resolveLinkToken(kv, token);
  const path = await linkRoot(kv, share);
  await authorizeLinkOpen(kv, caller, share, path);
  await recordLinkVisit(kv, share, caller, path[0]);
  // Asked again: the recorded visit is what lets a PUBLIC_LINK reach the account.
  const access = await accessIfVisible(kv, caller, { path, trashed: false });
  return { share, resource: path[0], permissions: access?.permissions ?? NO_PERMISSIONS };
}

// ---------------------------------------------------------------- anonymous access

export interface AnonymousLink {
  share: Share;
  resource: Resource;
  /** What an anonymous visitor may do (share flags within the tenant policy). */
  flags: ShareFlags;
  passwordRequired: boolean;
  /** True when the visitor may see the resource (no password, or a valid access token). */
  unlocked: boolean;
}

async function accessIsValid(kv: Deno.Kv, share: Share, accessToken: string | undefined) {
  if (!accessToken || !TOKEN_PATTERN.test(accessToken)) return false;
  const rec = (await kv.get<LinkAccess>(linkAccessKey(sha256Hex(accessToken)))).value;
  return rec !== null && rec.shareSeq === share.shareSeq && rec.expiresAt > Date.now() &&
    rec.passwordSetAt === share.passwordSetAt;
}

/** What the public page may show for `token` (no credentials other than the token). */
export async function describeLink(
  kv: Deno.Kv,
  token: string,
  accessToken: string | undefined,
): Promise<AnonymousLink> {
  const share = await resolveLinkToken(kv, token);
  const path = await linkRoot(kv, share);
  const policy = await policyOf(kv, share.tenantId);
  const flags = intersectFlags(policyCap(policy, share.type), share.flags);
  if (!flags.cv) fail("SHARE_007", "The share no longer grants anything", "token");
  const passwordRequired = share.passwordHash !== null;
  const unlocked = share.type === "PUBLIC_LINK" &&
    (!passwordRequired || await accessIsValid(kv, share, accessToken));
  return { share, resource: path[0], flags, passwordRequired, unlocked };
}

/** Like describeLink, but fails unless the visitor may see the content. */
export async function requireLinkAccess(
  kv: Deno.Kv,
  token: string,
  accessToken: string | undefined,
): Promise<AnonymousLink> {
  const link = await describeLink(kv, token, accessToken);
  if (link.share.type === "ORG_LINK") {
    fail("LINK_003", "Open this link signed in as a member of the owner's organization");
  }
  if (!link.unlocked) fail("LINK_004", "Send the access token from POST .../access", "access");
  return link;
}

// ---------------------------------------------------------------- password guessing
//
// Throttle the guesser, not the link. Each client (an IP address, or an IPv6 /64, named by the
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
async function linkIsBusy(kv: Deno.Kv, shareSeq: number, now: number): Promise<boolean> {
  const minute = Math.floor(now / MINUTE_MS);
  const rate = rateAt((await kv.get<GuessRate>(linkGuessRateKey(shareSeq))).value, minute);
  const elapsed = (now - minute * MINUTE_MS) / MINUTE_MS;
  return rate.count + rate.previous * (1 - elapsed) >= LINK_CEILING_PER_MINUTE;
}

/** Seconds until `client` may try another password on this link, or 0. */
export async function passwordRetryAfter(
  kv: Deno.Kv,
  shareSeq: number,
  client: string,
): Promise<number> {
  const now = Date.now();
  const budget = liveBudget(await kv.get<GuessBudget>(linkGuessKey(shareSeq, client)), now);
  return budget && now < budget.blockedUntil ? seconds(budget.blockedUntil - now) : 0;
}

/**
 * Takes one try from the client's budget before the password is checked, as if it were wrong,
 * so requests arriving together cannot all pass a check made before any of them was counted.
 * Returns the seconds to wait when the client must wait (nothing taken), or 0.
 */
async function takeTry(kv: Deno.Kv, shareSeq: number, client: string): Promise<number> {
  const busy = await linkIsBusy(kv, shareSeq, Date.now());
  return commitWithRetry(async () => {
    const key = linkGuessKey(shareSeq, client);
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
async function clearTries(kv: Deno.Kv, shareSeq: number, client: string): Promise<void> {
  await kv.delete(linkGuessKey(shareSeq, client));
}

class RateNotCounted extends Error {}

/**
 * Counts a wrong password towards the link's ceiling. The count only decides whether the link
 * is busy, so under contention so heavy that the retries run out it is dropped rather than
 * turning the visitor's LINK_001 into another error.
 */
async function countWrongPassword(kv: Deno.Kv, shareSeq: number): Promise<void> {
  const key = linkGuessRateKey(shareSeq);
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

/**
 * Trades the link password for an access token. `client` names who is asking (the edge derives
 * it from the peer address, see api/http/client_address.ts). The caller checks
 * passwordRetryAfter first; the try itself is taken from the client's budget before the password
 * is checked ({retryAfter} when the client must wait, answered LINK_002 with Retry-After); a
 * wrong password fails with LINK_001.
 */
export async function grantLinkAccess(
  kv: Deno.Kv,
  share: Share,
  password: string,
  client: string,
): Promise<{ accessToken: string; expiresAt: number } | { retryAfter: number }> {
  if (share.type !== "PUBLIC_LINK") {
    fail("LINK_003", "Open this link signed in as a member of the owner's organization");
  }
  if (share.passwordHash !== null) {
    const retryAfter = await takeTry(kv, share.shareSeq, client);
    if (retryAfter > 0) return { retryAfter };
    if (!(await verifyPassword(password, share.passwordHash))) {
      await countWrongPassword(kv, share.shareSeq);
      fail("LINK_001", "Wrong password for this link", "password");
    }
    await clearTries(kv, share.shareSeq, client);
  }
  const accessToken = randomToken(32);
  const expiresAt = Date.now() + LINK_ACCESS_TTL_MS;
  const rec: LinkAccess = {
    shareSeq: share.shareSeq,
    passwordSetAt: share.passwordSetAt,
    expiresAt,
  };
  await kv.set(linkAccessKey(sha256Hex(accessToken)), rec, { expireIn: LINK_ACCESS_TTL_MS });
  return { accessToken, expiresAt };
}

/**
 * A resource inside the link's subtree (the shared resource itself or below it), or
 * RESOURCE_002 for anything else, so a link never reveals what lies outside it.
 */
export async function resourceInLink(
  kv: Deno.Kv,
  share: Share,
  resourceSeq: number,
  field: string,
): Promise<{ resource: Resource; path: Resource[] }> {
  const loaded = await loadPath(kv, resourceSeq);
  const inside = loaded && !loaded.trashed && loaded.path.findIndex((r) => r.rs === share.rs);
  if (!loaded || inside === false || inside === null || inside < 0) {
    fail("RESOURCE_002", `No file or folder with seq ${resourceSeq} in this link`, field);
  }
  // The path from the shared root down to the resource.
  return { resource: loaded.path[0], path: loaded.path.slice(0, inside + 1).reverse() };
}
