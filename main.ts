/**
 * Composition root: config, boot, serve (serve.ts: the connection limits), stop on a signal.
 * Nothing else belongs here.
 */
import { boot, type Service } from "./boot.ts";
import { closeLogging, configureLogging, driveLogger, literal } from "./api/ops/logging.ts";
import { ConfigError, readConfig } from "./config.ts";
import { SchemaTooNewError } from "./kv/migrations/migrations.ts";
import { listenFailure, listeningAt, serve, type Server } from "./serve.ts";

// `main.ts admin <command>` (and so the compiled binary) is the admin CLI (cli/).
if (Deno.args[0] === "admin") {
  const { runAdminCli } = await import("./cli/admin.ts");
  Deno.exit(await runAdminCli(Deno.args.slice(1)));
}

let config;
try {
  config = readConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`configuration error: ${err.message}`);
    Deno.exit(2);
  }
  throw err;
}

await configureLogging(config);
const log = driveLogger("main");
let service: Service;
try {
  service = await boot(config);
} catch (err) {
  // Data written by a newer release: one line and exit code 4, before anything is written.
  if (!(err instanceof SchemaTooNewError)) throw err;
  console.error(`refusing to start: ${err.message}`);
  await closeLogging();
  Deno.exit(4);
}
const controller = new AbortController();
let server: Server;
try {
  server = serve(service.app, config, {
    hostname: config.host,
    port: config.port,
    signal: controller.signal,
    // Requests in flight get 10 s to finish, then their connections are cut.
    graceMs: 10_000,
    log: (message) => log.warn(literal(message)),
    onListen,
  });
} catch (err) {
  // A busy port, a HOST this machine does not have, a port below 1024 without the right: one
  // line naming the variable and exit code 3, not a stack trace.
  const why = listenFailure(err, config.host, config.port);
  if (!why) throw err;
  console.error(why);
  service.close();
  await closeLogging();
  Deno.exit(3);
}
service.metrics.countConnectionsWith(() => server.connections);

function onListen(addr: Deno.NetAddr) {
  // Through the logger like every start-up record (a JSON line in JSON mode, shown at any
  // DRIVE_LOG_LEVEL), and before the start line, so whoever waits for that line has it too.
  if (service.generatedAdminToken) {
    log.info(literal("admin token generated (shown once, store it now)"), {
      adminToken: service.generatedAdminToken,
    });
  }
  if (service.adminTokenWithheld) {
    // Deploy mode: its logs are kept elsewhere, so the generated token is not printed.
    log.info(literal(
      "admin token generated but not printed (no local data directory): " +
        "set DRIVE_ADMIN_TOKEN or run `admin reset-admin-token`",
    ));
  }
  log.info(literal(`drive listening on ${listeningAt(addr)}`), {
    hostname: addr.hostname,
    port: addr.port,
  });
}

async function shutdown(signal: string) {
  log.info(literal(`${signal}: stopping`));
  controller.abort();
  await server.finished;
  service.close();
  await closeLogging();
  Deno.exit(0);
}
for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => shutdown(sig));
