/**
 * Logging on LogTape: one line per record on stdout, JSON Lines (DRIVE_LOG_FORMAT=json, the
 * default when stdout is not a terminal) or a readable line (text), at DRIVE_LOG_LEVEL and up.
 * The process configures it once (main.ts, `configureLogging`); modules take a logger with
 * `driveLogger`. Unconfigured (the in-process tests) LogTape drops records.
 *
 * The request middleware (request_log.ts) puts the request id in the request scope
 * (lib/request_scope.ts), which LogTape reads as its implicit context, so every record logged
 * while a request runs (an unexpected error in api/http/errors.ts, a provider failure) carries
 * `requestId` without being handed it.
 */
import {
  compareLogLevel,
  configure,
  type ContextLocalStorage,
  dispose,
  getJsonLinesFormatter,
  getLogger,
  getTextFormatter,
  type Logger,
  type LogRecord,
  type TextFormatter,
} from "@logtape/logtape";
import type { Config } from "../../config.ts";
import { currentRequestScope, withRequestScope } from "../../lib/request_scope.ts";

/** Every logger of the service sits under this category. */
export const LOG_CATEGORY = "drive";

/** The logger of one part: `driveLogger("http")` logs as `drive.http`. */
export function driveLogger(part: string): Logger {
  return getLogger([LOG_CATEGORY, part]);
}

/**
 * `text` as a LogTape message that renders as written: LogTape reads `{name}` as a placeholder
 * (and quotes the values it fills in), so braces are doubled. Values from a request go in the
 * properties instead; a message holds only what the service itself wrote.
 */
export function literal(text: string): string {
  return text.replaceAll("{", "{{").replaceAll("}", "}}");
}

/**
 * LogTape's implicit context is the request scope's `logContext`: the request middleware sets it
 * with the rest of the scope in one go, and `withContext` (LogTape's own API) still works on it.
 */
const logContextStorage: ContextLocalStorage<Record<string, unknown>> = {
  getStore: () => currentRequestScope()?.logContext,
  run: (logContext, callback) => withRequestScope({ logContext }, callback),
};

const encoder = new TextEncoder();

/** A whole line to stdout, synchronously as console.log does, so lines never interleave. */
function writeStdout(text: string): void {
  const bytes = encoder.encode(text);
  let written = 0;
  while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
}

/** `key=value` for each property, the stack on indented lines after it. */
function textLine(base: TextFormatter): TextFormatter {
  return (record: LogRecord) => {
    let line = base(record).replace(/\n$/, "");
    let stack = "";
    for (const [k, v] of Object.entries(record.properties)) {
      if (k === "stack" && typeof v === "string") stack = v;
      else if (v !== undefined && v !== null) {
        line += ` ${k}=${typeof v === "string" ? v : JSON.stringify(v)}`;
      }
    }
    if (stack) line += `\n${stack.replace(/^/gm, "    ")}`;
    return `${line}\n`;
  };
}

export function lineFormatter(format: Config["logFormat"]): TextFormatter {
  if (format === "json") return getJsonLinesFormatter({ properties: "flatten" });
  return textLine(getTextFormatter({ timestamp: "date-time-timezone" }));
}

/**
 * Sends the service's records to `write` (stdout by default) in the configured format and
 * level. Replaces any earlier configuration.
 */
export async function configureLogging(
  config: Pick<Config, "logFormat" | "logLevel">,
  write: (line: string) => void = writeStdout,
): Promise<void> {
  const format = lineFormatter(config.logFormat);
  await configure({
    reset: true,
    sinks: { out: (record: LogRecord) => write(format(record)) },
    loggers: [
      { category: [LOG_CATEGORY], sinks: ["out"], lowestLevel: config.logLevel },
      // Start and stop lines show at any level: an operator needs the address bound.
      {
        category: [LOG_CATEGORY, "main"],
        sinks: ["out"],
        parentSinks: "override",
        lowestLevel: compareLogLevel(config.logLevel, "info") < 0 ? config.logLevel : "info",
      },
      // LogTape's own warnings (a failing sink, a misconfiguration).
      { category: ["logtape", "meta"], sinks: ["out"], lowestLevel: "warning" },
    ],
    contextLocalStorage: logContextStorage,
  });
}

/** Flushes and closes the sinks (before the process exits). */
export function closeLogging(): Promise<void> {
  return dispose();
}
