/**
 * Usage recount (`admin usage --recompute`, and fsck): each user's usage is the bytes of every
 * stored content version of the resources they own, trash included (kv/tree/usage.ts).
 *
 * Exact while the service runs and writes: every write that adds, removes or moves a stored
 * version writes the owner's usage key in the same commit. So the recount reads each user's
 * usage entry first, then sums the versions, then commits the sum checked against that entry's
 * versionstamp: a write that landed in between fails the check, and that user is counted again.
 */
import { listUsers } from "../identity/users.ts";
import { iterateResourceEntries } from "../tree/resources.ts";
import { iterateVersionEntries } from "../tree/content_versions.ts";
import { readUsageEntry, setUsage } from "../tree/usage.ts";

interface UsageRecount {
  userSeq: number;
  /** The usage stored before the recount. */
  storedBytes: number;
  /** The sum of the user's stored versions. */
  actualBytes: number;
  /** True when the stored usage was set to actualBytes (never on a dry run). */
  fixed: boolean;
}

const MAX_ROUNDS = 20;

/** Sums the stored versions of the resources owned by each of `users` (two full scans). */
async function sumStoredVersions(
  kv: Deno.Kv,
  users: ReadonlySet<number>,
): Promise<Map<number, number>> {
  const ownerOf = new Map<number, number>();
  for await (const e of iterateResourceEntries(kv)) {
    if (users.has(e.value.ownerSeq)) ownerOf.set(e.value.rs, e.value.ownerSeq);
  }
  const sums = new Map<number, number>([...users].map((u) => [u, 0]));
  for await (const { rs: resourceSeq, entry } of iterateVersionEntries(kv)) {
    const owner = ownerOf.get(resourceSeq);
    if (owner !== undefined) sums.set(owner, sums.get(owner)! + entry.value.size);
  }
  return sums;
}

/**
 * Recounts the usage of `userSeqs` (every user when omitted) and, unless `dryRun`, stores the
 * exact sums. Returns one line per user, in userSeq order.
 */
export async function recountUsage(
  kv: Deno.Kv,
  opts: { userSeqs?: number[]; dryRun?: boolean } = {},
): Promise<UsageRecount[]> {
  let pending = new Set(opts.userSeqs ?? (await listUsers(kv)).map((u) => u.userSeq));
  const done = new Map<number, UsageRecount>();
  for (let round = 0; pending.size > 0; round++) {
    if (round === MAX_ROUNDS) {
      throw new Error(
        `usage of users ${[...pending].join(", ")} kept changing during ${MAX_ROUNDS} recounts`,
      );
    }
    const seqs = [...pending];
    // Read first: any version write after this read changes the entry and fails the commit.
    const entries = await Promise.all(seqs.map((u) => readUsageEntry(kv, u)));
    const sums = await sumStoredVersions(kv, pending);
    const retry = new Set<number>();
    for (const [i, userSeq] of seqs.entries()) {
      const entry = entries[i];
      const storedBytes = entry.value ?? 0;
      const actualBytes = sums.get(userSeq) ?? 0;
      const fix = storedBytes !== actualBytes && !opts.dryRun;
      // Fixing: the checked commit. Only reporting: the same check, by reading the entry again.
      const unchanged = fix
        ? await commitSet(kv, entry, userSeq, actualBytes)
        : (await readUsageEntry(kv, userSeq)).versionstamp === entry.versionstamp;
      if (!unchanged) retry.add(userSeq);
      else done.set(userSeq, { userSeq, storedBytes, actualBytes, fixed: fix });
    }
    pending = retry;
  }
  return [...done.values()].sort((a, b) => a.userSeq - b.userSeq);
}

async function commitSet(
  kv: Deno.Kv,
  entry: Deno.KvEntryMaybe<number>,
  userSeq: number,
  bytes: number,
): Promise<boolean> {
  const op = kv.atomic();
  setUsage(op, entry, userSeq, bytes);
  return (await op.commit()).ok;
}
