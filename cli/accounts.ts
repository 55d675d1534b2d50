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
import { print, withDeps } from "./context.ts";

interface JsonOption {
  json?: boolean;
}

/** The user a `<user>` argument names: a seq, or an accountId. */
async function userNamed(kv: Deno.Kv, name: string): Promise<User> {
  if (/^[1-9]\d{0,15}$/.test(name)) return await requireUser(kv, Number(name), "user");
  return (await findUserByAccountId(kv, name)) ??
    fail("USER_001", `No user with accountId "${name}"`, "user");
}

export function addAccountCommands(program: Command): void {
  const users = program.commands.find((c) => c.name() === "users");
  if (!users) throw new Error("addAccountCommands: add the users commands first");

  for (const admin of [true, false]) {
    users.command(admin ? "grant-admin" : "remove-admin")
      .description(
        admin
          ? "give a user the admin role: the admin console and admin API, signed in by name"
          : "take the admin role from a user",
      )
      .argument("<user>", "the user's seq or accountId")
      .option("--json", "print {userSeq, admin} as JSON")
      .action(async (name: string, opts: JsonOption) => {
        const user = await withDeps(async (d) => {
          const u = await setUserAdmin(d.kv, (await userNamed(d.kv, name)).userSeq, admin, null);
          await recordAccountEvent(d.kv, admin ? "role_granted" : "role_removed", u, {
            role: "admin",
            via: "cli",
          });
          return u;
        });
        print(opts.json, { userSeq: user.userSeq, admin }, () => [
          `user ${user.userSeq} "${user.accountId}" ${admin ? "holds" : "no longer holds"} ` +
          "the admin role",
        ]);
      });
  }

  for (const kind of INVITATION_KINDS) {
    users.command(kind === "invitation" ? "invite" : "reset-link")
      .description(
        kind === "invitation"
          ? "print a one-time invitation link: the user opens it and sets a password"
          : "print a one-time password-reset link (using it ends the user's sessions)",
      )
      .argument("<user>", "the user's seq or accountId")
      .option("--json", "print {userSeq, kind, url, expiresAt} as JSON")
      .action(async (name: string, opts: JsonOption) => {
        const out = await withDeps(async (d) => {
          const user = await userNamed(d.kv, name);
          const made = await createInvitation(d.kv, user.userSeq, kind, d.config.invitationTtlMs);
          await recordAccountEvent(d.kv, "invitation_created", user, { kind, via: "cli" });
          return {
            userSeq: user.userSeq,
            kind,
            url: invitationUrl(d.config.publicUrl, kind, made.token),
            expiresAt: new Date(made.invitation.expiresAt).toISOString(),
          };
        });
        print(opts.json, out, () => [out.url, `valid once, until ${out.expiresAt}`]);
      });
  }
}
