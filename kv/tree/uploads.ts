/**
 * Resumable uploads (tus 1.0.0; the protocol edge is api/external/uploads.ts): the upload record
 * and its life. An upload is a KV record (offset, target, state) plus a stage in the blob store
 * (blobs/store.ts) holding its bytes, so any process on the same KV and store can continue it.
 * Writing to it is kv/tree/upload_append.ts; its final request commits the file through
 * kv/tree/content.ts exactly as a multipart upload does, and `recordCompletion` puts the
 * upload's completion in that same commit.
 *
 * One request writes at a time: a PATCH first takes a `Claim` on the record (a checked commit),
 * renews it while it streams, and commits the new offset checked against it. A second PATCH
 * meanwhile is refused (UPLOAD_003), so two writers never touch the same staged bytes; a claim
 * whose process died lapses after `CLAIM_MS`. Unfinished uploads expire with their bytes
 * (`removeExpiredUploads`, every minute from boot.ts).
 */
import type { Deps } from "../deps.ts";
import { type ErrorCode, fail } from "../errors.ts";
import { uploadExpiryKey, uploadKey } from "../keys.ts";

/** How long a claim holds without renewal: a PATCH whose process died blocks for this long. */
const CLAIM_MS = 30_000;
/** A PATCH renews its claim this often. */
const CLAIM_RENEW_MS = 10_000;
/** A writer stops this long before its claim would lapse (other processes' clocks differ). */
const CLAIM_MARGIN_MS = 5_000;

/** Where the file goes: the multipart upload's fields (api/external/files_upload.ts). */
export interface UploadTarget {
  st: "duplicate" | "version" | "overwrite";
  pfs?: number;
  ss?: number;
  rs?: number;
  /** The new file's name (st=duplicate). */
  filename: string | null;
}

type UploadState = "uploading" | "completed" | "failed";

export interface Upload {
  id: string;
  /** Only this user may continue, read or end it. */
  userSeq: number;
  length: number;
  /** Bytes stored and committed so far. */
  offset: number;
  /**
   * Bytes in the stage as the last writer left them (more than `offset` when bytes were refused),
   * recorded with its offset under its claim; absent or null when unknown (a write failed).
   */
  staged?: number | null;
  /** Upload-Metadata as the client sent it (HEAD echoes it). */
  metadata: string;
  target: UploadTarget;
  stageId: string;
  createdAt: number;
  /** When it and its bytes are removed (after completion: when its record is). */
  expiresAt: number;
  /** The PATCH writing now, until `until` (ms) unless renewed. */
  claim: { id: string; until: number } | null;
  state: UploadState;
  /** The file made (completed). */
  result: { rs: number; name: string } | null;
  /** Why the final commit failed (failed). */
  error: { code: ErrorCode; message: string } | null;
}

/** The state a client sees: an unfinished upload past its expiry is gone. */
export function uploadStatus(u: Upload, now = Date.now()): UploadState | "expired" {
  return u.state === "uploading" && u.expiresAt <= now ? "expired" : u.state;
}

/** The caller's upload, or UPLOAD_001 (another user's upload is not told apart from none). */
export async function readUpload(
  d: Deps,
  id: string,
  userSeq: number,
): Promise<Deno.KvEntry<Upload>> {
  const entry = await d.kv.get<Upload>(uploadKey(id));
  if (!entry.value || entry.value.userSeq !== userSeq) fail("UPLOAD_001", `No upload ${id}`);
  return entry as Deno.KvEntry<Upload>;
}

/** A new upload of `length` bytes with an empty stage; the caller authorized the target. */
export async function createUpload(
  d: Deps,
  input: { userSeq: number; length: number; metadata: string; target: UploadTarget },
): Promise<Upload> {
  const now = Date.now();
  const expiresAt = now + d.config.uploadExpiryMs;
  const stageId = await d.blobs.stage(expiresAt);
  const upload: Upload = {
    id: crypto.randomUUID().replaceAll("-", ""),
    userSeq: input.userSeq,
    length: input.length,
    offset: 0,
    staged: 0,
    metadata: input.metadata,
    target: input.target,
    stageId,
    createdAt: now,
    expiresAt,
    claim: null,
    state: "uploading",
    result: null,
    error: null,
  };
  const res = await d.kv.atomic().check({ key: uploadKey(upload.id), versionstamp: null })
    .set(uploadKey(upload.id), upload).set(uploadExpiryKey(expiresAt, upload.id), true).commit()
    .catch(() => ({ ok: false }));
  if (!res.ok) {
    await d.blobs.discardStaged(stageId);
    fail("SERVICE_002", "The upload could not be recorded; retry");
  }
  return upload;
}

/** tus termination: the record goes, and the bytes of an unfinished upload with it. */
export async function terminateUpload(d: Deps, id: string, userSeq: number): Promise<void> {
  const entry = await readUpload(d, id, userSeq);
  const u = entry.value;
  if (u.claim && u.claim.until > Date.now()) {
    fail("UPLOAD_003", "A request is writing to this upload; retry the termination");
  }
  const res = await d.kv.atomic().check(entry).delete(entry.key)
    .delete(uploadExpiryKey(u.expiresAt, id)).commit();
  if (!res.ok) fail("UPLOAD_003", "The upload changed meanwhile; retry the termination");
  if (u.state === "uploading") await d.blobs.discardStaged(u.stageId);
}

