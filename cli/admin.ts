/**
 * The admin CLI (`deno task admin <command>`, or `main.ts admin <command>` and so the compiled
 * binary): commander parses the command line, each command module does its work on the same
 * KV and blob store as the server. `runAdminCli` returns the exit code (cli/context.ts EXIT)
 * instead of exiting, so main.ts and the tests can call it.
 */
import { Command, CommanderError } from "commander";
import { BackupError } from "../kv/backup/format.ts";
import { DriveError } from "../kv/errors.ts";
import { SchemaTooNewError } from "../kv/migrations/migrations.ts";
import { CliExit, EXIT } from "./context.ts";
import { addConfigCommand } from "./config.ts";
import { addIdentityCommands } from "./identity.ts";
import { addAccountCommands } from "./accounts.ts";
import { addLifecycleCommands } from "./lifecycle.ts";
import { addMaintenanceCommands } from "./maintenance.ts";

const EPILOG = `
Exit codes: 0 ok; 1 a check found problems it did not repair; 2 usage error; 3 refused
(configuration error, or data of a newer schema); 4 refused by the data (no such user, taken
email, ...); 5 unexpected error. The configuration is the server's: the DRIVE_* variables.`;

function buildProgram(): Command {
  const program = new Command("admin")
    .description("administer a drive service: works on the same KV, also while servers run")
    .exitOverride()
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", EPILOG);
  addIdentityCommands(program);
  addAccountCommands(program);
  addLifecycleCommands(program);
  addMaintenanceCommands(program);
  addConfigCommand(program);
  // Commands added above inherit exitOverride; groups with no action show their help.
  return program;
}

/** Runs one admin command; returns the process exit code. */
export async function runAdminCli(args: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(args, { from: "user" });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version "exit" with 0; every other commander error is a usage error
      // (its message is already printed).
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (err instanceof CliExit) {
      if (err.message) console.error(`admin: ${err.message}`);
      return err.code;
    }
    if (err instanceof SchemaTooNewError) {
      console.error(`admin: refusing to run: ${err.message}`);
      return EXIT.refused;
    }
    if (err instanceof DriveError) {
      console.error(`admin: ${err.code}: ${err.message}`);
      return EXIT.failed;
    }
    if (err instanceof BackupError) {
      console.error(`admin: ${err.message}`);
      return EXIT.failed;
    }
    console.error(`admin: ${err instanceof Error ? err.message : String(err)}`);
    return EXIT.error;
  }
}
