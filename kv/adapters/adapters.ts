/**
 * Storage provider adapters: a name and shared secret bound to a storage root (a user's drive,
 * or one folder of it), with the optional operations it offers and whether it may write.
 *   ["adapter", name] -> StoredAdapter
 * The secret is the HMAC key of every request JWT, so it cannot be stored hashed: it is sealed
 * with AES-256-GCM under the service's secrets key (Deps.secretsKey, kv/secrets_key.ts:
 * DRIVE_SECRETS_KEY, else DATA_DIR/secrets.key; see docs/provider.md). It is returned only when
 * created or rotated.
 */
import { releaseAdapterLocks } from "../tree/locks.ts";
import { openText, type SealedText, sealingKeyId, sealText } from "../../lib/sealed.ts";
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import type { Deps } from "../deps.ts";
import { fail } from "../errors.ts";
import { loadPath } from "../tree/resources.ts";
import { randomToken } from "../../lib/secrets.ts";
import { requireUser } from "../identity/users.ts";
import { OPTIONAL_OPERATIONS, type OptionalOperation } from "./operations.ts";
import { adapterKey } from "../keys.ts";

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

interface StoredAdapter extends Adapter {
  secret: SealedText;
}

/** The adapter name is the additional data, so a sealed secret cannot be moved to another adapter. */
async function sealSecret(d: Deps, name: string, secret: string): Promise<SealedText> {
  return sealText(await d.secretsKey.get(), name, secret);
}

async function openSecret(d: Deps, name: string, sealed: SealedText): Promise<string> {
  const key = await d.secretsKey.get();
  const plain = openText(key, name, sealed);
  if (plain === null) {
    console.error(
      `adapter "${name}": its secret cannot be decrypted (sealed with key ${sealed.keyId}, ` +
        `current key ${sealingKeyId(key)}); was DRIVE_SECRETS_KEY or secrets.key changed?`,
    );
    return fail("ADAPTER_006");
  }
  return plain;
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

/**
 * The adapter and its plain secret, for verifying or signing a request; null when unknown. The
 * record is read on every call, with the identity epoch in one snapshot (`epoch`, for the
 * user's standing next), through the process's identity facts (Deps.identity): a server keeps
 * the opened secret in memory under the record's versionstamp, so a rotation (a new
 * versionstamp) is seen by the very next request.
 */
export async function loadAdapterWithSecret(
  d: Deps,
  name: string,
  /** Keys to read in the same snapshot (provider/read_ahead.ts); their entries come back. */
  alsoRead: Deno.KvKey[] = [],
): Promise<
  { adapter: Adapter; secret: string; epoch: bigint; alsoRead: Deno.KvEntryMaybe<unknown>[] } | null
> {
  if (!ADAPTER_NAME_PATTERN.test(name)) return null;
  const { epoch, entries: [entry, ...also] } = await d.identity.read([
    adapterKey(name),
    ...alsoRead,
  ]);
  const stored = entry.value as StoredAdapter | null;
  if (!stored) return null;
  const secret = await d.identity.fact(
    epoch,
    "adapter_secret",
    `${name}@${entry.versionstamp}`,
    () => openSecret(d, name, stored.secret),
  );
  return { adapter: publicView(stored), secret, epoch, alsoRead: also };
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
