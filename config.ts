/**
 * Runtime configuration, read once from the environment (see ../shared/spec/runtime-and-admin.md).
 *
 * Every variable is declared once, in VARIABLES: its name, default, parser (zod), meaning and
 * what Deno Deploy needs of it. Its rows live in config/ by subject (process, storage, connections,
 * service, accounts) and are put together here in one table. From that table come `readConfig`, the `Config` type, the
 * README's configuration table (scripts/gen_config_docs.ts; config_test.ts fails when it is
 * stale) and `deno task admin config` (`effectiveConfig`, secrets masked).
 */
import type { z } from "zod";
import type { DefaultContext, Variable } from "./config/variable.ts";
import { PROCESS_VARIABLES } from "./config/process.ts";
import { CONNECTION_VARIABLES } from "./config/connections.ts";
import { SERVICE_VARIABLES } from "./config/service.ts";
import { ACCOUNT_VARIABLES } from "./config/accounts.ts";
import { PREVIEW_VARIABLES } from "./config/previews.ts";
import { missingS3Setting, STORAGE_VARIABLES } from "./config/storage.ts";

export { LOG_LEVELS, type LogLevelName } from "./config/connections.ts";
export { PROTOCOL_MAX_DOC_BYTES } from "./config/service.ts";

// Declared beside the rows, so a row's own helpers (config/storage.ts) can throw it too.
import { ConfigError } from "./config/variable.ts";
export { ConfigError };

type Env = Record<string, string | undefined>;

/** Every variable, in the order defaults may refer to earlier ones; keyed by its Config field. */
export const VARIABLES = {
  ...PROCESS_VARIABLES,
  ...STORAGE_VARIABLES,
  ...CONNECTION_VARIABLES,
  ...SERVICE_VARIABLES,
  ...ACCOUNT_VARIABLES,
  ...PREVIEW_VARIABLES,
} satisfies Record<string, Variable>;

type Table = typeof VARIABLES;
export type Config = { -readonly [K in keyof Table]: z.output<Table[K]["parse"]> };

/** The table as a list, each with its Config field. */
export const variables = (): (Variable & { key: keyof Config })[] =>
  Object.entries(VARIABLES).map(([key, v]) => ({ ...v, key: key as keyof Config }));

/** Where KV lives: a file on this machine, this process's memory, or a remote store. */
export function kvLocation(kvPath: string): "file" | "memory" | "remote" {
  // "" opens Deno Deploy's managed KV; a URL is KV Connect.
  if (kvPath === "" || kvPath.includes("://")) return "remote";
  return kvPath === ":memory:" ? "memory" : "file";
}

/**
 * Whether the service keeps anything on this machine's disk (the fs blob store or a KV file).
 * When not (Deno Deploy mode: remote or `:memory:` KV with the kv blob store), nothing is
 * written to disk: no DRIVE_DATA_DIR, no secrets.key, no disk-based background task.
 */
export function usesDataDir(config: Pick<Config, "kvPath" | "blobStore">): boolean {
  return config.blobStore === "fs" || kvLocation(config.kvPath) === "file";
}

/** Rules between variables, checked once every one parsed. */
function checkTogether(c: Config): void {
  const s3 = missingS3Setting(c);
  if (s3) throw new ConfigError(s3);
  // A lease must reach several renewals ahead, or one slow renewal (a busy KV) would make a
  // live write look abandoned.
  if (c.writeLeaseExpiryMs < 3 * c.writeLeaseRenewMs) {
    throw new ConfigError(
      "DRIVE_WRITE_LEASE_EXPIRY_MS must be at least 3 times DRIVE_WRITE_LEASE_RENEW_MS",
    );
  }
  // Machines sharing a remote KV share no disk, so a key file would differ between them, and a
  // key stored in KV beside the secrets would protect nothing.
  if (!c.secretsKey && kvLocation(c.kvPath) === "remote") {
    throw new ConfigError(
      "DRIVE_SECRETS_KEY is required with a remote KV (Deno Deploy or KV Connect): " +
        "generate one with `openssl rand -base64 32` (see docs/deploy.md)",
    );
  }
}

function stdoutIsTerminal(): boolean {
  try {
    return Deno.stdout.isTerminal();
  } catch {
    return false;
  }
}

/** One variable's effective text and where it came from. */
export interface Effective {
  name: string;
  value: string | undefined;
  from: "environment" | "default";
  secret: boolean;
}

/** Resolves and parses every variable in table order; a bad one throws its ConfigError. */
function resolve(env: Env): { config: Config; effective: Effective[] } {
  const text = new Map<string, string>();
  const ctx: DefaultContext = {
    value: (name) => text.get(name) ?? "",
    onDenoDeploy: Boolean(env.DENO_DEPLOYMENT_ID),
    stdoutIsTerminal: stdoutIsTerminal(),
  };
  const config: Record<string, unknown> = {};
  const effective: Effective[] = [];
  for (const v of variables()) {
    const given = env[v.name];
    const fromEnv = given !== undefined && given !== "";
    const raw = fromEnv ? given : typeof v.default === "function" ? v.default(ctx) : v.default;
    if (raw !== undefined) text.set(v.name, raw);
    const parsed = v.parse.safeParse(raw);
    if (!parsed.success) {
      const message = parsed.error.issues[0].message;
      const got = v.secret ? "" : `, got "${raw}"`;
      throw new ConfigError(`${v.name}${message.startsWith(":") ? "" : " "}${message}${got}`);
    }
    config[v.key] = parsed.data;
    effective.push({
      name: v.name,
      value: raw,
      from: fromEnv ? "environment" : "default",
      secret: v.secret ?? false,
    });
  }
  checkTogether(config as Config);
  return { config: config as Config, effective };
}

export function readConfig(env: Env = Deno.env.toObject()): Config {
  return resolve(env).config;
}

/** Every variable's effective value (secrets masked) and its source: `admin config`. */
export function effectiveConfig(env: Env = Deno.env.toObject()): Effective[] {
  return resolve(env).effective.map((e) =>
    e.secret && e.value ? { ...e, value: "(set, not shown)" } : e
  );
}
