/**
 * Runtime configuration, read once from the environment (see ../shared/spec/runtime-and-admin.md).
 *
 * Every variable is declared once, in VARIABLES: its name, default, parser (zod), meaning and
 * what Deno Deploy needs of it. From that table come `readConfig`, the `Config` type, the
 * README's configuration table (scripts/gen_config_docs.ts; config_test.ts fails when it is
 * stale) and `deno task admin config` (`effectiveConfig`, secrets masked).
 */
import { z } from "zod";
import {
  bool,
  host,
  int,
  oneOf,
  optionalText,
  seconds,
  secretsKey,
  trustedProxies,
} from "./lib/env_parsers.ts";

export const LOG_LEVELS = ["trace", "debug", "info", "warning", "error", "fatal"] as const;
export type LogLevelName = typeof LOG_LEVELS[number];

export const PROTOCOL_MAX_DOC_BYTES = 314_572_800;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

/** What a default may depend on: variables above it in the table, and where the process runs. */
interface DefaultContext {
  /** The effective value of an earlier variable, as text. */
  value(name: string): string;
  onDenoDeploy: boolean;
  stdoutIsTerminal: boolean;
}

interface Variable {
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

const logLevel = oneOf(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`);

const ops = "[docs/operations.md](docs/operations.md";

/** Every variable, in the order defaults may refer to earlier ones; keyed by its Config field. */
export const VARIABLES = {
  port: { name: "PORT", default: "8000", parse: int(0, 65535), about: "TCP port" },
  host: { name: "HOST", default: "0.0.0.0", parse: host, about: "listen address" },
  publicUrl: {
    name: "DRIVE_PUBLIC_URL",
    default: (ctx) => `http://localhost:${ctx.value("PORT")}`,
    shownDefault: "`http://localhost:<PORT>`",
    parse: z.string().transform((s) => s.replace(/\/+$/, "")).refine(URL.canParse, "is not a URL"),
    about: "origin for absolute links (share links)",
    deploy: "recommended",
  },
  dataDir: {
    name: "DRIVE_DATA_DIR",
    default: "./data",
    parse: z.string(),
    about: "where the KV file and the file-system blob store live (created if missing)",
  },
  // On Deno Deploy an empty path opens the project's managed KV.
  kvPath: {
    name: "DRIVE_KV",
    default: (ctx) => ctx.onDenoDeploy ? "" : `${ctx.value("DRIVE_DATA_DIR")}/drive.kv`,
    shownDefault: "`<DRIVE_DATA_DIR>/drive.kv`",
    parse: z.string().optional().transform((s) => s ?? ""),
    about: "what `Deno.openKv` opens: a file path, `:memory:`, or a KV Connect URL",
  },
  // Deno Deploy has no writable file system, so its default blob store is KV.
  blobStore: {
    name: "DRIVE_BLOB_STORE",
    default: (ctx) => ctx.onDenoDeploy ? "kv" : "fs",
    shownDefault: "`fs` (`kv` on Deno Deploy)",
    parse: oneOf(["fs", "kv"]),
    about: "`fs` = files under `DRIVE_DATA_DIR/blobs`, `kv` = 63 KiB chunks inside Deno KV",
  },
  secretsKey: {
    name: "DRIVE_SECRETS_KEY",
    shownDefault: "key file `DRIVE_DATA_DIR/secrets.key`",
    parse: secretsKey,
    about: "base64 32-byte key sealing adapter secrets at rest (`openssl rand -base64 32`); " +
      "**required** with a remote KV (Deno Deploy, KV Connect); see " +
      "[docs/provider.md](docs/provider.md)",
    deploy: "required",
    secret: true,
  },
  adminToken: {
    name: "DRIVE_ADMIN_TOKEN",
    shownDefault: "generated on first start",
    parse: optionalText,
    about: "admin bearer token; a generated one is printed once and only its SHA-256 is stored",
    deploy: "recommended",
    secret: true,
  },
  metricsToken: {
    name: "DRIVE_METRICS_TOKEN",
    shownDefault: "(empty: open)",
    parse: optionalText,
    about:
      `when set, \`GET /metrics\` needs \`Authorization: Bearer <token>\`; see ${ops}#metrics)`,
    secret: true,
  },
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
      `request and server log lines on stdout: JSON Lines or a readable line; see ${ops}#logs)`,
  },
  logLevel: {
    name: "DRIVE_LOG_LEVEL",
    default: "info",
    // `warn` is taken for `warning`.
    parse: z.string().transform((s) => s.toLowerCase().replace(/^warn$/, "warning")).pipe(logLevel),
    about: "`trace`, `debug`, `info`, `warning` (`warn`), `error` or `fatal`; one line per " +
      "request is `info`",
  },
  eventRetentionDays: {
    name: "DRIVE_EVENT_RETENTION_DAYS",
    default: "30",
    parse: int(1),
    about: "days the event log keeps an event (change feed, activity); an older feed cursor is " +
      "410 `CHANGES_001` ([docs/changes.md](docs/changes.md))",
  },
  webhookTimeoutMs: {
    name: "DRIVE_WEBHOOK_TIMEOUT_MS",
    default: "10000",
    parse: int(1),
    about: "time limit of one webhook delivery attempt " +
      "([docs/changes.md](docs/changes.md#webhooks))",
  },
  webhookAllowPrivate: {
    name: "DRIVE_WEBHOOK_ALLOW_PRIVATE",
    default: "false",
    parse: bool,
    about: "`true` lets webhooks reach loopback, private and link-local addresses " +
      "(refused by default)",
  },
  webhookRetryBaseMs: {
    name: "DRIVE_WEBHOOK_RETRY_BASE_MS",
    default: "5000",
    parse: int(1),
    about: "delay after a failed webhook attempt; doubles with each further one (at most 10 h)",
  },
  webhookRetryWindowMs: {
    name: "DRIVE_WEBHOOK_RETRY_WINDOW_S",
    default: "86400",
    parse: seconds(1),
    about: "how long a webhook delivery is retried; an endpoint failing for that long is disabled",
  },
  trashRetentionDays: {
    name: "DRIVE_TRASH_RETENTION_DAYS",
    default: "30",
    parse: int(),
    about: "the hourly retention job purges trash older than this many days; `0` keeps it " +
      `(${ops}#retention))`,
  },
  versionsKeep: {
    name: "DRIVE_VERSIONS_KEEP",
    default: "0",
    shownDefault: "`0` (keep all)",
    parse: int(),
    about: "stored versions the retention job keeps per file (the current one always stays)",
  },
  minFreeBytes: {
    name: "DRIVE_MIN_FREE_BYTES",
    default: "268435456",
    parse: int(),
    about: "`GET /readyz` answers 503 below this much free disk under `DRIVE_DATA_DIR` " +
      "(fs blob store)",
  },
  kvReserveBytes: {
    name: "DRIVE_KV_RESERVE_BYTES",
    default: "33554432",
    parse: int(),
    about: "free disk the blob store leaves for KV: an upload that would leave less answers " +
      "507, so trash, purge and the audit of reads still commit on a full disk (fs blob " +
      'store, or a KV file); 0 turns it off; see docs/operations.md "Full disk"',
  },
  listWorkers: {
    name: "DRIVE_LIST_WORKERS",
    default: "0",
    parse: int(),
    about: "worker threads that build provider `list` answers beside the main thread (KV file " +
      "only): faster listings under load for more memory; see docs/operations.md " +
      '"Memory and CPU"',
  },
  listConcurrency: {
    name: "DRIVE_LIST_CONCURRENCY",
    default: "2",
    parse: int(1),
    about: "large listings (provider `list` answers, drive API folder and trash pages) built at " +
      "once per building thread (main thread or listing worker); the others wait their turn, " +
      "so memory does not grow with the number of listing clients",
  },
  uploadExpiryMs: {
    name: "DRIVE_UPLOAD_EXPIRY_S",
    default: "86400",
    parse: seconds(1),
    about: "seconds an unfinished tus upload (`/uploads`) is kept before it and its bytes are " +
      "removed",
  },
  uploadMaxBytes: {
    name: "DRIVE_UPLOAD_MAX_BYTES",
    default: "1099511627776",
    parse: int(1),
    about: "largest tus `Upload-Length` accepted (advertised as `Tus-Max-Size`)",
  },
  providerMaxDocBytes: {
    name: "DRIVE_PROVIDER_MAX_DOC_BYTES",
    default: String(PROTOCOL_MAX_DOC_BYTES),
    parse: int(
      0,
      PROTOCOL_MAX_DOC_BYTES,
      `may be lowered but never above ${PROTOCOL_MAX_DOC_BYTES}`,
    ),
    about: "the provider's document limit; may be lowered, never raised",
  },
  defaultQuotaBytes: {
    name: "DRIVE_DEFAULT_QUOTA_BYTES",
    default: "10737418240",
    parse: int(),
    about: "quota of a user created without one",
  },
  officeLockTtlSeconds: {
    name: "DRIVE_OFFICE_LOCK_TTL_S",
    default: "1800",
    parse: int(),
    about: "lease of an editor-session lock, renewed by lock and put",
  },
  officeStrictUser: {
    name: "DRIVE_OFFICE_STRICT_USER",
    default: "false",
    parse: bool,
    about: "`true`: editor `loginUserSeq` and `user_id` must name the key's own user " +
      "([docs/api.md](docs/api.md))",
  },
  // Blob writer leases (blobs/leases.ts): renewed every RENEW, abandoned after EXPIRY.
  writeLeaseRenewMs: {
    name: "DRIVE_WRITE_LEASE_RENEW_MS",
    default: "10000",
    parse: int(1),
    about: "how often a process with blob writes running renews its lease " +
      "([docs/security.md](docs/security.md))",
  },
  writeLeaseExpiryMs: {
    name: "DRIVE_WRITE_LEASE_EXPIRY_MS",
    default: "120000",
    parse: int(),
    about: "writes of a process whose lease went unrenewed this long are abandoned and their " +
      "leftovers removed",
  },
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
