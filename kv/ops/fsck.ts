/**
 * `admin fsck [--repair]`: checks the stored tree against its own rules, like seaf-fsck.
 *
 * - every live resource's parent exists, is a folder of the same owner;
 * - the index entries (name slot, size and update order, trash) are exactly the ones each
 *   record implies (`expectedIndexKeys`), pointing at it and carrying its current listing copy;
 * - every stored version belongs to an existing resource;
 * - each user's usage equals the sum of their stored versions (kv/ops/usage_recount.ts);
 * - every blob a version or record references exists in the blob store;
 * - blobs nothing references are counted (`admin sweep` removes them, after its minimum age);
 * - every event an enabled webhook wants has its delivery, and no webhook message waits to be
 *   run again (kv/ops/fsck_webhooks.ts).
 *
 * It runs while the service writes, so a full scan can see a write half-way between two of its
 * reads. Every suspect found by the scans is therefore confirmed by fresh point reads before it
 * is reported, and every repair is one commit checked against what it read: a repair that lost
 * a race is not applied and the problem is reported as not repaired.
 *
 * `--repair` fixes what is safe: missing or stale index entries (rewritten from the record, or
 * removed), versions of vanished resources (removed; their bytes become orphans for the sweep)
 * and usage (recounted). A missing parent, a taken name slot or a missing blob needs a person.
 */
import { blobExists } from "../../blobs/store.ts";
import type { Deps } from "../deps.ts";
import { getUser, listUsers } from "../identity/users.ts";
import { dropOrphanVersion, iterateVersionEntries } from "../tree/content_versions.ts";
import { sealedUploadBlobs } from "../tree/uploads.ts";
import { iterateRenditionBlobIds } from "../previews/renditions.ts";
import {
  dropStaleIndexEntry,
  expectedIndexKeys,
  getResourceEntry,
  type IndexValue,
  iterateIndexEntries,
  iterateResourceEntries,
  type Resource,
  rsOfIndexValue,
  writeResource,
} from "../tree/resources.ts";
import { checkWebhooks } from "./fsck_webhooks.ts";
import { recountUsage } from "./usage_recount.ts";

type ProblemKind =
  | "missing_parent"
  | "missing_owner"
  | "index_missing"
  | "name_conflict"
  | "index_stale"
  | "orphan_version"
  | "usage_mismatch"
  | "blob_missing"
  | "webhook_event_undelivered"
  | "webhook_messages_waiting";

interface Problem {
  kind: ProblemKind;
  /** What is wrong, in words. */
  detail: string;
  rs?: number;
  userSeq?: number;
  blobId?: string;
  webhookId?: string;
  /** Whether --repair fixed it (always false without --repair). */
  repaired: boolean;
}

interface FsckReport {
  repair: boolean;
  resources: number;
  versions: number;
  users: number;
  blobs: number;
  /** Blobs no version or record references (removed by `admin sweep`). */
  orphanBlobs: number;
  orphanBlobBytes: number;
  problems: Problem[];
  /** Problems left: not repaired (0 means the check passed). */
  unrepaired: number;
}

const keyId = (k: Deno.KvKey) => JSON.stringify(k, (_, v) => typeof v === "bigint" ? `${v}n` : v);

