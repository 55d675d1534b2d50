/**
 * API keys. The key handed out is `drv_<keyId>_<secret>`; only SHA-256(secret) is stored, and it
 * is compared in constant time. Revoked keys stay listed (with revokedAt) but never authenticate.
 */
import { commit, commitWithRetry, CONFLICT, getManyValues } from "../db.ts";
import { fail } from "../errors.ts";
import { digestsEqual, randomToken, sha256Hex } from "../../lib/secrets.ts";
import { requireUser, type User } from "./users.ts";
import { apiKeyByUserKey, apiKeyKey } from "../keys.ts";

export type Scope = "api:read" | "api:write";

export interface ApiKey {
  keyId: string;
  userSeq: number;
  scopes: Scope[];
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

interface StoredApiKey extends ApiKey {
  secretHash: string;
}

const KEY_PATTERN = /^drv_([A-Za-z0-9]{16})_([A-Za-z0-9_-]{43})$/;

/** Write implies read, so stored scopes always include api:read. */
function normalizeScopes(scopes: Scope[]): Scope[] {
  return scopes.includes("api:write") ? ["api:read", "api:write"] : ["api:read"];
}

export async function createApiKey(
  kv: Deno.Kv,
  input: { userSeq: number; scopes: Scope[]; label?: string | null },
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

function publicView({ secretHash: _, ...key }: StoredApiKey): ApiKey {
  return key;
}

/** The key's record and user when `presented` is a valid, unrevoked key; null otherwise. */
export async function verifyApiKey(
  kv: Deno.Kv,
  presented: string,
): Promise<{ key: ApiKey; user: User } | null> {
  const m = KEY_PATTERN.exec(presented);
  if (!m) return null;
  const stored = (await kv.get<StoredApiKey>(apiKeyKey(m[1]))).value;
  // Hash even when the key is unknown so both paths cost the same.
  const presentedHash = sha256Hex(m[2]);
  if (!stored || !digestsEqual(presentedHash, stored.secretHash) || stored.revokedAt) return null;
  const user = await requireUser(kv, stored.userSeq).catch(() => null);
  return user ? { key: publicView(stored), user } : null;
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

export function revokeApiKey(kv: Deno.Kv, keyId: string): Promise<void> {
  return commitWithRetry(async () => {
    const cur = await kv.get<StoredApiKey>(apiKeyKey(keyId));
    if (!cur.value) fail("KEY_001", `No API key with id ${keyId}`);
    if (cur.value.revokedAt) return;
    const next = { ...cur.value, revokedAt: new Date().toISOString() };
    return (await commit(kv.atomic().check(cur).set(apiKeyKey(keyId), next))) === true
      ? undefined
      : CONFLICT;
  });
}
