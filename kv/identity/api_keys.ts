/**
 * API keys. The key handed out is `drv_<keyId>_<secret>`; only SHA-256(secret) is stored, and it
 * is compared in constant time. Revoked keys stay listed (with revokedAt) but never authenticate.
 * A disabled key (disabledAt) is refused with AUTH_005 until an administrator enables it again;
 * a key of a disabled user or tenant is refused with AUTH_006.
 *
 * App passwords are the same keys, created by their user while signed in (`createdBy: "user"`),
 * with an optional expiry: an expired key authenticates no more, like a revoked one.
 */
import { commit, commitWithRetry, CONFLICT, getManyValues } from "../db.ts";
import { fail } from "../errors.ts";
import { digestsEqual, randomToken, sha256Hex } from "../../lib/secrets.ts";
import { accountDisabledReason, getUser, requireUser, type User, userStanding } from "./users.ts";
import type { FactCache } from "../deps.ts";
import { apiKeyByUserKey, apiKeyKey } from "../keys.ts";
import { sessionStillActive } from "./sessions.ts";

export type Scope = "api:read" | "api:write";

export interface ApiKey {
  keyId: string;
  userSeq: number;
  scopes: Scope[];
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
  /** When an administrator disabled the key (null: enabled). Unlike a revocation, reversible. */
  disabledAt: string | null;
  /** When the key stops working (null: never). */
  expiresAt: string | null;
  /** Who made it: an administrator, or the user themselves (an app password). */
  createdBy: "admin" | "user";
}

export interface StoredApiKey extends Omit<ApiKey, "disabledAt" | "expiresAt" | "createdBy"> {
  secretHash: string;
  /** Absent on keys stored before keys could be disabled: enabled. */
  disabledAt?: string | null;
  /** Absent on keys stored before keys could expire: never. */
  expiresAt?: string | null;
  /** Absent on keys stored before app passwords: an administrator's. */
  createdBy?: "admin" | "user";
}

/** A key past its expiry is as good as revoked. */
const isExpired = (k: Pick<StoredApiKey, "expiresAt">, now = Date.now()) =>
  k.expiresAt != null && Date.parse(k.expiresAt) <= now;

const KEY_PATTERN = /^drv_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

/** Write implies read, so stored scopes always include api:read. */
function normalizeScopes(scopes: Scope[]): Scope[] {
  return scopes.includes("api:write") ? ["api:read", "api:write"] : ["api:read"];
}

export async function createApiKey(
  kv: Deno.Kv,
  input: {
    userSeq: number;
    scopes: Scope[];
    label?: string | null;
    expiresAt?: string | null;
    createdBy?: "admin" | "user";
  },
): Promise<{ key: ApiKey; apiKey: string }> {
  await requireUser(kv, input.userSeq);
  const keyId = randomToken(12).replace(/[-_]/g, "").slice(0, 16).padEnd(16, "0");
  const secret = randomToken(32);
  const stored: StoredApiKey = {
    keyId,
    userSeq: input.userSeq,
    scopes: normalizeScopes(input.scopes),
    label: input.label ?? null,
    createdAt: new Date().toISOString(),
    revokedAt: null,
    disabledAt: null,
    expiresAt: input.expiresAt ?? null,
    createdBy: input.createdBy ?? "admin",
    secretHash: sha256Hex(secret),
  };
  const res = await kv.atomic()
    .check({ key: apiKeyKey(keyId), versionstamp: null })
    .set(apiKeyKey(keyId), stored)
    .set(apiKeyByUserKey(input.userSeq, keyId), true)
    .commit();
  if (!res.ok) throw new Error("API key id collision");
  return { key: publicView(stored), apiKey: `drv_${keyId}_${secret}` };
}

/** The record as the API shows it: everything but the hash. */
export function publicView({ secretHash: _, ...key }: StoredApiKey): ApiKey {
  return {
    ...key,
    disabledAt: key.disabledAt ?? null,
    expiresAt: key.expiresAt ?? null,
    createdBy: key.createdBy ?? "admin",
  };
}

/**
 * The key's record and user when `presented` is a valid, unrevoked key; null otherwise. A valid
 * key that is disabled, or whose user or tenant is disabled, fails with AUTH_005 or AUTH_006:
 * the holder gets told why, since they already proved they hold the key.
 */
