/**
 * Storage provider adapters: a name and shared secret bound to a storage root (a user's drive,
 * or one folder of it), with the optional operations it offers and whether it may write.
 *   ["adapter", name] -> StoredAdapter
 * The secret is the HMAC key of every request JWT, so it cannot be stored hashed: it is sealed
 * with AES-256-GCM under the secrets key (DRIVE_SECRETS_KEY, else DATA_DIR/secrets.key, else a
 * key kept in KV; see docs/provider.md). It is returned only when created or rotated.
 */
import { releaseAdapterLocks } from "../../kv/tree/locks.ts";
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { commit, commitWithRetry, CONFLICT } from "../../kv/db.ts";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import { loadPath } from "../../kv/tree/resources.ts";
import { randomToken, sha256Hex } from "../../lib/secrets.ts";
import { requireUser } from "../../kv/identity/users.ts";
import { OPTIONAL_OPERATIONS, type OptionalOperation } from "./operations.ts";
import { adapterKey, adapterSecretsKeyKey } from "../../kv/keys.ts";

export const ADAPTER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const MIN_SECRET_BYTES = 32;
export const MAX_SECRET_BYTES = 1024;

export interface Adapter {
  name: string;
  userSeq: number;
  /** null: the whole drive of userSeq is the root. */
  folderSeq: number | null;
  operations: OptionalOperation[];
  readOnly: boolean;
  createdAt: string;
  secretUpdatedAt: string;
}

interface SealedSecret {
  /** Which secrets key sealed it (first 16 hex of its SHA-256), to diagnose a changed key. */
  keyId: string;
  iv: string;
  tag: string;
  data: string;
}

interface StoredAdapter extends Adapter {
  secret: SealedSecret;
}

// The secrets key is derived from configuration (env, key file or one KV record), the same in
// every process, so remembering it per KV handle changes no behaviour.
const secretsKeys = new WeakMap<Deno.Kv, Promise<Uint8Array>>();

function decodeKey(text: string, where: string): Uint8Array {
  const bytes = Buffer.from(text.trim(), "base64");
  if (bytes.byteLength !== 32) throw new Error(`${where} does not hold a 32-byte base64 key`);
  return new Uint8Array(bytes);
}

