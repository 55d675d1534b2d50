/**
 * The service's loggers, for every layer: `driveLogger("http")` logs as `drive.http`. Where the
 * records go (format, level, stdout) is the composition's choice, made once by
 * `configureLogging` in api/ops/logging.ts; unconfigured (the in-process tests), LogTape drops
 * them. It sits in lib/ so the edges and the domain can log without importing api/ops/.
 */
import { getLogger, type Logger } from "@logtape/logtape";

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
