/**
 * Configuration rows (config.ts): the S3 blob store (`DRIVE_BLOB_STORE=s3`, blobs/s3.ts), and how
 * its settings and credentials become the client's (credentials from the environment or a file,
 * never printed: `secret` rows are masked by `admin config` and never echoed by an error).
 */
import { z } from "zod";
import { bool, optionalText } from "../lib/env_parsers.ts";
import { ConfigError, type Variable } from "./variable.ts";
import type { S3Settings } from "../blobs/s3_client.ts";

const S3_DOCS = "[docs/scale-out.md](docs/scale-out.md#bytes-on-s3)";

const endpoint = z.string().optional().transform((s) => s?.replace(/\/+$/, "") || null)
  .refine(
    (s) => s === null || (URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)),
    "must be an http(s) URL",
  );

export const STORAGE_VARIABLES = {
  s3Endpoint: {
    name: "DRIVE_S3_ENDPOINT",
    shownDefault: "(none)",
    parse: endpoint,
    about: `S3 endpoint \`http(s)://host[:port]\` (\`DRIVE_BLOB_STORE=s3\`; ${S3_DOCS})`,
  },
  s3Bucket: {
    name: "DRIVE_S3_BUCKET",
    shownDefault: "(none)",
    parse: optionalText,
    about: "bucket holding the blobs (objects `blobs/<id>`); it must exist",
  },
  s3Region: {
    name: "DRIVE_S3_REGION",
    default: "us-east-1",
    parse: z.string(),
    about: "region the requests are signed for",
  },
  s3PathStyle: {
    name: "DRIVE_S3_PATH_STYLE",
    default: "true",
    parse: bool,
    about: "`true`: `endpoint/bucket/key` URLs; `false`: virtual-hosted `bucket.endpoint/key`",
  },
  s3AccessKeyId: {
    name: "DRIVE_S3_ACCESS_KEY_ID",
    shownDefault: "(none)",
    parse: optionalText,
    about: "S3 access key id (or `DRIVE_S3_CREDENTIALS_FILE`)",
    secret: true,
  },
  s3SecretAccessKey: {
    name: "DRIVE_S3_SECRET_ACCESS_KEY",
    shownDefault: "(none)",
    parse: optionalText,
    about: "S3 secret access key (or `DRIVE_S3_CREDENTIALS_FILE`)",
    secret: true,
  },
  s3CredentialsFile: {
    name: "DRIVE_S3_CREDENTIALS_FILE",
    shownDefault: "(none)",
    parse: optionalText,
    about: 'file holding `{"accessKeyId": …, "secretAccessKey": …}`, read at start ' +
      "(instead of the two variables above)",
  },
} satisfies Record<string, Variable>;

/** The storage part of Config (config.ts cannot be imported here: it imports this table). */
export interface StorageConfig {
  blobStore: string;
  s3Endpoint: string | null;
  s3Bucket: string | null;
  s3Region: string;
  s3PathStyle: boolean;
  s3AccessKeyId: string | null;
  s3SecretAccessKey: string | null;
  s3CredentialsFile: string | null;
}

/** What `DRIVE_BLOB_STORE=s3` cannot do without; null when nothing is missing. */
export function missingS3Setting(c: StorageConfig): string | null {
  if (c.blobStore !== "s3") return null;
  if (!c.s3Endpoint) return "DRIVE_BLOB_STORE=s3 needs DRIVE_S3_ENDPOINT";
  if (!c.s3Bucket) return "DRIVE_BLOB_STORE=s3 needs DRIVE_S3_BUCKET";
  const keys = c.s3AccessKeyId !== null || c.s3SecretAccessKey !== null;
  if (keys && c.s3CredentialsFile) {
    return "set either DRIVE_S3_CREDENTIALS_FILE or the DRIVE_S3_*_KEY variables, not both";
  }
  if (!c.s3CredentialsFile && (!c.s3AccessKeyId || !c.s3SecretAccessKey)) {
    return "DRIVE_BLOB_STORE=s3 needs DRIVE_S3_ACCESS_KEY_ID and DRIVE_S3_SECRET_ACCESS_KEY " +
      "(or DRIVE_S3_CREDENTIALS_FILE)";
  }
  return c.s3CredentialsFile ? credentialsFileProblem(c.s3CredentialsFile) : null;
}

/**
 * A credentials file that could not be used; the message never quotes its content. readConfig
 * reads the file once to check it (missingS3Setting), so a bad file stops the start in one line
 * (main.ts, exit 2) before anything is opened.
 */
export class S3CredentialsError extends ConfigError {}

/** The keys in a credentials file's text, or S3CredentialsError naming the file only. */
function parseCredentials(path: string, text: string | null) {
  let parsed: unknown;
  try {
    if (text === null) throw new Error("unreadable");
    parsed = JSON.parse(text);
  } catch (err) {
    // The parser's message may quote the file: only its kind of failure is said.
    const why = err instanceof SyntaxError ? "is not JSON" : "cannot be read";
    throw new S3CredentialsError(`DRIVE_S3_CREDENTIALS_FILE ${path} ${why}`);
  }
  const file = parsed as { accessKeyId?: unknown; secretAccessKey?: unknown } | null;
  if (typeof file?.accessKeyId !== "string" || typeof file.secretAccessKey !== "string") {
    throw new S3CredentialsError(
      `DRIVE_S3_CREDENTIALS_FILE ${path} needs string accessKeyId and secretAccessKey`,
    );
  }
  return { accessKeyId: file.accessKeyId, secretAccessKey: file.secretAccessKey };
}

function readOrNull(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return null;
  }
}

/** A credentials file that cannot be used, said without its content; null when it can. */
function credentialsFileProblem(path: string): string | null {
  try {
    parseCredentials(path, readOrNull(path));
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The client's settings, reading the credentials file when one is named. */
export async function s3Settings(c: StorageConfig): Promise<S3Settings> {
  // readConfig checked all this; the file is read again, as it is now.
  const path = c.s3CredentialsFile;
  const missing = missingS3Setting({ ...c, blobStore: "s3", s3CredentialsFile: null });
  if (!c.s3Endpoint || !c.s3Bucket || (!path && missing)) {
    throw new S3CredentialsError(missing ?? "DRIVE_BLOB_STORE=s3 needs its DRIVE_S3_* settings");
  }
  const keys = path
    ? parseCredentials(path, await Deno.readTextFile(path).catch(() => null))
    : { accessKeyId: c.s3AccessKeyId!, secretAccessKey: c.s3SecretAccessKey! };
  return {
    endpoint: c.s3Endpoint!,
    bucket: c.s3Bucket!,
    region: c.s3Region,
    pathStyle: c.s3PathStyle,
    ...keys,
  };
}
