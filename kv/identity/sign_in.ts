/**
 * Checking a sign-in: an account (accountId or e-mail) and a password.
 *
 * Throttled by the same guess throttle as share-link passwords (kv/identity/guess_throttle.ts):
 * each client has its own budget per account (subject `account:<login>`), so someone else's
 * guesses never lock the rightful user out; an account with many wrong passwords a minute from
 * anywhere, or a client with many over all accounts (subject `client:<name>`), is "busy", which
 * tightens budgets without refusing a try by itself. The try is taken before the check.
 *
 * An unknown account, an account without a password and a wrong password give the same answer
 * (AUTH_007) after the same work: the budget is charged by the login as typed, and the password
 * is checked against a decoy scrypt hash when there is no real one.
 */
import { fail } from "../errors.ts";
import type { Deps } from "../deps.ts";
import { DECOY_HASH, verifyPassword } from "../../lib/passwords.ts";
import { clearGuesses, countWrongGuess, type Guesser, takeGuess } from "./guess_throttle.ts";
import { passwordHashOf } from "./passwords.ts";
import { passwordsAllowed } from "./oidc.ts";
import { accountDisabledReason, findUserByAccountId, findUserByEmail, type User } from "./users.ts";

/** Longest login accepted: an e-mail address can be 254 characters. */
const MAX_LOGIN = 320;

const guesserOf = (login: string, client: string): Guesser => ({
  subject: `account:${login.trim().toLowerCase().slice(0, MAX_LOGIN)}`,
  client,
  alsoBusy: [`client:${client}`],
});

async function userOf(kv: Deno.Kv, login: string): Promise<User | null> {
  const trimmed = login.trim();
  return trimmed.includes("@")
    ? (await findUserByEmail(kv, trimmed)) ?? await findUserByAccountId(kv, trimmed)
    : (await findUserByAccountId(kv, trimmed)) ?? await findUserByEmail(kv, trimmed);
}

/** How a sign-in check ended; `user` is whom the login named (null: nobody), for the log. */
export type SignInCheck =
  | { ok: true; user: User }
  | { ok: false; retryAfter: number; user: User | null }
  | { ok: false; retryAfter: 0; user: User | null; wrong: true };

/**
 * The user `login` names when `password` is theirs; {retryAfter} when the client must wait
 * first (answered AUTH_008 with Retry-After); {wrong} otherwise (answered AUTH_007, the same for
 * an unknown account). A disabled user or tenant with the right password is AUTH_006: they proved
 * who they are, so they are told why.
 */
export async function checkSignIn(
  d: Pick<Deps, "kv" | "passwordTurns">,
  login: string,
  password: string,
  client: string,
): Promise<SignInCheck> {
  const { kv } = d;
  const guesser = guesserOf(login, client);
  const retryAfter = await takeGuess(kv, guesser);
  const user = await userOf(kv, login);
  if (retryAfter > 0) return { ok: false, retryAfter, user };
  const hash = user ? await passwordHashOf(kv, user.userSeq) : null;
  const ok = await d.passwordTurns(() => verifyPassword(password, hash ?? DECOY_HASH));
  if (!ok || !user || hash === null) {
    await countWrongGuess(kv, [guesser.subject, `client:${client}`]);
    return { ok: false, retryAfter: 0, user, wrong: true };
  }
  await clearGuesses(kv, guesser);
  const disabled = await accountDisabledReason(kv, user);
  if (disabled) fail("AUTH_006", `You cannot sign in: ${disabled}`);
  // After the right password only, so it tells a guesser nothing.
  if (!(await passwordsAllowed(kv, user.tenantId))) {
    fail("OIDC_009", "Your organization signs in with single sign-on only");
  }
  return { ok: true, user };
}
