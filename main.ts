/** Composition root: config, boot, serve, stop on a signal. Nothing else belongs here. */
import { boot } from "./boot.ts";
import { ConfigError, readConfig } from "./config.ts";

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
const server = Deno.serve({
  port: config.port,
  hostname: config.host,
  signal: controller.signal,
  onListen: ({ hostname, port }) => {
    const shown = hostname === "0.0.0.0" ? "localhost" : hostname;
    console.log(`drive listening on http://${shown}:${port}`);
    if (service.generatedAdminToken) {
      console.log(`admin token (shown once, store it now): ${service.generatedAdminToken}`);
    }
  },
}, service.app.fetch);

async function shutdown(signal: string) {
  console.log(`${signal}: stopping`);
  controller.abort();
  // Requests in flight get 10 s to finish.
  await Promise.race([server.finished, new Promise((r) => setTimeout(r, 10_000))]);
  service.close();
  Deno.exit(0);
}
for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => shutdown(sig));
