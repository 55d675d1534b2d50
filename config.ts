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

function secretsKeyVar(env: Record<string, string | undefined>): Uint8Array | null {
  const raw = env.DRIVE_SECRETS_KEY;
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
  return {
    port,
    host: env.HOST || "0.0.0.0",
    dataDir,
    // On Deno Deploy an empty path opens the project's managed KV.
    kvPath: env.DRIVE_KV || (onDenoDeploy(env) ? "" : `${dataDir}/drive.kv`),
    blobStore,
    adminToken: env.DRIVE_ADMIN_TOKEN || null,
    publicUrl,
    providerMaxDocBytes,
    defaultQuotaBytes: intVar(env, "DRIVE_DEFAULT_QUOTA_BYTES", 10_737_418_240),
    officeLockTtlSeconds: intVar(env, "DRIVE_OFFICE_LOCK_TTL_S", 1800),
    officeStrictUser: boolVar(env, "DRIVE_OFFICE_STRICT_USER"),
    secretsKey: secretsKeyVar(env),
    ...writeLeaseVars(env),
    trustedProxies: trustedProxiesVar(env),
    headerTimeoutMs: positiveIntVar(env, "DRIVE_HEADER_TIMEOUT_MS", 10_000),
    bodyIdleTimeoutMs: positiveIntVar(env, "DRIVE_BODY_IDLE_TIMEOUT_MS", 30_000),
    keepAliveTimeoutMs: positiveIntVar(env, "DRIVE_KEEPALIVE_TIMEOUT_MS", 60_000),
    maxConnections: positiveIntVar(env, "DRIVE_MAX_CONNECTIONS", 4096),
  };
}
