/** Runtime configuration, read once from the environment (see ../shared/spec/runtime-and-admin.md). */
import { Buffer } from "node:buffer";
import { type IpRange, parseCidr } from "./lib/ip.ts";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Deno.openKv's argument; "" opens Deno Deploy's managed KV. */
  kvPath: string;
  blobStore: "fs" | "kv";
  /** Set only when DRIVE_ADMIN_TOKEN is given; otherwise the token lives hashed in KV. */
  adminToken: string | null;
  publicUrl: string;
  providerMaxDocBytes: number;
  defaultQuotaBytes: number;
  officeLockTtlSeconds: number;
  officeStrictUser: boolean;
  /** DRIVE_SECRETS_KEY: 32 bytes (base64) encrypting adapter secrets at rest; see docs/provider.md. */
  secretsKey: Uint8Array | null;
  /**
   * Blob writer leases (blobs/leases.ts, docs/security.md "Leftovers"): a process with writes
   * running renews its lease every `writeLeaseRenewMs`; writes of one not renewed for
   * `writeLeaseExpiryMs` are abandoned.
   */
  writeLeaseRenewMs: number;
  writeLeaseExpiryMs: number;
  /**
   * DRIVE_TRUSTED_PROXIES: the reverse proxies whose X-Forwarded-For names the client (addresses
   * and CIDR ranges, IPv4 and IPv6); empty = the header is never believed. See docs/security.md.
   */
  trustedProxies: readonly IpRange[];
  /** Connection limits (serve.ts, docs/security.md): each in ms, and the connection cap. */
  headerTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** Request and operational logs (api/ops/logging.ts, docs/operations.md "Logs"). */
  logFormat: "json" | "text";
  logLevel: LogLevelName;
  /** DRIVE_METRICS_TOKEN: when set, GET /metrics needs it as a Bearer token. */
  metricsToken: string | null;
  /** DRIVE_MIN_FREE_BYTES: /readyz fails below this much free disk (fs blob store). */
  minFreeBytes: number;
  /** DRIVE_UPLOAD_EXPIRY_S: how long an unfinished tus upload is kept (docs/api.md "tus"). */
  uploadExpiryMs: number;
  /** DRIVE_UPLOAD_MAX_BYTES: the largest Upload-Length accepted (advertised as Tus-Max-Size). */
  uploadMaxBytes: number;
  /**
   * DRIVE_EVENT_RETENTION_DAYS: how long the event log (change feed and activity) keeps an
   * event; a feed cursor older than that answers 410 CHANGES_001 (docs/changes.md).
   */
  eventRetentionDays: number;
  /**
   * Webhook delivery (kv/events/webhook_delivery.ts, docs/changes.md "Webhooks"):
   * DRIVE_WEBHOOK_TIMEOUT_MS per attempt; DRIVE_WEBHOOK_ALLOW_PRIVATE lets endpoints on
   * loopback, private and link-local addresses be reached; a failed attempt is retried after
   * DRIVE_WEBHOOK_RETRY_BASE_MS doubling each time, for DRIVE_WEBHOOK_RETRY_WINDOW_S.
   */
  webhookTimeoutMs: number;
  webhookAllowPrivate: boolean;
  webhookRetryBaseMs: number;
  webhookRetryWindowMs: number;
  /**
   * DRIVE_TRASH_RETENTION_DAYS: trash items older than this are purged by the hourly retention
   * job (kv/lifecycle/retention.ts); 0 keeps the trash until emptied by hand.
   */
  trashRetentionDays: number;
  /** DRIVE_VERSIONS_KEEP: stored versions kept per file by the retention job; 0 keeps all. */
  versionsKeep: number;
  /**
   * DRIVE_LIST_WORKERS: worker threads building provider `list` answers (provider/list_pool.ts);
   * used with a KV file only, 0 builds them on the main thread.
   */
  listWorkers: number;
  /**
   * DRIVE_LIST_CONCURRENCY: large listings (provider `list` answers, drive API folder and trash
   * pages) built at once per thread that builds them (the main thread, or each listing worker);
   * later ones wait their turn (Deps.listingTurns, provider/list_pool.ts).
   */
  listConcurrency: number;
}

export const LOG_LEVELS = ["trace", "debug", "info", "warning", "error", "fatal"] as const;
export type LogLevelName = typeof LOG_LEVELS[number];

/**
 * DRIVE_LOG_FORMAT and DRIVE_LOG_LEVEL. JSON by default when stdout is not a terminal (a log
 * collector reads it), a readable line when a person watches. `warn` is taken for `warning`.
 */
