/**
 * What a row of the configuration table (config.ts) holds. The rows live in config/*.ts by
 * subject; config.ts puts them together in one table, in the order defaults refer to each other.
 */
import type { z } from "zod";

/** A setting that cannot be used: main.ts prints its message in one line and exits with 2. */
export class ConfigError extends Error {}

/** What a default may depend on: variables above it in the table, and where the process runs. */
export interface DefaultContext {
  /** The effective value of an earlier variable, as text. */
  value(name: string): string;
  onDenoDeploy: boolean;
  stdoutIsTerminal: boolean;
}

export interface Variable {
  name: string;
  /** Used when the variable is unset or empty; absent: the parser gets `undefined`. */
  default?: string | ((ctx: DefaultContext) => string);
  /** The default as the README shows it (Markdown), when it is not a plain value. */
  shownDefault?: string;
  /** Parses the text; an issue's message completes "<NAME> ...". */
  parse: z.ZodType;
  about: string;
  /** What Deno Deploy needs of it (docs/deploy.md). */
  deploy?: "required" | "recommended";
  /** Never printed: `admin config` masks it, an error does not echo it. */
  secret?: boolean;
}

/** The start of a link into docs/operations.md, for the meanings that point there. */
export const OPS_DOCS = "[docs/operations.md](docs/operations.md";
