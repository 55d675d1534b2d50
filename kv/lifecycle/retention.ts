/**
 * The retention job (docs/operations.md "Retention"): purges top-level trash items trashed more
 * than DRIVE_TRASH_RETENTION_DAYS ago (with their subtrees and shares, as an emptied trash does)
 * and, per file, the oldest stored versions beyond DRIVE_VERSIONS_KEEP (never the current one),
 * freeing their bytes with the usage lowered in the same commits. It also finishes deletions and
 * transfers a crash left half-done (kv/lifecycle/jobs.ts).
 *
 * `Deno.cron` runs it hourly: on Deno Deploy once for the whole deployment, on a host in every
 * process (deno.json's "unstable": ["cron"]). A lease in KV lets one process at a time do the
 * work; every step is idempotent anyway (a purge or version delete already done is skipped, each
 * commit checks what it read), so a lease that lapses mid-run costs repeated reads, never data.
 */
import type { Deps } from "../deps.ts";
import { isDriveError } from "../errors.ts";
import { getUser } from "../identity/users.ts";
import { retentionLeaseKey, trashIndexKey, versionKey } from "../keys.ts";
import { purgeTrashedWithShares } from "../sharing/purge.ts";
import type { ContentVersion } from "../tree/content_versions.ts";
import { type IndexValue, rsOfIndexValue } from "../tree/resources.ts";
import { getResource } from "../tree/resources.ts";
import { removeVersion } from "../tree/versions.ts";
import { finishTenantDeletion, finishUserDeletion } from "./delete_account.ts";
import { listJobs } from "./jobs.ts";
import { finishTransfer } from "./transfer.ts";

const DAY_MS = 86_400_000;
/** How long a run may hold the lease before another process may take over. */
const RETENTION_LEASE_MS = 15 * 60_000;
/** The cron: hourly, off the full hour that other jobs crowd. */
const RETENTION_SCHEDULE = "17 * * * *";
export const RETENTION_CRON_NAME = "drive retention";

interface RetentionLease {
  holder: string;
  until: number;
}

interface RetentionReport {
  /** false: another process holds the lease; nothing was done. */
  ran: boolean;
  trashPurged: number;
  versionsRemoved: number;
  freedBytes: number;
  jobsResumed: number;
}

/**
 * Takes the lease for `holder` when free or lapsed at `now`; true when taken. One checked commit,
 * so two processes never both take it.
 */
async function takeLease(kv: Deno.Kv, holder: string, now: number): Promise<boolean> {
  const cur = await kv.get<RetentionLease>(retentionLeaseKey());
  if (cur.value && cur.value.until > now && cur.value.holder !== holder) return false;
  const lease: RetentionLease = { holder, until: now + RETENTION_LEASE_MS };
  const res = await kv.atomic().check(cur).set(retentionLeaseKey(), lease, {
    expireIn: RETENTION_LEASE_MS,
  }).commit();
  return res.ok;
}

async function releaseLease(kv: Deno.Kv, holder: string): Promise<void> {
  const cur = await kv.get<RetentionLease>(retentionLeaseKey());
  if (cur.value?.holder !== holder) return;
  await kv.atomic().check(cur).delete(retentionLeaseKey()).commit();
}

/**
 * One run of the retention job as of `now` (tests pass their clock). Errors in one item are
 * logged and the run goes on; the next run retries them.
 */
export async function runRetention(
  d: Deps,
  opts: { now?: number; holder?: string } = {},
): Promise<RetentionReport> {
  const now = opts.now ?? Date.now();
  const holder = opts.holder ?? crypto.randomUUID();
  const report: RetentionReport = {
    ran: false,
    trashPurged: 0,
    versionsRemoved: 0,
    freedBytes: 0,
    jobsResumed: 0,
  };
  if (!(await takeLease(d.kv, holder, now))) return report;
  report.ran = true;
  try {
    report.jobsResumed = await resumeJobs(d);
    if (d.config.trashRetentionDays > 0) {
      await purgeOldTrash(d, now - d.config.trashRetentionDays * DAY_MS, report);
    }
    if (d.config.versionsKeep > 0) await pruneVersions(d, d.config.versionsKeep, report);
  } finally {
    await releaseLease(d.kv, holder);
  }
  return report;
}

/** Finishes every recorded deletion and transfer; returns how many. */
async function resumeJobs(d: Deps): Promise<number> {
  let n = 0;
  for (const job of await listJobs(d.kv)) {
    try {
      if (job.kind === "transfer") await finishTransfer(d, job);
      else if (job.kind === "tenant_delete") await finishTenantDeletion(d, job.id);
      else {
        const user = await getUser(d.kv, job.id);
        if (user) await finishUserDeletion(d, user);
      }
      n++;
    } catch (err) {
      console.error(`retention: could not finish ${job.kind} ${job.id}:`, err);
    }
  }
  return n;
}

