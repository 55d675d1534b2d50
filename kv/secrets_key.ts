/**
 * The key that seals adapter secrets at rest (AES-256-GCM, kv/adapters/adapters.ts). boot()
 * opens one per service and hands it down in Deps, so no module keeps a cache of its own. Where
 * the key comes from follows the storage mode (config.ts `kvLocation`, `usesDataDir`):
 * - DRIVE_SECRETS_KEY when set (required with a remote KV: readConfig refuses to start without
 *   it, since machines sharing a remote KV share no disk and a key beside the data would be no
 *   protection);
 * - else, when the service keeps data on disk, DRIVE_DATA_DIR/secrets.key (mode 0600), created
 *   on first use;
 * - else (an in-memory KV with KV blobs: nothing outlives the process) a random key of this
 *   process, so nothing is written to disk.
 */
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { type Config, kvLocation, usesDataDir } from "../config.ts";

export const SECRETS_KEY_FILE = "secrets.key";

export interface SecretsKey {
  /** The 32-byte key, resolved on first use and remembered; a failed resolution is retried. */
  get(): Promise<Uint8Array>;
}

function decodeKey(text: string, where: string): Uint8Array {
  const bytes = Buffer.from(text.trim(), "base64");
  if (bytes.byteLength !== 32) throw new Error(`${where} does not hold a 32-byte base64 key`);
  return new Uint8Array(bytes);
}

function randomKeyBase64(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
}

/** Reads DATA_DIR/secrets.key, creating it first when missing. */
async function keyFromFile(dataDir: string): Promise<Uint8Array> {
  const path = join(dataDir, SECRETS_KEY_FILE);
  try {
    return decodeKey(await Deno.readTextFile(path), path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.mkdir(dataDir, { recursive: true });
  // Written under a temporary name and linked into place, so a concurrent starter never reads
  // a half-written key and exactly one key wins.
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(tmp, `${randomKeyBase64()}\n`, { mode: 0o600, createNew: true });
  try {
    await Deno.link(tmp, path);
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
  return decodeKey(await Deno.readTextFile(path), path);
}

function resolve(config: Config): Promise<Uint8Array> {
  if (config.secretsKey) return Promise.resolve(config.secretsKey);
  if (usesDataDir(config)) return keyFromFile(config.dataDir);
  if (kvLocation(config.kvPath) === "remote") {
    // readConfig already refuses this; kept so a hand-built Config cannot seal under a key
    // that no other machine of the service would have.
    return Promise.reject(new Error("DRIVE_SECRETS_KEY is required with a remote KV"));
  }
  return Promise.resolve(crypto.getRandomValues(new Uint8Array(32)));
}

/** The service's secrets key source; call once per service (boot does). */
export function openSecretsKey(config: Config): SecretsKey {
  let pending: Promise<Uint8Array> | null = null;
  return {
    get() {
      if (!pending) {
        pending = resolve(config);
        pending.catch(() => pending = null);
      }
      return pending;
    },
  };
}
