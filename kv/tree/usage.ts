/**
 * Per-user storage usage (usage, kv/keys.ts): bytes of every stored content version,
 * trash included (trash counts until purged). Charged in the same commit that stores the
 * bytes' resource record, with a versionstamp check, so concurrent uploads cannot overshoot.
 */
import type { ErrorCode } from "../errors.ts";
import { fail } from "../errors.ts";
import { usageKey } from "../keys.ts";

export async function getUsage(kv: Deno.Kv, userSeq: number): Promise<number> {
  return (await kv.get<number>(usageKey(userSeq))).value ?? 0;
}

export async function readUsageEntry(kv: Deno.Kv, userSeq: number) {
  return await kv.get<number>(usageKey(userSeq));
}

/**
 * Adds the usage change to `op` (checked against `entry`'s versionstamp). A positive `delta`
 * that would pass `quotaBytes` fails with `code`.
 */
export function chargeUsage(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntryMaybe<number>,
  userSeq: number,
  delta: number,
  quotaBytes: number,
  code: ErrorCode,
) {
  const used = entry.value ?? 0;
  if (delta > 0 && used + delta > quotaBytes) {
    fail(
      code,
      `This needs ${delta} bytes but only ${Math.max(quotaBytes - used, 0)} of the quota are free`,
    );
  }
  op.check(entry).set(usageKey(userSeq), Math.max(used + delta, 0));
}

/**
 * Adds to `op` setting the usage of `userSeq` to `bytes` (a recount), checked against `entry`'s
 * versionstamp: every write that changes stored versions also writes the usage key, so the
 * commit fails if any such write landed after `entry` was read.
 */
export function setUsage(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntryMaybe<number>,
  userSeq: number,
  bytes: number,
) {
  op.check(entry).set(usageKey(userSeq), bytes);
}

/** Adds to `op` removing a deleted user's usage record (checked against `entry`). */
export function dropUsage(
  op: Deno.AtomicOperation,
  entry: Deno.KvEntryMaybe<number>,
  userSeq: number,
) {
  op.check(entry).delete(usageKey(userSeq));
}