/**
 * Removes the uploads whose expiry passed (the record, its index entry and, when unfinished, the
 * staged bytes); one being written right now waits for the next round. Returns how many went.
 * Safe on every process at once: each removal is one checked commit.
 */
export async function removeExpiredUploads(d: Deps, now = Date.now()): Promise<number> {
  let removed = 0;
  const due = d.kv.list<true>({ prefix: uploadExpiryKey(), end: uploadExpiryKey(now) });
  for await (const index of due) {
    const id = index.key[2] as string;
    const entry = await d.kv.get<Upload>(uploadKey(id));
    const u = entry.value;
    if (u && u.claim && u.claim.until > now) continue;
    const op = d.kv.atomic().check(entry).delete(index.key);
    // A record that moved on (re-indexed at completion) keeps itself; only this index entry goes.
    const gone = u !== null && u.expiresAt <= now;
    if (gone) op.delete(entry.key);
    if (!(await op.commit()).ok) continue;
    if (gone && u.state === "uploading") await d.blobs.discardStaged(u.stageId);
    if (gone) removed++;
  }
  return removed;
}

/** The claim lapsed (or was taken) while the body streamed. */
export class ClaimLostError extends Error {}

/** A PATCH's hold on an upload: taken, renewed while it streams, released with the new state. */
export class Claim {
  readonly id = crypto.randomUUID();
  #lost = false;
  #timer: number | null = null;
  #renewal: Promise<void> | null = null;

  private constructor(private readonly d: Deps, public entry: Deno.KvEntry<Upload>) {}

  static async take(d: Deps, entry: Deno.KvEntry<Upload>): Promise<Claim> {
    const held = entry.value.claim;
    if (held && held.until > Date.now()) {
      fail("UPLOAD_003", "Another request is writing to this upload; retry after it ends");
    }
    const claim = new Claim(d, entry);
    const next = { ...entry.value, claim: { id: claim.id, until: Date.now() + CLAIM_MS } };
    const res = await d.kv.atomic().check(entry).set(entry.key, next).commit();
    if (!res.ok) fail("UPLOAD_003", "Another request is writing to this upload; retry");
    claim.entry = { ...entry, value: next, versionstamp: res.versionstamp };
    const timer = Number(setInterval(() => {
      claim.#renewal ??= claim.#renew().finally(() => (claim.#renewal = null));
    }, CLAIM_RENEW_MS));
    Deno.unrefTimer(timer);
    claim.#timer = timer;
    return claim;
  }

  async #renew(): Promise<void> {
    if (this.#lost) return;
    const next = { ...this.entry.value, claim: { id: this.id, until: Date.now() + CLAIM_MS } };
    try {
      const res = await this.d.kv.atomic().check(this.entry).set(this.entry.key, next).commit();
      if (res.ok) this.entry = { ...this.entry, value: next, versionstamp: res.versionstamp };
      else this.#lost = true;
    } catch {
      // KV busy for a moment: the next renewal tries again, and the claim reaches further.
    }
  }

  /** The claimed record as it is in KV now (null when it is gone). */
  reread(): Promise<Deno.KvEntryMaybe<Upload>> {
    return this.d.kv.get<Upload>(this.entry.key);
  }

  /** Throws once writing must stop: the claim was lost or is about to lapse. */
  check(): void {
    if (this.#lost || Date.now() >= this.entry.value.claim!.until - CLAIM_MARGIN_MS) {
      throw new ClaimLostError("the upload's claim lapsed");
    }
  }

  /** Stops renewing (before the commit that releases the claim). */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#renewal;
  }

  /** Commits `change` to the claimed record with the claim released; null when it was lost. */
  async release(change: Partial<Upload>): Promise<Upload | null> {
    await this.stop();
    const next: Upload = { ...this.entry.value, ...change, claim: null };
    const res = await this.d.kv.atomic().check(this.entry).set(this.entry.key, next).commit()
      .catch(() => ({ ok: false }));
    return res.ok ? next : null;
  }
}

/**
 * Adds the completion of `cur` to the commit that stores its file `file` (the caller checked the
 * claim): the record says completed with the file made, and stays readable (GET /uploads/{id})
 * for one more expiry period. Returns the record as committed.
 */
export function recordCompletion(
  d: Deps,
  op: Deno.AtomicOperation,
  cur: Deno.KvEntry<Upload>,
  file: { rs: number; name: string },
): Upload {
  const expiresAt = Date.now() + d.config.uploadExpiryMs;
  const done: Upload = {
    ...cur.value,
    offset: cur.value.length,
    claim: null,
    state: "completed",
    result: { rs: file.rs, name: file.name },
    expiresAt,
  };
  op.check(cur).set(cur.key, done).delete(uploadExpiryKey(cur.value.expiresAt, cur.value.id))
    .set(uploadExpiryKey(expiresAt, cur.value.id), true);
  return done;
}
