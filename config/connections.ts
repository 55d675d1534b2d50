/**
 * Configuration rows (config.ts): connection limits and timeouts (serve.ts), client addresses, logs.
 */
import { z } from "zod";
import { int, oneOf, trustedProxies } from "../lib/env_parsers.ts";
import { OPS_DOCS, type Variable } from "./variable.ts";

export const LOG_LEVELS = ["trace", "debug", "info", "warning", "error", "fatal"] as const;
export type LogLevelName = typeof LOG_LEVELS[number];

const logLevel = oneOf(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`);

export const CONNECTION_VARIABLES = {
  headerTimeoutMs: {
    name: "DRIVE_HEADER_TIMEOUT_MS",
    default: "10000",
    parse: int(1),
    about: "a new connection's request headers must be complete within this many ms, " +
      "else it is closed",
  },
  bodyIdleTimeoutMs: {
    name: "DRIVE_BODY_IDLE_TIMEOUT_MS",
    default: "30000",
    parse: int(1),
    about: "a request body that sends no byte for this many ms is cut",
  },
  // 1 KiB in 30 s is 273 bit/s, below a 2400-baud modem: no real link is cut (security.md).
  bodyMinRateBytes: {
    name: "DRIVE_BODY_MIN_RATE_BYTES",
    default: "1024",
    parse: int(0),
    about: "a request body must bring this many bytes per `DRIVE_BODY_MIN_RATE_WINDOW_MS` of " +
      "waiting for it, else it is cut; 0: no minimum",
  },
  bodyMinRateWindowMs: {
    name: "DRIVE_BODY_MIN_RATE_WINDOW_MS",
    default: "30000",
    parse: int(1),
    about: "the window of `DRIVE_BODY_MIN_RATE_BYTES`, in ms",
  },
  // nginx's lingering close: long enough for any client to read the answer, short for a trickle.
  lingerMs: {
    name: "DRIVE_LINGER_MS",
    default: "5000",
    parse: int(1),
    about: "after an answer sent before its request body was read (a 401 on an upload), the " +
      "rest of the body is read and discarded for at most this many ms, then the connection " +
      "is cut",
  },
  keepAliveTimeoutMs: {
    name: "DRIVE_KEEPALIVE_TIMEOUT_MS",
    default: "60000",
    parse: int(1),
    about: "after a response, the next request's headers must be complete within this many ms",
  },
  maxConnections: {
    name: "DRIVE_MAX_CONNECTIONS",
    default: "4096",
    parse: int(1),
    about: "open connections at most, lowered to 3/4 of `ulimit -n`; more get a 503 " +
      "(see security.md)",
  },
  // A quarter: a NAT gateway's many users still fit, and one address leaves 3/4 to the others.
  maxConnectionsPerClient: {
    name: "DRIVE_MAX_CONNECTIONS_PER_CLIENT",
    default: (ctx) =>
      String(Math.max(1, Math.floor(Number(ctx.value("DRIVE_MAX_CONNECTIONS")) / 4))),
    shownDefault: "`DRIVE_MAX_CONNECTIONS` / 4",
    parse: int(1),
    about: "open connections at most per client address (IPv6: per /64; a trusted proxy is " +
      "not capped); more get a 503",
  },
  trustedProxies: {
    name: "DRIVE_TRUSTED_PROXIES",
    default: "",
    shownDefault: "(empty)",
    parse: trustedProxies,
    about: "proxies (IPs, CIDRs, comma-separated) whose `X-Forwarded-For` names the client; " +
      "empty: never read",
  },
  // JSON when a log collector reads stdout, a readable line when a person watches.
  logFormat: {
    name: "DRIVE_LOG_FORMAT",
    default: (ctx) => ctx.stdoutIsTerminal ? "text" : "json",
    shownDefault: "`json` (`text` on a terminal)",
    parse: z.string().transform((s) => s.toLowerCase()).pipe(oneOf(["json", "text"])),
    about:
      `request and server log lines on stdout: JSON Lines or a readable line; see ${OPS_DOCS}#logs)`,
  },
  logLevel: {
    name: "DRIVE_LOG_LEVEL",
    default: "info",
    // `warn` is taken for `warning`.
    parse: z.string().transform((s) => s.toLowerCase().replace(/^warn$/, "warning")).pipe(logLevel),
    about: "`trace`, `debug`, `info`, `warning` (`warn`), `error` or `fatal`; one line per " +
      "request is `info`",
  },
} satisfies Record<string, Variable>;