function logVars(
  env: Record<string, string | undefined>,
  stdoutIsTerminal: boolean,
): Pick<Config, "logFormat" | "logLevel"> {
  const format = (env.DRIVE_LOG_FORMAT || (stdoutIsTerminal ? "text" : "json")).toLowerCase();
  if (format !== "json" && format !== "text") {
    throw new ConfigError(`DRIVE_LOG_FORMAT must be "json" or "text", got "${format}"`);
  }
  const rawLevel = (env.DRIVE_LOG_LEVEL || "info").toLowerCase();
  const level = rawLevel === "warn" ? "warning" : rawLevel;
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(
      `DRIVE_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.DRIVE_LOG_LEVEL}"`,
    );
  }
  return { logFormat: format, logLevel: level as LogLevelName };
}

function stdoutIsTerminal(): boolean {
  try {
    return Deno.stdout.isTerminal();
  } catch {
    return false;
  }
}

function trustedProxiesVar(env: Record<string, string | undefined>): IpRange[] {
  const raw = (env.DRIVE_TRUSTED_PROXIES ?? "").trim();
  if (raw === "") return [];
  return raw.split(",").map((entry) => {
    const range = parseCidr(entry);
    if (!range) {
      throw new ConfigError(
        `DRIVE_TRUSTED_PROXIES: "${entry.trim()}" is not an IP address or CIDR range`,
      );
    }
    return range;
  });
}

/**
 * A lease must reach several renewals ahead, or one slow renewal (a busy KV) would make a live
 * write look abandoned.
 */
function writeLeaseVars(
  env: Record<string, string | undefined>,
): Pick<Config, "writeLeaseRenewMs" | "writeLeaseExpiryMs"> {
  const renew = intVar(env, "DRIVE_WRITE_LEASE_RENEW_MS", 10_000);
  const expiry = intVar(env, "DRIVE_WRITE_LEASE_EXPIRY_MS", 120_000);
  if (renew < 1) throw new ConfigError("DRIVE_WRITE_LEASE_RENEW_MS must be at least 1");
  if (expiry < 3 * renew) {
    throw new ConfigError(
      "DRIVE_WRITE_LEASE_EXPIRY_MS must be at least 3 times DRIVE_WRITE_LEASE_RENEW_MS",
    );
  }
  return { writeLeaseRenewMs: renew, writeLeaseExpiryMs: expiry };
}

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

/**
 * DRIVE_SECRETS_KEY. Required with a remote KV: machines sharing it share no disk, so a key file
 * would differ between them, and a key stored in KV beside the secrets would protect nothing.
 */
function secretsKeyVar(
  env: Record<string, string | undefined>,
  kvPath: string,
): Uint8Array | null {
  const raw = env.DRIVE_SECRETS_KEY;
  if ((raw === undefined || raw === "") && kvLocation(kvPath) === "remote") {
    throw new ConfigError(
      "DRIVE_SECRETS_KEY is required with a remote KV (Deno Deploy or KV Connect): " +
        "generate one with `openssl rand -base64 32` (see docs/deploy.md)",
    );
  }
  if (raw === undefined || raw === "") return null;
  const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw) ? Buffer.from(raw, "base64") : null;
  if (!bytes || bytes.byteLength !== 32) {
    throw new ConfigError("DRIVE_SECRETS_KEY must be 32 bytes, base64-encoded");
  }
  return new Uint8Array(bytes);
}

export const PROTOCOL_MAX_DOC_BYTES = 314_572_800;

export class ConfigError extends Error {}

function intVar(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw)) {
    throw new ConfigError(`${name} must be a non-negative integer, got "${raw}"`);
  }
  const value = Number(raw);
  if (!Number.isSafeInteger(value)) throw new ConfigError(`${name} is too large`);
  return value;
}

/** intVar for limits where 0 would mean "cut everything at once": at least 1. */
function positiveIntVar(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
): number {
  const value = intVar(env, name, fallback);
  if (value < 1) throw new ConfigError(`${name} must be at least 1, got "${env[name]}"`);
  return value;
}

