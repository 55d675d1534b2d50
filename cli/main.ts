/** Entry point of `deno task admin <command>`: runs the admin CLI and exits with its code. */
import { runAdminCli } from "./admin.ts";

if (import.meta.main) Deno.exit(await runAdminCli(Deno.args));