/** Purges every top-level trash item trashed before `cutoff`, owner by owner. */
async function purgeOldTrash(d: Deps, cutoff: number, report: RetentionReport) {
  const due: { ownerSeq: number; rs: number }[] = [];
  for await (const e of d.kv.list<IndexValue>({ prefix: trashIndexKey() })) {
    const v = e.value;
    const r = typeof v === "number" ? await getResource(d.kv, v) : v;
    if (r && r.trashedAt !== null && r.trashedAt < cutoff) {
      due.push({ ownerSeq: r.ownerSeq, rs: rsOfIndexValue(v) });
    }
  }
  for (const item of due) {
    try {
      const done = await purgeTrashedWithShares(d, item);
      report.trashPurged++;
      report.freedBytes += done.freedBytes;
    } catch (err) {
      // Restored or purged meanwhile: nothing to do.
      if (!isDriveError(err, "RESOURCE_019")) console.error(`retention: purge ${item.rs}:`, err);
    }
  }
}

/**
 * Removes, per file, the oldest versions beyond the newest `keep` (the current one always stays).
 * Versions are listed in (rs, version) order, so one pass over the family finds them.
 */
async function pruneVersions(d: Deps, keep: number, report: RetentionReport) {
  let resourceSeq = -1;
  let versions: ContentVersion[] = [];
  const flush = async () => {
    if (versions.length > keep) {
      const file = await getResource(d.kv, resourceSeq);
      // Trashed files keep their versions until the trash is purged (restore brings them back).
      if (file && file.trashedAt === null) {
        const current = file.version;
        const older = versions.filter((v) => v.version !== current);
        const excess = versions.length - keep;
        for (const v of older.slice(0, excess)) {
          try {
            const removed = await removeVersion(d, {
              rs: resourceSeq,
              version: v.version,
              actorSeq: file.ownerSeq,
            });
            report.versionsRemoved++;
            report.freedBytes += removed.size;
          } catch (err) {
            if (!isDriveError(err)) {
              console.error(`retention: version ${resourceSeq}/${v.version}:`, err);
            }
          }
        }
      }
    }
    versions = [];
  };
  for await (const e of d.kv.list<ContentVersion>({ prefix: versionKey() })) {
    const entryRs = e.key[1] as number;
    if (entryRs !== resourceSeq) {
      await flush();
      resourceSeq = entryRs;
    }
    versions.push(e.value);
  }
  await flush();
}

/** What `Deno.cron` is, so a test can pass a recorder (and a host without the API nothing). */
type CronRegistrar = (
  name: string,
  schedule: string,
  options: { signal: AbortSignal },
  handler: () => Promise<void>,
) => unknown;

/**
 * Registers the hourly run with `Deno.cron`; returns how to stop it. Without Deno.cron (run
 * without deno.json's unstable "cron") it falls back to an hourly timer, saying so once.
 */
export function scheduleRetention(
  d: Deps,
  register: CronRegistrar | undefined = (Deno as { cron?: CronRegistrar }).cron,
): { stop(): void } {
  const controller = new AbortController();
  const run = async () => {
    try {
      const r = await runRetention(d);
      if (r.ran && (r.trashPurged || r.versionsRemoved || r.jobsResumed)) {
        console.log(
          `retention: purged ${r.trashPurged} trash items and ${r.versionsRemoved} versions, ` +
            `freed ${r.freedBytes} bytes, finished ${r.jobsResumed} jobs`,
        );
      }
    } catch (err) {
      if (!controller.signal.aborted) console.error("retention run failed:", err);
    }
  };
  if (register) {
    try {
      register(RETENTION_CRON_NAME, RETENTION_SCHEDULE, { signal: controller.signal }, run);
      return { stop: () => controller.abort() };
    } catch (err) {
      // A second service in one process (only tests start several): the name is taken by the
      // first one's cron, so this one's job runs only when called (as the tests call it).
      if (!(err instanceof TypeError && /already exists/.test(err.message))) throw err;
      return { stop: () => controller.abort() };
    }
  }
  console.warn('Deno.cron is not available (add "cron" to deno.json\'s unstable): hourly timer');
  const timer = setInterval(run, 3_600_000);
  Deno.unrefTimer(timer);
  return {
    stop() {
      controller.abort();
      clearInterval(timer);
    },
  };
}