function boolVar(env: Record<string, string | undefined>, name: string): boolean {
  const raw = (env[name] ?? "").toLowerCase();
  if (raw === "" || raw === "false" || raw === "0") return false;
  if (raw === "true" || raw === "1") return true;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** Deno Deploy has no writable file system, so its default blob store is KV. */
function onDenoDeploy(env: Record<string, string | undefined>): boolean {
  return Boolean(env.DENO_DEPLOYMENT_ID);
}

export function readConfig(env: Record<string, string | undefined> = Deno.env.toObject()): Config {
  const port = intVar(env, "PORT", 8000);
  if (port > 65535) throw new ConfigError("PORT must be at most 65535");
  const dataDir = env.DRIVE_DATA_DIR || "./data";
  const blobStore = env.DRIVE_BLOB_STORE || (onDenoDeploy(env) ? "kv" : "fs");
  if (blobStore !== "fs" && blobStore !== "kv") {
    throw new ConfigError(`DRIVE_BLOB_STORE must be "fs" or "kv", got "${blobStore}"`);
  }
  const providerMaxDocBytes = intVar(
    env,
    "DRIVE_PROVIDER_MAX_DOC_BYTES",
    PROTOCOL_MAX_DOC_BYTES,
  );
  if (providerMaxDocBytes > PROTOCOL_MAX_DOC_BYTES) {
    throw new ConfigError(
      `DRIVE_PROVIDER_MAX_DOC_BYTES may be lowered but never above ${PROTOCOL_MAX_DOC_BYTES}`,
    );
  }
  const publicUrl = (env.DRIVE_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, "");
  try {
    new URL(publicUrl);
  } catch {
    throw new ConfigError(`DRIVE_PUBLIC_URL is not a URL: "${publicUrl}"`);
  }
  // On Deno Deploy an empty path opens the project's managed KV.
  const kvPath = env.DRIVE_KV || (onDenoDeploy(env) ? "" : `${dataDir}/drive.kv`);
  return {
    port,
    host: env.HOST || "0.0.0.0",
    dataDir,
    kvPath,
    blobStore,
    adminToken: env.DRIVE_ADMIN_TOKEN || null,
    publicUrl,
    providerMaxDocBytes,
    defaultQuotaBytes: intVar(env, "DRIVE_DEFAULT_QUOTA_BYTES", 10_737_418_240),
    officeLockTtlSeconds: intVar(env, "DRIVE_OFFICE_LOCK_TTL_S", 1800),
    officeStrictUser: boolVar(env, "DRIVE_OFFICE_STRICT_USER"),
    secretsKey: secretsKeyVar(env, kvPath),
    ...writeLeaseVars(env),
    trustedProxies: trustedProxiesVar(env),
    headerTimeoutMs: positiveIntVar(env, "DRIVE_HEADER_TIMEOUT_MS", 10_000),
    bodyIdleTimeoutMs: positiveIntVar(env, "DRIVE_BODY_IDLE_TIMEOUT_MS", 30_000),
    keepAliveTimeoutMs: positiveIntVar(env, "DRIVE_KEEPALIVE_TIMEOUT_MS", 60_000),
    maxConnections: positiveIntVar(env, "DRIVE_MAX_CONNECTIONS", 4096),
    ...logVars(env, stdoutIsTerminal()),
    metricsToken: env.DRIVE_METRICS_TOKEN || null,
    minFreeBytes: intVar(env, "DRIVE_MIN_FREE_BYTES", 268_435_456),
    uploadExpiryMs: positiveIntVar(env, "DRIVE_UPLOAD_EXPIRY_S", 86_400) * 1000,
    uploadMaxBytes: positiveIntVar(env, "DRIVE_UPLOAD_MAX_BYTES", 1_099_511_627_776),
    eventRetentionDays: positiveIntVar(env, "DRIVE_EVENT_RETENTION_DAYS", 30),
    webhookTimeoutMs: positiveIntVar(env, "DRIVE_WEBHOOK_TIMEOUT_MS", 10_000),
    webhookAllowPrivate: boolVar(env, "DRIVE_WEBHOOK_ALLOW_PRIVATE"),
    webhookRetryBaseMs: positiveIntVar(env, "DRIVE_WEBHOOK_RETRY_BASE_MS", 5_000),
    webhookRetryWindowMs: positiveIntVar(env, "DRIVE_WEBHOOK_RETRY_WINDOW_S", 86_400) * 1000,
    trashRetentionDays: intVar(env, "DRIVE_TRASH_RETENTION_DAYS", 30),
    versionsKeep: intVar(env, "DRIVE_VERSIONS_KEEP", 0),
    listWorkers: intVar(env, "DRIVE_LIST_WORKERS", 0),
    listConcurrency: positiveIntVar(env, "DRIVE_LIST_CONCURRENCY", 2),
  };
}
