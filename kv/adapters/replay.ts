/**
 * Replay protection of the storage provider protocol: every accepted request JWT's `jti` is
 * recorded until its `exp`, in KV, so every provider instance on the same KV refuses a reuse.
 *   ["provider_jti", adapterName, jti] -> { exp }   (expireIn until exp)
 * KV deletes expired keys lazily, so a record found after its own `exp` counts as free.
 */
import { commit, commitWithRetry, CONFLICT } from "../db.ts";
import { jtiKey } from "../keys.ts";

interface JtiRecord {
  /** Unix seconds, the JWT's exp. */
  exp: number;
}

/**
 * Records `jti` atomically. Returns false when it is already recorded and not yet expired (a
 * replay); true when this call recorded it.
 */
export function recordJti(
  kv: Deno.Kv,
  adapter: string,
  jti: string,
  exp: number,
  nowMs = Date.now(),
): Promise<boolean> {
  const key = jtiKey(adapter, jti);
  const record = { exp } satisfies JtiRecord;
  const expireIn = Math.max(exp * 1000 - nowMs, 0) + 1000;
  return commitWithRetry(async () => {
    // The common case, a jti never seen, in one commit and no read: it must not exist yet.
    const fresh = kv.atomic().check({ key, versionstamp: null }).set(key, record, { expireIn });
    if ((await commit(fresh)) === true) return true;
    // It exists: a replay, unless it is an expired record KV has not deleted yet.
    const cur = await kv.get<JtiRecord>(key);
    if (cur.value && cur.value.exp * 1000 > nowMs) return false;
    const op = kv.atomic().check(cur).set(key, record, { expireIn });
    return (await commit(op)) === true ? true : CONFLICT;
  });
}
