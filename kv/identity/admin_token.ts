/**
 * The admin bearer token. Given by DRIVE_ADMIN_TOKEN, or generated on first start and printed
 * once; either way only its SHA-256 is kept (in KV for a generated one).
 */
import { digestsEqual, randomToken, sha256Hex } from "../../lib/secrets.ts";
import { adminTokenKey } from "../keys.ts";

export interface AdminTokenCheck {
  verify(presented: string): boolean;
}

/**
 * Resolves the admin token. Returns the plain token only when it was generated right now, so
 * the caller can print it once.
 */
export async function initAdminToken(
  kv: Deno.Kv,
  configured: string | null,
): Promise<{ check: AdminTokenCheck; generated: string | null }> {
  let hash: string;
  let generated: string | null = null;
  if (configured) {
    hash = sha256Hex(configured);
  } else {
    const stored = await kv.get<{ hash: string }>(adminTokenKey());
    if (stored.value) {
      hash = stored.value.hash;
    } else {
      const token = `adm_${randomToken(32)}`;
      const res = await kv.atomic().check(stored).set(adminTokenKey(), {
        hash: sha256Hex(token),
        createdAt: new Date().toISOString(),
      }).commit();
      if (res.ok) {
        generated = token;
        hash = sha256Hex(token);
      } else {
        // Another process generated it first; use theirs.
        hash = (await kv.get<{ hash: string }>(adminTokenKey())).value!.hash;
      }
    }
  }
  return { check: { verify: (presented) => digestsEqual(sha256Hex(presented), hash) }, generated };
}
