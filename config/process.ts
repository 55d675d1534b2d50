/**
 * Configuration rows (config.ts): where the service listens and keeps its data, and its secrets.
 */
import { z } from "zod";
import { host, int, oneOf, optionalText, secretsKey } from "../lib/env_parsers.ts";
import { OPS_DOCS, type Variable } from "./variable.ts";

export const PROCESS_VARIABLES = {
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
    parse: oneOf(["fs", "kv", "s3"]),
    about: "`fs` = files under `DRIVE_DATA_DIR/blobs`, `kv` = 63 KiB chunks inside Deno KV, " +
      "`s3` = objects in an S3 bucket (`DRIVE_S3_*`)",
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
      `when set, \`GET /metrics\` needs \`Authorization: Bearer <token>\`; see ${OPS_DOCS}#metrics)`,
    secret: true,
  },
} satisfies Record<string, Variable>;
