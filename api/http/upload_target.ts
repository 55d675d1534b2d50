/**
 * Where an upload goes, for both ways of uploading: the multipart POST /files
 * (api/external/files_upload.ts) and the resumable tus uploads (api/external/uploads.ts). The
 * target fields (pfs, ss, st, rs) have one set of rules and error codes: `placeUpload` authorizes
 * the target and checks the quota before any byte is stored, and `commitUpload` makes the bytes
 * the file (kv/tree/content.ts), a new one or new content of `rs`.
 */
import { z } from "@hono/zod-openapi";
import type { Deps } from "../../kv/deps.ts";
import { fail } from "../../kv/errors.ts";
import type { Caller } from "../../kv/identity/users.ts";
import { authorizeFolderTarget, authorizeResourceAccess } from "../../kv/sharing/authorize.ts";
import { type ContentSource, freeQuota, putContent, storeNewFile } from "../../kv/tree/content.ts";
import type { Resource } from "../../kv/tree/resources.ts";
import { validateName } from "../../kv/tree/names.ts";
import type { UploadTarget } from "../../kv/tree/uploads.ts";

/** What placeUpload refuses a target with, in both upload routes' documents. */
export const PLACE_UPLOAD_ERRORS = [
  "RESOURCE_002",
  "RESOURCE_004",
  "RESOURCE_005",
  "RESOURCE_006",
  "RESOURCE_008",
  "RESOURCE_010",
  "RESOURCE_015",
  "RESOURCE_016",
  "PERMISSION_002",
  "PERMISSION_004",
] as const;

/** A seq sent as text (a form field, an Upload-Metadata value): plain decimal digits. */
export const textSeq = (name: string) =>
  z.string().regex(/^[1-9]\d{0,15}$/, { error: `${name} must be a positive integer` })
    .transform(Number).optional();

/** `st`: a new file (default), a new version of `rs`, or new content replacing `rs`'s. */
export const UploadModeSchema = z.enum(["duplicate", "version", "overwrite"], {
  error: "st must be duplicate, version or overwrite",
}).default("duplicate");

/** An authorized target: a new file's folder and name, or the file receiving new content. */
type PlacedUpload =
  | { st: "duplicate"; ownerSeq: number; parentRs: number | null; name: string }
  | { st: "version" | "overwrite"; rs: number };

/**
 * Authorizes `target` for `caller` and, when `quota` is given, refuses bytes the owner's quota
 * has no room for (`quota.bytes`, or null when unknown; `quota.what` words the refusal). An
 * overwrite frees the content it replaces, so that counts as room.
 */
export async function placeUpload(
  d: Deps,
  caller: Caller,
  target: Omit<UploadTarget, "filename"> & { filename?: string | null },
  quota: { bytes: number | null; what: string } | null,
): Promise<PlacedUpload> {
  const refuseOverQuota = (room: number) => {
    if (quota?.bytes != null && quota.bytes > room) {
      fail(
        "RESOURCE_015",
        `${quota.what} ${quota.bytes} bytes but only ${room} bytes of quota are free`,
      );
    }
  };
  if (target.st === "duplicate") {
    const name = validateName(target.filename ?? "", "filename");
    const folder = await authorizeFolderTarget(d.kv, caller, target, "upload");
    if (quota) refuseOverQuota(await freeQuota(d, folder.ownerSeq));
    return { st: "duplicate", ownerSeq: folder.ownerSeq, parentRs: folder.parentRs, name };
  }
  if (target.rs === undefined) fail("RESOURCE_016", `rs is required when st is ${target.st}`, "rs");
  const { resource } = await authorizeResourceAccess(d.kv, caller, {
    rs: target.rs,
    ss: target.ss,
    field: "rs",
    type: "FILE",
  }, "edit");
  if (quota) {
    const credit = target.st === "overwrite" ? resource.size : 0;
    refuseOverQuota((await freeQuota(d, resource.ownerSeq)) + credit);
  }
  return { st: target.st, rs: resource.rs };
}

/** The bytes of an upload (a stream to store, or a blob already stored), and what joins the commit. */
type UploadContent = Pick<ContentSource, "body" | "blob" | "extendCommit">;

/** Commits `content` as the file `placed` names: one KV commit, quota charged in it. */
export async function commitUpload(
  d: Deps,
  caller: Caller,
  placed: PlacedUpload,
  content: UploadContent,
): Promise<Resource> {
  const base = { ...content, actorSeq: caller.userSeq, quotaCode: "RESOURCE_015" as const };
  if (placed.st === "duplicate") {
    return await storeNewFile(d, {
      ...base,
      ownerSeq: placed.ownerSeq,
      parentRs: placed.parentRs,
      name: placed.name,
      onConflict: "rename",
      reason: "upload",
    });
  }
  return await putContent(d, {
    ...base,
    rs: placed.rs,
    mode: placed.st,
    reason: placed.st,
    lockOwner: null,
  });
}
