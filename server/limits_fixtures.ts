/**
 * Connection limits for the serve() tests beside them (serve_test.ts, server/slots_test.ts):
 * generous everywhere, so a test changes only the limit it is about.
 */
import type { ConnectionLimits } from "./limits.ts";

export const TEST_LIMITS: ConnectionLimits = {
  headerTimeoutMs: 10_000,
  bodyIdleTimeoutMs: 30_000,
  bodyMinRateBytes: 1024,
  bodyMinRateWindowMs: 30_000,
  lingerMs: 5_000,
  keepAliveTimeoutMs: 60_000,
  maxConnections: 100,
  maxConnectionsPerClient: 100,
  trustedProxies: [],
};