export async function verifyApiKey(
  kv: Deno.Kv,
  presented: string,
  /**
   * The process's identity cache (Deps.identity): the key record is read with the identity
   * epoch in one snapshot, and the user's standing comes from memory when still valid.
   */
  cache?: FactCache,
): Promise<{ key: ApiKey; user: User } | null> {
  const m = KEY_PATTERN.exec(presented);
  if (!m) return null;
  let stored: StoredApiKey | null;
  let epoch = 0n;
  if (cache) {
    const read = await cache.read([apiKeyKey(m[1])]);
    stored = read.entries[0].value as StoredApiKey | null;
    epoch = read.epoch;
  } else {
    stored = (await kv.get<StoredApiKey>(apiKeyKey(m[1]))).value;
  }
  // Hash even when the key is unknown so both paths cost the same.
  const presentedHash = sha256Hex(m[2]);
  if (!stored || !digestsEqual(presentedHash, stored.secretHash) || stored.revokedAt) return null;
  if (isExpired(stored)) return null;
  if (stored.disabledAt) fail("AUTH_005", `The API key ${stored.keyId} is disabled`);
  const standing = await userStanding(kv, stored.userSeq, cache && { cache, epoch });
  if (!standing) return null;
  if (standing.disabled) fail("AUTH_006", `The API key cannot be used: ${standing.disabled}`);
  return { key: publicView(stored), user: standing.user };
}

/**
 * Whether key `keyId` still acts for `userSeq`: it exists, is neither revoked nor disabled, and
 * its user and tenant are enabled. For credentials derived from a key (download tokens).
 */
export async function keyStillActive(
  kv: Deno.Kv,
  keyId: string,
  userSeq: number,
): Promise<boolean> {
  if (keyId.startsWith("session:")) return await sessionStillActive(kv, keyId.slice(8), userSeq);
  const stored = (await kv.get<StoredApiKey>(apiKeyKey(keyId))).value;
  if (!stored || stored.revokedAt || stored.disabledAt || stored.userSeq !== userSeq) return false;
  if (isExpired(stored)) return false;
  const user = await getUser(kv, userSeq);
  return user !== null && (await accountDisabledReason(kv, user)) === null;
}

/** One key's record (never its secret), or null. */
export async function getApiKey(kv: Deno.Kv, keyId: string): Promise<ApiKey | null> {
  const stored = (await kv.get<StoredApiKey>(apiKeyKey(keyId))).value;
  return stored ? publicView(stored) : null;
}

export async function listApiKeys(kv: Deno.Kv, userSeq?: number): Promise<ApiKey[]> {
  const out: ApiKey[] = [];
  if (userSeq === undefined) {
    for await (const e of kv.list<StoredApiKey>({ prefix: apiKeyKey() })) {
      out.push(publicView(e.value));
    }
    return out;
  }
  const ids: string[] = [];
  for await (const e of kv.list({ prefix: apiKeyByUserKey(userSeq) })) {
    ids.push(e.key[2] as string);
  }
  for (const stored of await getManyValues<StoredApiKey>(kv, ids.map((id) => apiKeyKey(id)))) {
    if (stored) out.push(publicView(stored));
  }
  return out;
}

/**
 * Revokes key `keyId`; with `owner`, only when it is that user's own key (an app password
 * revoked by its user; anyone else's key is KEY_001 to them, as if it did not exist).
 */
export function revokeApiKey(kv: Deno.Kv, keyId: string, owner?: number): Promise<ApiKey> {
  return commitWithRetry(async () => {
    const cur = await kv.get<StoredApiKey>(apiKeyKey(keyId));
    if (!cur.value || (owner !== undefined && cur.value.userSeq !== owner)) {
      fail("KEY_001", `No API key with id ${keyId}`, "keyId");
    }
    if (cur.value.revokedAt) return publicView(cur.value);
    const next = { ...cur.value, revokedAt: new Date().toISOString() };
    return (await commit(kv.atomic().check(cur).set(apiKeyKey(keyId), next))) === true
      ? publicView(next)
      : CONFLICT;
  });
}

/** Disables (reversibly) or enables an API key; a revoked key stays revoked either way. */
export function setApiKeyDisabled(kv: Deno.Kv, keyId: string, disabled: boolean): Promise<ApiKey> {
  return commitWithRetry(async () => {
    const cur = await kv.get<StoredApiKey>(apiKeyKey(keyId));
    if (!cur.value) fail("KEY_001", `No API key with id ${keyId}`, "keyId");
    const next: StoredApiKey = {
      ...cur.value,
      disabledAt: disabled ? (cur.value.disabledAt ?? new Date().toISOString()) : null,
    };
    return (await commit(kv.atomic().check(cur).set(apiKeyKey(keyId), next))) === true
      ? publicView(next)
      : CONFLICT;
  });
}

/**
 * Deletes every API key of a (deleted) user, records and index, 100 keys per commit. A deleted
 * key never authenticates again; idempotent, so a repeated call after a crash finishes the rest.
 */
export async function deleteApiKeysOf(kv: Deno.Kv, userSeq: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const page = await Array.fromAsync(
      kv.list({ prefix: apiKeyByUserKey(userSeq) }, { limit: 100 }),
    );
    if (page.length === 0) return deleted;
    const op = kv.atomic();
    for (const e of page) op.delete(e.key).delete(apiKeyKey(e.key[2] as string));
    await op.commit();
    deleted += page.length;
  }
}
