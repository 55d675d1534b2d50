/**
 * Resumable uploads (tus 1.0.0; the protocol edge is api/external/uploads.ts): the upload record
 * and its life. An upload is a KV record (offset, target, state) plus a stage in the blob store
 * (blobs/store.ts) holding its bytes, so any process on the same KV and store can continue it.
 * Writing to it is kv/tree/upload_append.ts; its final request commits the file through
 * kv/tree/content.ts exactly as a multipart upload does, and `recordCompletion` puts the
 * upload's completion in that same commit.
 *
 * One request writes at a time: a PATCH first takes a `Claim` on the record (a checked commit),
 * renews it while it streams, commits the offset of the bytes the stage holds durably as it goes
 * (`Claim.progress`, so a crash loses only the last moments), and commits the final offset
 * checked against it. A second PATCH meanwhile is refused (UPLOAD_003), so two writers never
 * touch the same staged bytes; a claim whose process died lapses within `CLAIM_MS` (a few
 * seconds: the wait of a client resuming after a crash). Unfinished uploads expire with their
 * bytes (`removeExpiredUploads`, every minute from boot.ts).
 *
 * A final commit that keeps losing to concurrent changes leaves the upload `sealed`: its bytes
 * are a blob already, its offset stays before the last request's bytes, and the client's retry
 * of that request completes it (kv/tree/upload_commit.ts).
 */
import type { Deps } from "../deps.ts";
import { type ErrorCode, fail } from "../errors.ts";
import { uploadExpiryKey, uploadKey } from "../keys.ts";

/**
 * How long a claim holds without renewal: after a crash, a client resuming waits at most this
 * long (423) for the dead writer's claim to lapse. Short, so renewals come often.
 */
const CLAIM_MS = 4_000;
/** A PATCH renews its claim when this long passed since its last commit (progress renews too). */
const CLAIM_RENEW_MS = 1_000;
/** How often a PATCH looks whether its claim is due for renewal. */
const CLAIM_TICK_MS = 250;
/**
 * A writer stops this long before its claim would lapse. The processes of one KV file share a
 * host and its clock; the margin covers a renewal delayed by a busy event loop.
 */
const CLAIM_MARGIN_MS = 1_500;

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
  /**
   * The whole upload as a blob, when its final commit could not be made (conflicts, storage
   * busy): the stage is gone, `offset` is still where the last request began, and a request
   * with the same bytes completes it (their SHA-256 must give `sha256`). Absent otherwise.
   */
  sealed?: { blobId: string; size: number; sha256: string } | null;
}

/**
 * The blobs unfinished uploads were sealed into (a deferred final commit): held by their upload
 * until it completes, is terminated or expires, so fsck counts them as referenced.
 */
export async function* sealedUploadBlobs(kv: Deno.Kv): AsyncGenerator<string> {
  for await (const e of kv.list<Upload>({ prefix: uploadKey() })) {
    if (e.value.sealed) yield e.value.sealed.blobId;
  }
}

/** Removes the bytes of an unfinished upload: its stage, or the blob it was sealed into. */
async function discardBytes(d: Deps, u: Upload): Promise<void> {
  if (u.sealed) await d.blobs.delete(u.sealed.blobId);
  else await d.blobs.discardStaged(u.stageId);
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
  if (u.state === "uploading") await discardBytes(d, u);
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
    if (gone && u.state === "uploading") await discardBytes(d, u);
    if (gone) removed++;
  }
  return removed;
}

/** The claim lapsed (or was taken) while the body streamed. */
export class ClaimLostError extends Error {}

/**
 * A PATCH's hold on an upload: taken, renewed while it streams, moved forward with the durable
 * offset, released with the new state. Its commits (renewals, progress) run one at a time, each
 * checked against the one before, so they never race each other.
 */
export class Claim {
  readonly id = crypto.randomUUID();
  #lost = false;
  #timer: number | null = null;
  /** A renewal is on its way (the timer asks for no second one meanwhile). */
  #renewing = false;
  /** The commit running now (renewal or progress), if any: the next one waits for it. */
  #updating: Promise<boolean> = Promise.resolve(true);

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
      const due = claim.entry.value.claim!.until - Date.now() <= CLAIM_MS - CLAIM_RENEW_MS;
      if (!due || claim.#renewing) return;
      claim.#renewing = true;
      claim.update({}).finally(() => (claim.#renewing = false));
    }, CLAIM_TICK_MS));
    Deno.unrefTimer(timer);
    claim.#timer = timer;
    return claim;
  }

  /**
   * Commits `change` with the claim extended, after the commit before it; true once committed.
   * A refused commit means the claim is lost.
   */
  update(change: Partial<Upload>): Promise<boolean> {
    this.#updating = this.#updating.then(async () => {
      if (this.#lost) return false;
      const next: Upload = {
        ...this.entry.value,
        ...change,
        claim: { id: this.id, until: Date.now() + CLAIM_MS },
      };
      try {
        const res = await this.d.kv.atomic().check(this.entry).set(this.entry.key, next).commit();
        if (res.ok) this.entry = { ...this.entry, value: next, versionstamp: res.versionstamp };
        else this.#lost = true;
        return res.ok;
      } catch {
        // KV busy for a moment: the next renewal tries again, and the claim reaches further.
        return false;
      }
    });
    return this.#updating;
  }

  /**
   * Records `offset` as the upload's offset while the request goes on (bytes the stage holds
   * durably), so a crash of this process loses only what came after. Never the whole length:
   * only the final commit may say complete.
   */
  progress(offset: number): Promise<boolean> {
    return this.update({ offset, staged: null });
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
    await this.#updating;
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
    sealed: null,
    expiresAt,
  };
  op.check(cur).set(cur.key, done).delete(uploadExpiryKey(cur.value.expiresAt, cur.value.id))
    .set(uploadExpiryKey(expiresAt, cur.value.id), true);
  return done;
}