/** Runs every check; with `repair`, fixes what is safe. */
export async function fsck(
  d: Deps,
  opts: { repair: boolean; webhookGraceMs?: number },
): Promise<FsckReport> {
  const problems: Problem[] = [];
  const add = (p: Omit<Problem, "repaired">, repaired = false) => problems.push({ ...p, repaired });

  // Pass 1: the records (held in memory for the passes below: an admin tool's cost).
  const records = new Map<number, Resource>();
  const referenced = new Set<string>();
  const owners = new Set<number>();
  for await (const { value: r } of iterateResourceEntries(d.kv)) {
    records.set(r.rs, r);
    if (r.blobId) referenced.add(r.blobId);
    owners.add(r.ownerSeq);
  }

  for (const r of records.values()) {
    if (r.parentRs === null || r.trashedAt !== null) continue;
    const parent = records.get(r.parentRs);
    if (parent && parent.type === "FOLDER" && parent.ownerSeq === r.ownerSeq) continue;
    if (await parentBroken(d.kv, r.rs)) {
      add({
        kind: "missing_parent",
        rs: r.rs,
        detail: `${r.type} ${r.rs} "${r.name}": parent ${r.parentRs} is ${
          parent ? "not a folder of the same owner" : "missing"
        }`,
      });
    }
  }
  for (const ownerSeq of owners) {
    if (!(await getUser(d.kv, ownerSeq))) {
      add({
        kind: "missing_owner",
        userSeq: ownerSeq,
        detail: `user ${ownerSeq} owns resources but is gone`,
      });
    }
  }

  // Pass 2: the index entries. Whatever no record expects, or that points elsewhere, is stale.
  const seen = new Set<string>();
  for await (const entry of iterateIndexEntries(d.kv)) {
    const id = keyId(entry.key);
    seen.add(id);
    if (entryMatches(entry, records.get(rsOfIndexValue(entry.value)) ?? null)) continue;
    // Confirm against fresh reads: the record may have changed during the scan.
    const fresh = await d.kv.get<IndexValue>(entry.key);
    if (fresh.versionstamp === null || await indexEntryCurrent(d.kv, fresh)) continue;
    const resourceSeq = rsOfIndexValue(fresh.value);
    const record = await getResourceEntry(d.kv, resourceSeq);
    const owned = record.value !== null &&
      expectedIndexKeys(record.value).some((k) => keyId(k) === id);
    const detail = `index entry ${id} ${
      owned ? "holds an outdated copy of" : "points at"
    } resource ${resourceSeq}${record.value ? "" : " (gone)"}`;
    add(
      { kind: "index_stale", rs: resourceSeq, detail },
      opts.repair && await repairIndexEntry(d.kv, fresh as Deno.KvEntry<IndexValue>, record),
    );
  }
  for (const r of records.values()) {
    for (const k of expectedIndexKeys(r)) {
      if (seen.has(keyId(k))) continue;
      const rec = await getResourceEntry(d.kv, r.rs);
      if (!rec.value) continue;
      if (!expectedIndexKeys(rec.value).some((x) => keyId(x) === keyId(k))) continue;
      const slot = await d.kv.get<IndexValue>(k);
      if (slot.versionstamp !== null) {
        const holder = rsOfIndexValue(slot.value!);
        if (holder !== r.rs) {
          add({
            kind: "name_conflict",
            rs: r.rs,
            detail: `resource ${r.rs} "${r.name}" and resource ${holder} claim the same slot ${
              keyId(k)
            }`,
          });
        }
        continue;
      }
      add(
        {
          kind: "index_missing",
          rs: r.rs,
          detail: `resource ${r.rs} lacks index entry ${keyId(k)}`,
        },
        opts.repair && await rewriteIndexes(d.kv, rec as Deno.KvEntry<Resource>, k),
      );
    }
  }

  // Pass 3: the versions.
  let versions = 0;
  for await (const { rs: resourceSeq, entry } of iterateVersionEntries(d.kv)) {
    versions++;
    referenced.add(entry.value.blobId);
    if (records.has(resourceSeq) || (await getResourceEntry(d.kv, resourceSeq)).value) continue;
    const fresh = await d.kv.get(entry.key);
    if (fresh.versionstamp === null) continue;
    let repaired = false;
    if (opts.repair) {
      const op = d.kv.atomic();
      dropOrphanVersion(op, resourceSeq, fresh);
      repaired = (await op.commit()).ok;
    }
    add({
      kind: "orphan_version",
      rs: resourceSeq,
      blobId: entry.value.blobId,
      detail: `version ${entry.value.version} of resource ${resourceSeq} outlived its resource`,
    }, repaired);
  }

  // Pass 4: usage, of every user and every owner. The recount confirms itself (checked
  // against each usage entry).
  const users = [...new Set([...owners, ...(await listUsers(d.kv)).map((u) => u.userSeq)])];
  for (const line of await recountUsage(d.kv, { userSeqs: users, dryRun: !opts.repair })) {
    if (line.storedBytes === line.actualBytes) continue;
    add({
      kind: "usage_mismatch",
      userSeq: line.userSeq,
      detail: `user ${line.userSeq}: usage says ${line.storedBytes} bytes, stored versions ` +
        `hold ${line.actualBytes}`,
    }, line.fixed);
  }

  // Uploads whose final commit was deferred hold the blob they were sealed into.
  for await (const blobId of sealedUploadBlobs(d.kv)) referenced.add(blobId);
  // Cached previews and thumbnails (the blob sweep prunes those of content gone).
  for await (const blobId of iterateRenditionBlobIds(d.kv)) referenced.add(blobId);

  // Pass 5: blobs, listed after the references were collected (a blob is written before the
  // commit that references it, so a referenced blob listed missing is confirmed by a read).
  const stored = new Map<string, number>();
  for await (const b of d.blobs.list()) stored.set(b.blobId, b.size);
  for (const blobId of referenced) {
    if (stored.has(blobId) || await blobExists(d.blobs, blobId)) continue;
    if (!(await stillReferenced(d.kv, blobId))) continue;
    add({ kind: "blob_missing", blobId, detail: `blob ${blobId} is referenced but not stored` });
  }
  let orphanBlobs = 0;
  let orphanBlobBytes = 0;
  for (const [blobId, size] of stored) {
    if (referenced.has(blobId)) continue;
    orphanBlobs++;
    orphanBlobBytes += size;
  }

  // Pass 6: webhooks (events without their deliveries, messages KV gave up on).
  const webhooks = await checkWebhooks(d, { repair: opts.repair, graceMs: opts.webhookGraceMs });
  for (const gap of webhooks.gaps) {
    add({
      kind: "webhook_event_undelivered",
      webhookId: gap.webhookId,
      detail: `event ${gap.eventId} (${gap.kind}) has no delivery to webhook ${gap.webhookId}`,
    }, gap.repaired);
  }
  if (webhooks.waitingMessages > 0) {
    // Not repaired here: the outbox workers run them again, with backoff, until they succeed.
    add({
      kind: "webhook_messages_waiting",
      detail: `${webhooks.waitingMessages} webhook outbox message(s) failed and ` +
        "wait for their next run (see the server log for why)",
    });
  }

  return {
    repair: opts.repair,
    resources: records.size,
    versions,
    users: users.length,
    blobs: stored.size,
    orphanBlobs,
    orphanBlobBytes,
    problems,
    unrepaired: problems.filter((p) => !p.repaired).length,
  };
}

