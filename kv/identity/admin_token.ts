/**
 * The admin bearer token. Given by DRIVE_ADMIN_TOKEN, or generated on first start and printed
 * once; either way only its SHA-256 is kept (in KV for a generated one). `admin
 * reset-admin-token` (cli/) replaces a generated one: every process reads the stored hash on each
 * check, so a reset takes effect everywhere at once and the old token stops working.
 */
import { digestsEqual, randomToken, sha256Hex } from "../../lib/secrets.ts";
import { adminTokenKey } from "../keys.ts";

export interface AdminTokenCheck {
  verify(presented: string): Promise<boolean>;
}

interface StoredAdminToken {
  hash: string;
  createdAt: string;
}

const newToken = () => `adm_${randomToken(32)}`;

/**
 * Resolves the admin token. Returns the plain token only when it was generated right now, so
 * the caller can print it once.
 */
export async function initAdminToken(
  kv: Deno.Kv,
  configured: string | null,
): Promise<{ check: AdminTokenCheck; generated: string | null }> {
  if (configured) {
    const hash = sha256Hex(configured);
    return {
      check: { verify: (p) => Promise.resolve(digestsEqual(sha256Hex(p), hash)) },
      generated: null,
    };
  }
  let generated: string | null = null;
  const stored = await kv.get<StoredAdminToken>(adminTokenKey());
  if (!stored.value) {
    const token = newToken();
    const record: StoredAdminToken = {
      hash: sha256Hex(token),
      createdAt: new Date().toISOString(),
    };
    // Another process may generate it first; then theirs stands and nothing is printed here.
    const res = await kv.atomic().check(stored).set(adminTokenKey(), record).commit();
    if (res.ok) generated = token;
  }
  // The stored hash is read on every check, so `admin reset-admin-token` takes effect at once.
  const verify = async (presented: string) => {
    // Hashed before the read so a wrong token costs the same as a right one.
    const presentedHash = sha256Hex(presented);
    const current = (await kv.get<StoredAdminToken>(adminTokenKey())).value;
    return current !== null && digestsEqual(presentedHash, current.hash);
  };
  return { check: { verify }, generated };
}

/**
 * Replaces the stored admin token with a new one and returns it (show it once). Refused when
 * DRIVE_ADMIN_TOKEN is set: that variable is the token then, and only changing it changes it.
 */
export async function resetAdminToken(kv: Deno.Kv, configured: string | null): Promise<string> {
  if (configured) {
    throw new Error(
      "DRIVE_ADMIN_TOKEN is set, so it is the admin token: change the variable and restart instead",
    );
  }
  const token = newToken();
  const record: StoredAdminToken = { hash: sha256Hex(token), createdAt: new Date().toISOString() };
  await kv.set(adminTokenKey(), record);
  return token;
}
