/**
 * Users' passwords.
 *   ["user_password", userSeq] -> StoredPassword
 * Hashed with the service's scrypt helper (lib/passwords.ts), never logged, never shown. Setting
 * a password (first time from an invitation, a reset, or a change) voids every session of the
 * user in the same commit (User.signedOutAt, kv/identity/users.ts), so a stolen session does not
 * outlive the password it came from.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { fail } from "../errors.ts";
import { userPasswordKey } from "../keys.ts";
import { hashPassword, passwordProblem, verifyPassword } from "../../lib/passwords.ts";
import { getUserEntry, signOutEverywhere, type User } from "./users.ts";

export interface StoredPassword {
  hash: string;
  /** When it was set (ms since the epoch). */
  setAt: number;
}

/** The stored hash of the user's password, or null (no password: invitation not used yet). */
export async function passwordHashOf(kv: Deno.Kv, userSeq: number): Promise<string | null> {
  return (await kv.get<StoredPassword>(userPasswordKey(userSeq))).value?.hash ?? null;
}

export async function hasPassword(kv: Deno.Kv, userSeq: number): Promise<boolean> {
  return (await passwordHashOf(kv, userSeq)) !== null;
}

/** Fails with AUTH_013 (field `field`) unless `password` meets the policy for `user`. */
export async function assertPasswordPolicy(
  password: string,
  user: Pick<User, "accountId" | "email" | "name">,
  field = "newPassword",
): Promise<void> {
  const problem = await passwordProblem(password, [user.accountId, user.email, user.name]);
  if (problem) fail("AUTH_013", problem, field);
}

/**
 * Adds to `op` the new password of `user` (checked against `entry`) and the end of every session
 * it had. `hash` is computed before the commit: scrypt is slow, a retry must not repeat it.
 */
export function writePassword(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntry<User>,
  hash: string,
): User {
  const stored: StoredPassword = { hash, setAt: Date.now() };
  op.set(userPasswordKey(entry.value.userSeq), stored);
  return signOutEverywhere(op, entry);
}

/**
 * Sets `password` for user `userSeq` (policy first) and ends all their sessions. For the admin
 * CLI and the invitation flow (kv/identity/invitations.ts adds its own check).
 */
export async function setPassword(kv: Deno.Kv, userSeq: number, password: string): Promise<User> {
  const first = await getUserEntry(kv, userSeq);
  if (!first.value) fail("USER_001", `No user with seq ${userSeq}`, "userSeq");
  await assertPasswordPolicy(password, first.value, "password");
  const hash = await hashPassword(password);
  return commitWithRetry(async () => {
    const entry = await getUserEntry(kv, userSeq);
    if (!entry.value) fail("USER_001", `No user with seq ${userSeq}`, "userSeq");
    const op = kv.atomic();
    const next = writePassword(op, entry as Deno.KvEntry<User>, hash);
    return (await commit(op)) === true ? next : CONFLICT;
  });
}

/**
 * The signed-in user changes their own password: the current one first (AUTH_012), then the
 * policy (AUTH_013). Every session ends; the edge starts a fresh one for the browser that asked.
 */
export async function changePassword(
  kv: Deno.Kv,
  userSeq: number,
  current: string,
  next: string,
): Promise<User> {
  const stored = (await kv.get<StoredPassword>(userPasswordKey(userSeq))).value;
  if (!stored || !(await verifyPassword(current, stored.hash))) {
    fail("AUTH_012", "The current password is wrong", "currentPassword");
  }
  return await setPassword(kv, userSeq, next).catch((err) => {
    // The policy's field in this request is newPassword.
    if (err?.code === "AUTH_013") fail("AUTH_013", err.message, "newPassword");
    throw err;
  });
}

/** Deletes a (deleted) user's password record. */
export async function deletePasswordOf(kv: Deno.Kv, userSeq: number): Promise<void> {
  await kv.delete(userPasswordKey(userSeq));
}