/** True when the live resource's parent is missing, not a folder, or another owner's (fresh). */
async function parentBroken(kv: Deno.Kv, resourceSeq: number): Promise<boolean> {
  const r = (await getResourceEntry(kv, resourceSeq)).value;
  if (!r || r.trashedAt !== null || r.parentRs === null) return false;
  const parent = (await getResourceEntry(kv, r.parentRs)).value;
  return !parent || parent.type !== "FOLDER" || parent.ownerSeq !== r.ownerSeq;
}

/** The index entry points at `record`, which owns its key, and (if it holds a copy) equals it. */
function entryMatches(entry: Deno.KvEntry<IndexValue>, record: Resource | null): boolean {
  if (!record || record.rs !== rsOfIndexValue(entry.value)) return false;
  const id = keyId(entry.key);
  if (!expectedIndexKeys(record).some((k) => keyId(k) === id)) return false;
  return typeof entry.value === "number" || sameRecord(entry.value, record);
}

/** The same, against a fresh read of the record. */
async function indexEntryCurrent(kv: Deno.Kv, entry: Deno.KvEntry<IndexValue>): Promise<boolean> {
  return entryMatches(entry, (await getResourceEntry(kv, rsOfIndexValue(entry.value))).value);
}

function sameRecord(a: Resource, b: Resource): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof Resource>;
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * A stale entry: rewritten from its record when the record owns the key (an outdated copy),
 * removed otherwise. One commit, checked against both reads.
 */
async function repairIndexEntry(
  kv: Deno.Kv,
  entry: Deno.KvEntry<IndexValue>,
  record: Deno.KvEntryMaybe<Resource>,
): Promise<boolean> {
  const op = kv.atomic().check(record);
  const id = keyId(entry.key);
  if (record.value && expectedIndexKeys(record.value).some((k) => keyId(k) === id)) {
    op.check(entry);
    writeResource(op, record.value, record.value, null);
  } else {
    dropStaleIndexEntry(op, entry);
  }
  return (await op.commit()).ok;
}

/** A missing entry: the record's index entries written again (the slot checked still free). */
async function rewriteIndexes(
  kv: Deno.Kv,
  record: Deno.KvEntry<Resource>,
  missing: Deno.KvKey,
): Promise<boolean> {
  const op = kv.atomic().check(record).check({ key: missing, versionstamp: null });
  writeResource(op, record.value, record.value, null);
  return (await op.commit()).ok;
}

/** Whether a version or record still references `blobId` (after a scan found it missing). */
async function stillReferenced(kv: Deno.Kv, blobId: string): Promise<boolean> {
  for await (const { value } of iterateResourceEntries(kv)) {
    if (value.blobId === blobId) return true;
  }
  for await (const { entry } of iterateVersionEntries(kv)) {
    if (entry.value.blobId === blobId) return true;
  }
  return false;
}
