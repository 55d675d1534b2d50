/**
 * Invitations and password resets: one-time links an administrator hands a user (no e-mail
 * server needed: the console shows the link once, with a copy button).
 *   ["invitation", sha256(token)] -> Invitation (expireIn: the invitation's lifetime)
 * Only the token's SHA-256 is stored. Using it deletes it in the same commit that sets the
 * password, checked against its versionstamp, so it works once even when two browsers race.
 * Both kinds work the same; `kind` only says which page and which activity entry.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { fail } from "../errors.ts";
import { invitationKey } from "../keys.ts";
import { randomToken, sha256Hex } from "../../lib/secrets.ts";
import { hashPassword } from "../../lib/passwords.ts";
import { assertPasswordPolicy, writePassword } from "./passwords.ts";
import { passwordsAllowed } from "./oidc.ts";
import { getUserEntry, requireUser, type User } from "./users.ts";

/** A first password, or a new one. */
export const INVITATION_KINDS = ["invitation", "reset"] as const;
export type InvitationKind = typeof INVITATION_KINDS[number];

export interface Invitation {
  userSeq: number;
  kind: InvitationKind;
  createdAt: number;
  expiresAt: number;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The page of the app shell that takes the token (in the fragment: never sent to a server). */
export function invitationUrl(publicUrl: string, kind: InvitationKind, token: string): string {
  return `${publicUrl}/#/${kind}/${token}`;
}

/**
 * Creates a one-time link for user `userSeq`, valid `ttlMs` (DRIVE_INVITATION_TTL_S, 7 days by
 * default). The token is answered once and never stored.
 */
export async function createInvitation(
  kv: Deno.Kv,
  userSeq: number,
  kind: InvitationKind,
  ttlMs: number,
): Promise<{ token: string; invitation: Invitation; user: User }> {
  const user = await requireUser(kv, userSeq);
  const token = randomToken(32);
  const now = Date.now();
  const invitation: Invitation = { userSeq, kind, createdAt: now, expiresAt: now + ttlMs };
  await kv.set(invitationKey(sha256Hex(token)), invitation, { expireIn: ttlMs });
  return { token, invitation, user };
}

/** The live invitation of `token`, or AUTH_014. */
async function liveInvitation(kv: Deno.Kv, token: string) {
  const entry = await kv.get<Invitation>(
    invitationKey(TOKEN_PATTERN.test(token) ? sha256Hex(token) : "-"),
  );
  if (!entry.value || Date.now() >= entry.value.expiresAt) {
    fail("AUTH_014", "This link is unknown, used or expired", "token");
  }
  return entry as Deno.KvEntry<Invitation>;
}

/** What the page shows before the password is chosen: whose link it is and what it does. */
export async function describeInvitation(
  kv: Deno.Kv,
  token: string,
): Promise<{ kind: InvitationKind; user: User; expiresAt: number }> {
  const entry = await liveInvitation(kv, token);
  const user = await getUserEntry(kv, entry.value.userSeq);
  if (!user.value) fail("AUTH_014", "This link is unknown, used or expired", "token");
  return { kind: entry.value.kind, user: user.value, expiresAt: entry.value.expiresAt };
}

/**
 * Uses the link: the password is checked against the policy first (a weak one leaves the link
 * usable), then link deleted and password set in one commit; every earlier session ends.
 */
export async function acceptInvitation(
  kv: Deno.Kv,
  token: string,
  password: string,
): Promise<{ user: User; kind: InvitationKind }> {
  const first = await describeInvitation(kv, token);
  if (!(await passwordsAllowed(kv, first.user.tenantId))) {
    fail("OIDC_009", "Your organization signs in with single sign-on only");
  }
  await assertPasswordPolicy(password, first.user, "password");
  const hash = await hashPassword(password);
  return commitWithRetry(async () => {
    const inv = await liveInvitation(kv, token);
    const entry = await getUserEntry(kv, inv.value.userSeq);
    if (!entry.value) fail("AUTH_014", "This link is unknown, used or expired", "token");
    const op = kv.atomic().check(inv).delete(inv.key);
    const user = writePassword(op, entry as Deno.KvEntry<User>, hash);
    return (await commit(op)) === true ? { user, kind: inv.value.kind } : CONFLICT;
  });
}
