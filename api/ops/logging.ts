/**
 * Logging on LogTape: one line per record on stdout, JSON Lines (DRIVE_LOG_FORMAT=json, the
 * default when stdout is not a terminal) or a readable line (text), at DRIVE_LOG_LEVEL and up.
 * The process configures it once (main.ts, `configureLogging`); modules take a logger with
 * `driveLogger` (lib/logger.ts). Unconfigured (the in-process tests) LogTape drops records.
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
  getTextFormatter,
  type LogRecord,
  type Sink,
  type TextFormatter,
} from "@logtape/logtape";
import type { Config } from "../../config.ts";
import { currentRequestScope, withRequestScope } from "../../lib/request_scope.ts";
import { LOG_CATEGORY } from "../../lib/logger.ts";

/**
 * LogTape's implicit context is the request scope's `logContext`: the request middleware sets it
 * with the rest of the scope in one go, and `withContext` (LogTape's own API) still works on it.
 */
const logContextStorage: ContextLocalStorage<Record<string, unknown>> = {
  getStore: () => currentRequestScope()?.logContext,
  run: (logContext, callback) => withRequestScope({ logContext }, callback),
};

const encoder = new TextEncoder();

/** Writes all of `text` to stdout synchronously, as console.log does. */
function writeAllToStdout(text: string): void {
  const bytes = encoder.encode(text);
  let written = 0;
  try {
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  } catch {
    // stdout redirected to a file on a full disk (ENOSPC), or a closed pipe: the lines are lost,
    // but a log write must never end the process that serves the files (it throws in a timer).
  }
}

/**
 * Lines to stdout, gathered for one turn of the event loop (a zero-delay timer) and written in
 * one write: a write per line cost more than formatting it (docs/benchmarks.md), and under load a
 * turn gathers many lines. Lines stay whole and in order. `flush` writes what waits now: for an
 * error (so it is out before anything can go wrong next) and when LogTape disposes the sink
 * (closeLogging, or the process exiting), so an exit loses no line; only a crash of the runtime
 * itself can lose the last turn's lines.
 */
export function stdoutLines(write: (text: string) => void = writeAllToStdout) {
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pending === "") return;
    const text = pending;
    pending = "";
    write(text);
  };
  return {
    add(line: string) {
      pending += line;
      timer ??= setTimeout(flush, 0);
    },
    flush,
  };
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

/** Characters LogTape's JSON Lines formatter escapes beyond what JSON.stringify does. */
const C1_CONTROLS = /[\u007f-\u009f]/;

/**
 * LogTape's JSON Lines formatter (properties flattened), with a fast path for the common record:
 * a plain message and properties that are all strings, numbers, booleans or null. Those give the
 * same line from JSON.stringify without LogTape's replacer (which only changes bigints and
 * errors), at a fraction of the cost; anything else goes to LogTape's formatter.
 */
function jsonLine(): TextFormatter {
  const full = getJsonLinesFormatter({ properties: "flatten" });
  return (record: LogRecord) => {
    if (record.message.length !== 1 || !allPlain(record.properties)) return full(record);
    const json = JSON.stringify({
      "@timestamp": new Date(record.timestamp).toISOString(),
      level: record.level === "warning" ? "WARN" : record.level.toUpperCase(),
      message: record.message[0],
      logger: record.category.join("."),
      ...record.properties,
    });
    return C1_CONTROLS.test(json) ? full(record) : `${json}\n`;
  };
}

function allPlain(properties: Record<string, unknown>): boolean {
  for (const key in properties) {
    const v = properties[key];
    const t = typeof v;
    if (v !== null && t !== "string" && t !== "number" && t !== "boolean" && t !== "undefined") {
      return false;
    }
  }
  return true;
}

export function lineFormatter(format: Config["logFormat"]): TextFormatter {
  if (format === "json") return jsonLine();
  return textLine(getTextFormatter({ timestamp: "date-time-timezone" }));
}

/**
 * Sends the service's records in the configured format and level to `write`, one line per call,
 * or by default to stdout (`stdoutLines`). Replaces any earlier configuration.
 */
export async function configureLogging(
  config: Pick<Config, "logFormat" | "logLevel">,
  write?: (line: string) => void,
): Promise<void> {
  const format = lineFormatter(config.logFormat);
  await configure({
    reset: true,
    sinks: { out: write ? (record: LogRecord) => write(format(record)) : stdoutSink(format) },
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

/** Records to stdout in `format`; an error or worse is written at once, with what waits. */
function stdoutSink(format: TextFormatter): Sink & Disposable {
  const out = stdoutLines();
  const sink = (record: LogRecord) => {
    out.add(format(record));
    if (compareLogLevel(record.level, "error") >= 0) out.flush();
  };
  return Object.assign(sink, { [Symbol.dispose]: out.flush });
}

/** Flushes and closes the sinks (before the process exits). */
export function closeLogging(): Promise<void> {
  return dispose();
}
