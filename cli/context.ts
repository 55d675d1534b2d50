/**
 * What every admin CLI command shares: the exit codes, opening the stores from the same
 * configuration as the server (config.ts, the DRIVE_* variables), and printing a result as text
 * or, with --json, as one JSON document on stdout for scripts.
 */
import { openStoresAndDeps } from "../boot.ts";
import { type Config, ConfigError, readConfig } from "../config.ts";
import type { Deps } from "../kv/deps.ts";

/** The exit codes of `admin` (docs/operations.md, admin CLI). */
export const EXIT = {
  /** Done; for a check: nothing wrong (or everything repaired). */
  ok: 0,
  /** A check (fsck, usage) found problems it did not repair. */
  problems: 1,
  /** The command line is wrong: unknown command, missing or invalid argument. */
  usage: 2,
  /** Refused to touch the data: a configuration error, or data of a newer schema. */
  refused: 3,
  /** The command was refused by a rule of the data: no such user, email taken, ... */
  failed: 4,
  /** Anything unexpected (I/O, KV); the message says what. */
  error: 5,
} as const;

/** A failure with its exit code and a one-line message for stderr. */
export class CliExit extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** The stores as the server opens them; the caller must `close()` when done. */
export interface Opened extends Deps {
  close(): void;
}

export function loadConfig(): Config {
  return configured(() => readConfig());
}

/** `read`'s result; a configuration error refuses the command (exit 3) with its one line. */
export function configured<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ConfigError) {
      throw new CliExit(EXIT.refused, `configuration error: ${err.message}`);
    }
    throw err;
  }
}

/** Opens KV and the blob store (running the start-up migrations, as a server start does). */
async function openDeps(): Promise<Opened> {
  const config = loadConfig();
  const d = await openStoresAndDeps(config);
  return { ...d, close: () => d.kv.close() };
}

/** Runs `fn` with the stores open, closing them afterwards whatever happens. */
export async function withDeps<T>(fn: (d: Opened) => Promise<T>): Promise<T> {
  const d = await openDeps();
  try {
    return await fn(d);
  } finally {
    d.close();
  }
}

/** Prints `data` as JSON (--json) or as the given text lines. */
export function print(json: boolean | undefined, data: unknown, text: () => string[]): void {
  if (json) console.log(JSON.stringify(data, null, 2));
  else for (const line of text()) console.log(line);
}

/** Rows as aligned columns under a header. */
export function table(header: string[], rows: (string | number | null)[][]): string[] {
  const cells = [header, ...rows.map((r) => r.map((c) => c === null ? "-" : String(c)))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd());
}
