/**
 * `admin config`: the configuration a server or CLI would run with here, each variable's
 * effective value and whether it came from the environment or its default (config.ts's table),
 * secrets masked. Nothing is opened.
 */
import type { Command } from "commander";
import { effectiveConfig } from "../config.ts";
import { configured, print, table } from "./context.ts";

export function addConfigCommand(program: Command): void {
  program.command("config")
    .description(
      "print the effective configuration (DRIVE_* variables and defaults), secrets masked",
    )
    .option("--json", 'print {"items": [{name, value, from}]} as JSON')
    .action((opts: { json?: boolean }) => {
      const items = configured(() => effectiveConfig())
        .map(({ name, value, from }) => ({ name, value: value ?? null, from }));
      print(
        opts.json,
        { items },
        () => table(["VARIABLE", "VALUE", "FROM"], items.map((v) => [v.name, v.value, v.from])),
      );
    });
}
