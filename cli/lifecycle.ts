/**
 * Admin CLI commands for the lifecycle (kv/lifecycle/): `users delete`, `tenants delete`,
 * `users transfer`, and `retention run`. They join the `users` and `tenants` groups that
 * cli/identity.ts makes, and call the same domain functions as the admin API, so the confirmation
 * rule and the error codes are the API's.
 */
import type { Command } from "commander";
import { deleteTenant, deleteUser } from "../kv/lifecycle/delete_account.ts";
import { runRetention } from "../kv/lifecycle/retention.ts";
import { transferDrive } from "../kv/lifecycle/transfer.ts";
import type { Deps } from "../kv/deps.ts";
import { print, withDeps } from "./context.ts";
import { positiveInt } from "./identity.ts";

interface JsonOption {
  json?: boolean;
}

/** The group `name` made by cli/identity.ts (added first in cli/admin.ts). */
function group(program: Command, name: string): Command {
  const found = program.commands.find((c) => c.name() === name);
  if (!found) throw new Error(`admin CLI: no "${name}" command group to extend`);
  return found;
}

/**
 * `<group> delete <id> --confirm <name>`: the deletion the admin API makes, which refuses unless
 * `--confirm` repeats the target's name.
 */
function addDeleteCommand<R>(group: Command, spec: {
  description: string;
  argument: [name: string, about: string];
  confirm: [flags: string, about: string];
  run: (d: Deps, id: number, confirm: string) => Promise<R>;
  line: (report: R) => string;
}): void {
  const [name, about] = spec.argument;
  group.command("delete")
    .description(spec.description)
    .argument(name, about, positiveInt(name.slice(1, -1)))
    .requiredOption(...spec.confirm)
    .option("--json", "print what was deleted as JSON")
    .action(async (id: number, opts: JsonOption & { confirm: string }) => {
      const r = await withDeps((d) => spec.run(d, id, opts.confirm));
      print(opts.json, r, () => [spec.line(r)]);
    });
}

export function addLifecycleCommands(program: Command): void {
  addDeleteCommand(group(program, "users"), {
    description: "delete a user for good: files, versions, trash, shares, links, pins, keys, " +
      "adapters (repeat to finish one a crash cut short)",
    argument: ["<userSeq>", "the user's seq"],
    confirm: ["--confirm <accountId>", "the user's accountId, repeated"],
    run: deleteUser,
    line: (r) =>
      `deleted user ${r.userSeq} "${r.accountId}": ${r.resources} files and folders, ` +
      `${r.freedBytes} bytes freed, ${r.sharesRemoved} shares, ${r.keysDeleted} keys, ` +
      `${r.adaptersDeleted} adapters`,
  });

  group(program, "users").command("transfer")
    .description(
      "move a user's whole drive into a new folder (named after them) of another user of the " +
        "same tenant; their shares are removed, the user is kept",
    )
    .argument("<userSeq>", "whose drive moves", positiveInt("userSeq"))
    .requiredOption("--to <userSeq>", "the user receiving it", positiveInt("--to"))
    .option("--json", "print what was moved as JSON")
    .action(async (seq: number, opts: JsonOption & { to: number }) => {
      const r = await withDeps((d) => transferDrive(d, { fromUserSeq: seq, toUserSeq: opts.to }));
      print(opts.json, r, () => [
        `moved ${r.resources} files and folders (${r.movedBytes} bytes) of user ` +
        `${r.fromUserSeq} into folder "${r.folderName}" (${r.folderRs}) of user ${r.toUserSeq}`,
      ]);
    });

  addDeleteCommand(group(program, "tenants"), {
    description: "delete a tenant for good, with every user in it",
    argument: ["<tenantId>", "the tenant's id"],
    confirm: ["--confirm <name>", "the tenant's name, repeated exactly"],
    run: deleteTenant,
    line: (r) => `deleted tenant ${r.tenantId} "${r.name}" and ${r.users.length} users`,
  });

  program.command("retention").description("the trash and version retention job")
    .command("run")
    .description(
      "run the retention job now (DRIVE_TRASH_RETENTION_DAYS, DRIVE_VERSIONS_KEEP), as the " +
        "hourly Deno.cron does; also finishes deletions and transfers a crash left",
    )
    .option("--json", "print the report as JSON")
    .action(async (opts: JsonOption) => {
      const r = await withDeps((d) => runRetention(d));
      print(opts.json, r, () => [
        r.ran
          ? `purged ${r.trashPurged} trash items and ${r.versionsRemoved} versions, ` +
            `freed ${r.freedBytes} bytes, finished ${r.jobsResumed} jobs`
          : "another process is running the retention job; nothing done",
      ]);
    });
}
