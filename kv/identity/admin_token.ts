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
  /**
   * False from generation until the start that generated it has printed it. A start that finds
   * it still false knows a token exists that nobody has seen (the first start failed before
   * printing it), and names `admin reset-admin-token`. Absent in records from before it: shown.
   */
  shown?: boolean;
}

const newToken = () => `adm_${randomToken(32)}`;

/**
 * Resolves the admin token. Returns the plain token only when it was generated right now, so
 * the caller can print it once (then `markAdminTokenShown`), and `unshown` when a token an
 * earlier start generated was never printed.
 */
export async function initAdminToken(
  kv: Deno.Kv,
  configured: string | null,
): Promise<{ check: AdminTokenCheck; generated: string | null; unshown: boolean }> {
  if (configured) {
    const hash = sha256Hex(configured);
    return {
      check: { verify: (p) => Promise.resolve(digestsEqual(sha256Hex(p), hash)) },
      generated: null,
      unshown: false,
    };
  }
  let generated: string | null = null;
  const stored = await kv.get<StoredAdminToken>(adminTokenKey());
  if (!stored.value) {
    const token = newToken();
    const record: StoredAdminToken = {
      hash: sha256Hex(token),
      createdAt: new Date().toISOString(),
      shown: false,
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
  const unshown = generated === null && stored.value?.shown === false;
  return { check: { verify }, generated, unshown };
}

/** Records that the generated token was printed, so later starts stop naming the reset. */
export async function markAdminTokenShown(kv: Deno.Kv): Promise<void> {
  const stored = await kv.get<StoredAdminToken>(adminTokenKey());
  if (stored.value?.shown !== false) return;
  // A reset meanwhile wrote a shown token; the check leaves that one alone.
  await kv.atomic().check(stored).set(adminTokenKey(), { ...stored.value, shown: true }).commit();
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
  // The CLI prints it as it returns, so it counts as shown.
  const record: StoredAdminToken = {
    hash: sha256Hex(token),
    createdAt: new Date().toISOString(),
    shown: true,
  };
  await kv.set(adminTokenKey(), record);
  return token;
}