async function keyFromFile(dataDir: string): Promise<Uint8Array> {
  const path = join(dataDir, "secrets.key");
  try {
    return decodeKey(await Deno.readTextFile(path), path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  await Deno.mkdir(dataDir, { recursive: true });
  // Written under a temporary name and linked into place, so a concurrent starter never reads
  // a half-written key and exactly one key wins.
  const tmp = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(tmp, `${randomBytes(32).toString("base64")}\n`, {
    mode: 0o600,
    createNew: true,
  });
  try {
    await Deno.link(tmp, path);
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
  return decodeKey(await Deno.readTextFile(path), path);
}

async function keyFromKv(kv: Deno.Kv): Promise<Uint8Array> {
  // Once per KV handle: secretsKey() remembers the resolved key.
  console.warn(
    "warning: adapter secrets are encrypted with a key stored in KV itself; set DRIVE_SECRETS_KEY",
  );
  const cur = await kv.get<string>(adapterSecretsKeyKey());
  if (cur.value) return decodeKey(cur.value, "the KV secrets key");
  const fresh = randomBytes(32).toString("base64");
  await kv.atomic().check(cur).set(adapterSecretsKeyKey(), fresh).commit();
  return decodeKey((await kv.get<string>(adapterSecretsKeyKey())).value!, "the KV secrets key");
}

async function resolveSecretsKey(d: Deps): Promise<Uint8Array> {
  if (d.config.secretsKey) return d.config.secretsKey;
  // A remote KV (KV Connect URL, or Deno Deploy's managed KV: kvPath "") is shared by machines
  // that do not share a disk, so a local key file would differ between them.
  const localKv = d.config.kvPath !== "" && !d.config.kvPath.includes("://");
  if (localKv) {
    try {
      return await keyFromFile(d.config.dataDir);
    } catch (err) {
      // No writable file system: fall back to the KV-held key.
      const readOnlyFs = err instanceof Deno.errors.PermissionDenied ||
        err instanceof Deno.errors.NotSupported || err instanceof Deno.errors.NotCapable ||
        (err instanceof Error && /read-only file system/i.test(err.message));
      if (!readOnlyFs) throw err;
    }
  }
  return await keyFromKv(d.kv);
}

function secretsKey(d: Deps): Promise<Uint8Array> {
  let key = secretsKeys.get(d.kv);
  if (!key) {
    key = resolveSecretsKey(d);
    key.catch(() => secretsKeys.delete(d.kv));
    secretsKeys.set(d.kv, key);
  }
  return key;
}

const keyIdOf = (key: Uint8Array) => sha256Hex(key).slice(0, 16);

/** The adapter name is the additional data, so a sealed secret cannot be moved to another adapter. */
async function sealSecret(d: Deps, name: string, secret: string): Promise<SealedSecret> {
  const key = await secretsKey(d);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(name, "utf8"));
  const data = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return {
    keyId: keyIdOf(key),
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
}

async function openSecret(d: Deps, name: string, sealed: SealedSecret): Promise<string> {
  const key = await secretsKey(d);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"));
    decipher.setAAD(Buffer.from(name, "utf8"));
    decipher.setAuthTag(Buffer.from(sealed.tag, "base64"));
    const plain = Buffer.concat([
      decipher.update(Buffer.from(sealed.data, "base64")),
      decipher.final(),
    ]);
    return plain.toString("utf8");
  } catch {
    console.error(
      `adapter "${name}": its secret cannot be decrypted (sealed with key ${sealed.keyId}, ` +
        `current key ${keyIdOf(key)}); was DRIVE_SECRETS_KEY or secrets.key changed?`,
    );
    return fail("ADAPTER_006");
  }
}

function publicView({ secret: _, ...adapter }: StoredAdapter): Adapter {
  return adapter;
}

function checkSecret(secret: string): string {
  const bytes = new TextEncoder().encode(secret).byteLength;
  if (bytes < MIN_SECRET_BYTES) {
    fail(
      "ADAPTER_004",
      `secret has ${bytes} UTF-8 bytes; at least ${MIN_SECRET_BYTES} are needed`,
      "secret",
    );
  }
  if (bytes > MAX_SECRET_BYTES) {
    fail("REQUEST_001", `secret must be at most ${MAX_SECRET_BYTES} UTF-8 bytes`, "secret");
  }
  return secret;
}

/** Enabled optional operations in canonical order; lock and unlock only as a pair. */
export function normalizeOperations(
  ops: readonly OptionalOperation[] | undefined,
): OptionalOperation[] {
  const set = new Set(ops ?? OPTIONAL_OPERATIONS);
  if (set.has("lock") !== set.has("unlock")) {
    fail("ADAPTER_003", "operations must contain both lock and unlock, or neither", "operations");
  }
  return OPTIONAL_OPERATIONS.filter((op) => set.has(op));
}

async function checkRoot(kv: Deno.Kv, userSeq: number, folderSeq: number) {
  const loaded = await loadPath(kv, folderSeq);
  const folder = loaded?.path[0];
  if (
    !loaded || loaded.trashed || !folder || folder.type !== "FOLDER" || folder.ownerSeq !== userSeq
  ) {
    fail(
      "ADAPTER_005",
      `Resource ${folderSeq} is not a folder in the drive of user ${userSeq}`,
      "folderSeq",
    );
  }
}

export interface CreateAdapterInput {
  name: string;
  secret?: string;
  userSeq: number;
  folderSeq?: number | null;
  operations?: readonly OptionalOperation[];
  readOnly?: boolean;
}

/** Creates an adapter; returns it with its secret (generated from 32 random bytes when absent). */
export async function createAdapter(
  d: Deps,
  input: CreateAdapterInput,
): Promise<{ adapter: Adapter; secret: string }> {
  if (!ADAPTER_NAME_PATTERN.test(input.name)) {
    fail(
      "REQUEST_001",
      "name: 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit",
      "name",
    );
  }
  const secret = checkSecret(input.secret ?? randomToken(32));
  const operations = normalizeOperations(input.operations);
  await requireUser(d.kv, input.userSeq);
  if (input.folderSeq != null) await checkRoot(d.kv, input.userSeq, input.folderSeq);
  const now = new Date().toISOString();
  const stored: StoredAdapter = {
    name: input.name,
    userSeq: input.userSeq,
    folderSeq: input.folderSeq ?? null,
    operations,
    readOnly: input.readOnly ?? false,
    createdAt: now,
    secretUpdatedAt: now,
    secret: await sealSecret(d, input.name, secret),
  };
  const res = await d.kv.atomic()
    .check({ key: adapterKey(input.name), versionstamp: null })
    .set(adapterKey(input.name), stored)
    .commit();
  if (!res.ok) fail("ADAPTER_002", `An adapter named "${input.name}" already exists`, "name");
  return { adapter: publicView(stored), secret };
}

export async function listAdapters(kv: Deno.Kv): Promise<Adapter[]> {
  const out: Adapter[] = [];
  for await (const e of kv.list<StoredAdapter>({ prefix: adapterKey() })) {
    out.push(publicView(e.value));
  }
  return out;
}

export async function getAdapter(kv: Deno.Kv, name: string): Promise<Adapter | null> {
  const stored = (await kv.get<StoredAdapter>(adapterKey(name))).value;
  return stored ? publicView(stored) : null;
}

export async function requireAdapter(kv: Deno.Kv, name: string): Promise<Adapter> {
  return (await getAdapter(kv, name)) ?? fail("ADAPTER_001", `No adapter named "${name}"`, "name");
}

/** The adapter and its plain secret, for verifying or signing a request; null when unknown. */
export async function loadAdapterWithSecret(
  d: Deps,
  name: string,
): Promise<{ adapter: Adapter; secret: string } | null> {
  if (!ADAPTER_NAME_PATTERN.test(name)) return null;
  const stored = (await d.kv.get<StoredAdapter>(adapterKey(name))).value;
  if (!stored) return null;
  return { adapter: publicView(stored), secret: await openSecret(d, name, stored.secret) };
}

export async function deleteAdapter(kv: Deno.Kv, name: string): Promise<void> {
  const cur = await kv.get<StoredAdapter>(adapterKey(name));
  if (!cur.value) fail("ADAPTER_001", `No adapter named "${name}"`, "name");
  await kv.atomic().check(cur).delete(adapterKey(name)).commit();
  await releaseAdapterLocks(kv, name);
}

/** Replaces the secret (generated when not given); the old one stops verifying at once. */
export function rotateAdapterSecret(
  d: Deps,
  name: string,
  given?: string,
): Promise<{ name: string; secret: string }> {
  const secret = checkSecret(given ?? randomToken(32));
  return commitWithRetry(async () => {
    const cur = await d.kv.get<StoredAdapter>(adapterKey(name));
    if (!cur.value) fail("ADAPTER_001", `No adapter named "${name}"`, "name");
    const next: StoredAdapter = {
      ...cur.value,
      secretUpdatedAt: new Date().toISOString(),
      secret: await sealSecret(d, name, secret),
    };
    const ok = await commit(d.kv.atomic().check(cur).set(adapterKey(name), next));
    return ok === true ? { name, secret } : CONFLICT;
  });
}
