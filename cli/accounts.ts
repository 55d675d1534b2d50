/**
 * Admin CLI commands for signing in, under `users`: the admin role (`grant-admin`,
 * `remove-admin`) and one-time links (`invite`, `reset-link`) for a user named by seq or
 * accountId. The same domain functions as the admin API (api/admin/accounts.ts), and the same
 * activity log entries.
 */
import type { Command } from "commander";
import { createInvitation, INVITATION_KINDS, invitationUrl } from "../kv/identity/invitations.ts";
import { findUserByAccountId, requireUser, setUserAdmin, type User } from "../kv/identity/users.ts";
import { recordAccountEvent } from "../api/http/account_events.ts";
import { fail } from "../kv/errors.ts";
import { type Opened, print, withDeps } from "./context.ts";

/** The user a `<user>` argument names: a seq, or an accountId. */
async function userNamed(kv: Deno.Kv, name: string): Promise<User> {
  if (/^[1-9]\d{0,15}$/.test(name)) return await requireUser(kv, Number(name), "user");
  return (await findUserByAccountId(kv, name)) ??
    fail("USER_001", `No user with accountId "${name}"`, "user");
}

/**
 * `users <command> <user> [--json]`: runs `act` on the named user and prints what it returns,
 * as JSON (`jsonShape` says which fields) or as `text`'s lines.
 */
function userCommand<T>(
  users: Command,
  command: { name: string; description: string; jsonShape: string },
  act: (d: Opened, user: User) => Promise<T>,
  text: (out: T, user: User) => string[],
): void {
  users.command(command.name)
    .description(command.description)
    .argument("<user>", "the user's seq or accountId")
    .option("--json", `print ${command.jsonShape} as JSON`)
    .action(async (name: string, opts: { json?: boolean }) => {
      const [user, out] = await withDeps(async (d) => {
        const user = await userNamed(d.kv, name);
        return [user, await act(d, user)] as const;
      });
      print(opts.json, out, () => text(out, user));
    });
}

export function addAccountCommands(program: Command): void {
  const users = program.commands.find((c) => c.name() === "users");
  if (!users) throw new Error("addAccountCommands: add the users commands first");

  for (const admin of [true, false]) {
    userCommand(users, {
      name: admin ? "grant-admin" : "remove-admin",
      description: admin
        ? "give a user the admin role: the admin console and admin API, signed in by name"
        : "take the admin role from a user",
      jsonShape: "{userSeq, admin}",
    }, async (d, user) => {
      const u = await setUserAdmin(d.kv, user.userSeq, admin, null);
      await recordAccountEvent(d.kv, admin ? "role_granted" : "role_removed", u, {
        role: "admin",
        via: "cli",
      });
      return { userSeq: u.userSeq, admin };
    }, (_, user) => [
      `user ${user.userSeq} "${user.accountId}" ${admin ? "holds" : "no longer holds"} ` +
      "the admin role",
    ]);
  }

  for (const kind of INVITATION_KINDS) {
    userCommand(users, {
      name: kind === "invitation" ? "invite" : "reset-link",
      description: kind === "invitation"
        ? "print a one-time invitation link: the user opens it and sets a password"
        : "print a one-time password-reset link (using it ends the user's sessions)",
      jsonShape: "{userSeq, kind, url, expiresAt}",
    }, async (d, user) => {
      const made = await createInvitation(d.kv, user.userSeq, kind, d.config.invitationTtlMs);
      await recordAccountEvent(d.kv, "invitation_created", user, { kind, via: "cli" });
      return {
        userSeq: user.userSeq,
        kind,
        url: invitationUrl(d.config.publicUrl, kind, made.token),
        expiresAt: new Date(made.invitation.expiresAt).toISOString(),
      };
    }, (out) => [out.url, `valid once, until ${out.expiresAt}`]);
  }
}
