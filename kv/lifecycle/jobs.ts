/**
 * Deletions and transfers under way. Each is recorded before its first change and removed in the
 * commit of its last one, so a process that dies half-way leaves a record saying what to finish:
 * repeating the request finishes it, and so does the retention job (kv/lifecycle/retention.ts),
 * which resumes every recorded job. The work itself is idempotent, so a job resumed twice (two
 * processes) does no harm.
 */
import { lifecycleJobKey } from "../keys.ts";

type LifecycleKind = "user_delete" | "tenant_delete" | "transfer";

export interface LifecycleJob {
  kind: LifecycleKind;
  /** The user seq (user_delete, transfer: the source user) or the tenant id. */
  id: number;
  startedAt: number;
  /** transfer: the user receiving the drive, and the folder made for it in their root. */
  toUserSeq?: number;
  folderRs?: number | null;
}

/** The recorded job, or null. */
export async function getJob(
  kv: Deno.Kv,
  kind: LifecycleKind,
  id: number,
): Promise<Deno.KvEntryMaybe<LifecycleJob>> {
  return await kv.get<LifecycleJob>(lifecycleJobKey(kind, id));
}

/**
 * Records `job` unless one is recorded already; returns the recorded one (the first wins, so a
 * repeated request resumes the original job).
 */
export async function recordJob(kv: Deno.Kv, job: LifecycleJob): Promise<LifecycleJob> {
  const key = lifecycleJobKey(job.kind, job.id);
  for (;;) {
    const cur = await kv.get<LifecycleJob>(key);
    if (cur.value) return cur.value;
    const res = await kv.atomic().check(cur).set(key, job).commit();
    if (res.ok) return job;
  }
}

/** Replaces a recorded job's record (a transfer noting its folder). */
export async function updateJob(kv: Deno.Kv, job: LifecycleJob): Promise<void> {
  await kv.set(lifecycleJobKey(job.kind, job.id), job);
}

/** Adds to `op` removing the job's record: the job's last commit. */
export function dropJob(op: Deno.AtomicOperation, kind: LifecycleKind, id: number): void {
  op.delete(lifecycleJobKey(kind, id));
}

/** Every recorded job (few: one per deletion or transfer under way). */
export async function listJobs(kv: Deno.Kv): Promise<LifecycleJob[]> {
  const out: LifecycleJob[] = [];
  for await (const e of kv.list<LifecycleJob>({ prefix: lifecycleJobKey() })) out.push(e.value);
  return out;
}
