/**
 * The one authorization decision every file and folder endpoint (and the editor-session and
 * provider edges) goes through: may `caller` do `action` on a resource? Owners may do
 * everything; anyone else gets the union of the share permissions found on the resource and
 * its ancestors (kv/shares.ts). Anything on the path being in the trash makes the resource
 * missing.
 */
import { fail } from "../errors.ts";
import { loadPath, type Resource, type ResourceType } from "../tree/resources.ts";
import { permissionsFromShares } from "./shares.ts";

export interface Caller {
  userSeq: number;
  tenantId: number;
}

export interface Permissions {
  canView: boolean;
  canEdit: boolean;
  canDownload: boolean;
  canUpload: boolean;
  canShare: boolean;
  canDelete: boolean;
}

export type Action = "view" | "download" | "edit" | "upload" | "share" | "delete";

export const OWNER_PERMISSIONS: Permissions = Object.freeze({
  canView: true,
  canEdit: true,
  canDownload: true,
  canUpload: true,
  canShare: true,
  canDelete: true,
});

export const NO_PERMISSIONS: Permissions = Object.freeze({
  canView: false,
  canEdit: false,
  canDownload: false,
  canUpload: false,
  canShare: false,
  canDelete: false,
});

const ACTION_FLAG: Record<Action, keyof Permissions> = {
  view: "canView",
  download: "canDownload",
  edit: "canEdit",
  upload: "canUpload",
  share: "canShare",
  delete: "canDelete",
};

export interface Access {
  resource: Resource;
  /** The resource then its ancestors, nearest first. */
  path: Resource[];
  permissions: Permissions;
  isOwner: boolean;
}

/** The caller's effective permissions on a resource path (no error when there are none). */
export async function effectivePermissions(
  kv: Deno.Kv,
  caller: Caller,
  path: Resource[],
): Promise<Permissions> {
  if (path[0].ownerSeq === caller.userSeq) return OWNER_PERMISSIONS;
  return (await permissionsFromShares(kv, caller, path)) ?? NO_PERMISSIONS;
}

/**
 * Loads a resource and checks `action`. `ss` (the sharing user's seq) must name the owner when
 * given. Fails with RESOURCE_002 when it does not exist or is in the trash, PERMISSION_002 when
 * the caller cannot reach it at all, PERMISSION_004 when the share lacks the permission, and
 * (with `target.type`) RESOURCE_006 / RESOURCE_005 when a file / folder was expected.
 */
export async function authorizeResourceAccess(
  kv: Deno.Kv,
  caller: Caller,
  target: { rs: number; ss?: number | null; field?: string; type?: ResourceType },
  action: Action,
): Promise<Access> {
  const field = target.field ?? "resourceSeq";
  const loaded = await loadPath(kv, target.rs);
  if (!loaded || loaded.trashed) {
    fail("RESOURCE_002", `No file or folder with seq ${target.rs}`, field);
  }
  const resource = loaded.path[0];
  if (target.ss != null && target.ss !== resource.ownerSeq) {
    fail("PERMISSION_002", `Resource ${target.rs} is not shared by user ${target.ss}`, "ss");
  }
  const isOwner = resource.ownerSeq === caller.userSeq;
  const permissions = await effectivePermissions(kv, caller, loaded.path);
  if (!permissions.canView) fail("PERMISSION_002", `No access to resource ${target.rs}`, field);
  if (!permissions[ACTION_FLAG[action]]) {
    fail("PERMISSION_004", `The share of resource ${target.rs} does not grant ${action}`, field);
  }
  if (target.type === "FILE" && resource.type !== "FILE") {
    fail("RESOURCE_006", `Resource ${target.rs} is a folder, not a file`, field);
  }
  if (target.type === "FOLDER" && resource.type !== "FOLDER") {
    fail("RESOURCE_005", `Resource ${target.rs} is a file, not a folder`, field);
  }
  return { resource, path: loaded.path, permissions, isOwner };
}

/**
 * Resolves where something new goes: folder `pfs` (own or shared, needing `action` there) or,
 * with no `pfs`, the caller's own drive root. `ss` without `pfs` is refused.
 */
export async function authorizeFolderTarget(
  kv: Deno.Kv,
  caller: Caller,
  target: { pfs?: number | null; ss?: number | null },
  action: Action = "upload",
): Promise<{ ownerSeq: number; parentRs: number | null; folder: Resource | null }> {
  if (target.pfs == null) {
    if (target.ss != null && target.ss !== caller.userSeq) {
      fail("REQUEST_001", "pfs is required when ss names another user", "pfs");
    }
    return { ownerSeq: caller.userSeq, parentRs: null, folder: null };
  }
  const access = await authorizeResourceAccess(kv, caller, {
    rs: target.pfs,
    ss: target.ss,
    field: "pfs",
    type: "FOLDER",
  }, action);
  return {
    ownerSeq: access.resource.ownerSeq,
    parentRs: access.resource.rs,
    folder: access.resource,
  };
}
