/**
 * Composition root: config, boot, serve (serve.ts: the connection limits), stop on a signal.
 * Nothing else belongs here.
 */
import { boot } from "./boot.ts";
import { ConfigError, readConfig } from "./config.ts";
import { serve } from "./serve.ts";

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

const service = await boot(config);
const controller = new AbortController();
const server = serve(service.app, config, {
  hostname: config.host,
  port: config.port,
  signal: controller.signal,
  // Requests in flight get 10 s to finish, then their connections are cut.
  graceMs: 10_000,
  onListen: ({ hostname, port }) => {
    const shown = hostname === "0.0.0.0" ? "localhost" : hostname;
    console.log(`drive listening on http://${shown}:${port}`);
    if (service.generatedAdminToken) {
      console.log(`admin token (shown once, store it now): ${service.generatedAdminToken}`);
    }
  },
});

async function shutdown(signal: string) {
  console.log(`${signal}: stopping`);
  controller.abort();
  await server.finished;
  service.close();
  Deno.exit(0);
}
for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => shutdown(sig));
