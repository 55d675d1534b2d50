/**
 * The one module that decides what a caller may do with a resource or a share. Every surface
 * asks here: the drive API (file, folder, listing and metadata endpoints), the provider and
 * editor-session edges, pins, share reads and changes, the shared-with-me list and the
 * share-link lookup. Owners may do everything; anyone else gets the union of what the shares
 * on the resource and its ancestors grant them (kv/sharing/shares.ts, the model). Anything on
 * the path being in the trash makes the resource missing.
 *
 * Decisions, not computations, leave this module: the permission computation itself
 * (grantOnPath, permissionsOn) is private, so a new endpoint picks a decision below and cannot
 * pick a wrong way of computing one. The `ss` rule is written once, in assertSharingUser.
 */
import { fail } from "../errors.ts";
import type { Caller } from "../identity/users.ts";
import type { SharePolicy } from "../identity/tenants.ts";
import { resourceKey } from "../keys.ts";
import { loadPath, type Resource, type ResourceType } from "../tree/resources.ts";
import {
  ALL_FLAGS,
  flagsToPermissions,
  getShare,
  grantOf,
  type Permissions,
  policyOf,
  presentedToken,
  type Share,
  type ShareFlags,
  sharesOnPath,
  unionFlags,
} from "./shares.ts";

// The vocabulary of the decisions, so that edges import everything from here.
export type { Caller, Permissions };

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
  /**
   * The versionstamp of the resource's entry as read for this decision, when it was (loadPath):
   * a commit acting on the decision checks it instead of reading the resource again.
   */
  versionstamp?: string;
}

/** What loadPath answers: the path nearest first, trashed when anything on it is in the trash. */
type LoadedPath = { path: Resource[]; trashed: boolean; versionstamp?: string } | null;

// ---------------------------------------------------------------- the computation (private)

/** The union of what the shares on `path` grant `caller` (not as owner), or null: nothing. */
async function grantOnPath(
  kv: Deno.Kv,
  caller: Caller,
  path: Resource[],
): Promise<ShareFlags | null> {
  const policies = new Map<number, SharePolicy>();
  let total: ShareFlags | null = null;
  for (const share of await sharesOnPath(kv, path)) {
    let policy = policies.get(share.tenantId);
    if (!policy) {
      policy = await policyOf(kv, share.tenantId);
      policies.set(share.tenantId, policy);
    }
    const g = grantOf(share, caller, policy, await presentedToken(kv, share, caller));
    if (g) total = total ? unionFlags(total, g) : g;
  }
  return total;
}

/** The caller's permissions on a live path: everything for the owner, else the shares' union. */
async function permissionsOn(kv: Deno.Kv, caller: Caller, path: Resource[]): Promise<Permissions> {
  if (path[0].ownerSeq === caller.userSeq) return OWNER_PERMISSIONS;
  const grant = await grantOnPath(kv, caller, path);
  return grant ? flagsToPermissions(grant) : NO_PERMISSIONS;
}

// ---------------------------------------------------------------- the ss rule

/** What `ss` is checked against: the owner of a resource, or the caller's own drive root. */
type Reached = { ownerSeq: number } | "own drive root";

/**
 * The `ss` rule, the one place it is written. `ss`, the "sharing user seq", is how a caller
 * says whose resource they mean: its owner's user seq. It may be omitted; when given it must
 * be the owner of what the request reaches, otherwise PERMISSION_002 (field `ss`). When the
 * request names no resource (something new in the caller's own drive root: authorizeFolderTarget
 * without `pfs`) the owner is the caller, and `ss` naming anyone else means the folder that would
 * say where is missing: REQUEST_001 (field `pfs`).
 *
 * The one variation, `required` (pins and share reads): a caller other than the owner must send
 * it. Share reads apply the rule to recipients only: the owner reads their own share whatever
 * `ss` says.
 */
function assertSharingUser(
  caller: Caller,
  sharingUserSeq: number | null | undefined,
  reached: Reached,
  message: string,
  required = false,
): void {
  const ownerSeq = reached === "own drive root" ? caller.userSeq : reached.ownerSeq;
  const ok = sharingUserSeq == null
    ? !required || ownerSeq === caller.userSeq
    : sharingUserSeq === ownerSeq;
  if (ok) return;
  if (reached === "own drive root") fail("REQUEST_001", message, "pfs");
  fail("PERMISSION_002", message, "ss");
}

// ---------------------------------------------------------------- resources

/**
 * The caller's access to a loaded resource (loadPath's answer), or null when it is missing, in
 * the trash, or the caller cannot view it. Never throws: for listings and filters (pin
 * liveness, the shared-with-me list, the link lookup) that skip what the caller cannot see.
 */
export async function accessIfVisible(
  kv: Deno.Kv,
  caller: Caller,
  loaded: LoadedPath,
): Promise<Access | null> {
  if (!loaded || loaded.trashed) return null;
  const permissions = await permissionsOn(kv, caller, loaded.path);
  if (!permissions.canView) return null;
  const resource = loaded.path[0];
  const isOwner = resource.ownerSeq === caller.userSeq;
  return { resource, path: loaded.path, permissions, isOwner, versionstamp: loaded.versionstamp };
}

/**
 * Loads a resource and checks `action`. `ss` follows the rule (assertSharingUser). Fails with
 * RESOURCE_002 when it does not exist or is in the trash, PERMISSION_002 when `ss` is not its
 * owner or the caller cannot reach it at all, PERMISSION_004 when the share lacks the permission,
 * and (with `target.type`) RESOURCE_006 / RESOURCE_005 when a file / folder was expected.
 */
export async function authorizeResourceAccess(
  kv: Deno.Kv,
  caller: Caller,
  target: {
    rs: number;
    ss?: number | null;
    field?: string;
    type?: ResourceType;
    /**
     * The resource and its ancestors up to the drive root, nearest first, when the caller has
     * just read them (the provider resolves paths top-down by name): decided on that instead of
     * reading them again. Omitted: `loadPath` reads them.
     */
    loaded?: LoadedPath;
  },
  action: Action,
): Promise<Access> {
  const field = target.field ?? "resourceSeq";
  if (target.loaded && target.loaded.path[0]?.rs !== target.rs) {
    throw new Error(`authorizeResourceAccess: the path given is not the path of ${target.rs}`);
  }
  const loaded = target.loaded ?? await loadPath(kv, target.rs);
  if (!loaded || loaded.trashed) {
    fail("RESOURCE_002", `No file or folder with seq ${target.rs}`, field);
  }
  const resource = loaded.path[0];
  assertSharingUser(
    caller,
    target.ss,
    resource,
    `Resource ${target.rs} is not shared by user ${target.ss}`,
  );
  const access = await accessIfVisible(kv, caller, loaded);
  if (!access) fail("PERMISSION_002", `No access to resource ${target.rs}`, field);
  if (!access.permissions[ACTION_FLAG[action]]) {
    fail("PERMISSION_004", `The share of resource ${target.rs} does not grant ${action}`, field);
  }
  if (target.type === "FILE" && resource.type !== "FILE") {
    fail("RESOURCE_006", `Resource ${target.rs} is a folder, not a file`, field);
  }
  if (target.type === "FOLDER" && resource.type !== "FOLDER") {
    fail("RESOURCE_005", `Resource ${target.rs} is a file, not a folder`, field);
  }
  return access;
}

/**
 * Resolves where something new goes: folder `pfs` (own or shared, needing `action` there; as
 * authorizeResourceAccess with field `pfs`) or, with no `pfs`, the caller's own drive root,
 * where `ss` may only name the caller (REQUEST_001 otherwise).
 */
export async function authorizeFolderTarget(
  kv: Deno.Kv,
  caller: Caller,
  target: { pfs?: number | null; ss?: number | null },
  action: Action = "upload",
): Promise<{
  ownerSeq: number;
  parentRs: number | null;
  folder: Resource | null;
  /**
   * The folder's entry as read for this decision (null: the drive root): a commit acting on the
   * decision checks it instead of reading the folder again.
   */
  folderEntry: Deno.KvEntry<Resource> | null;
  depth: number;
}> {
  if (target.pfs == null) {
    assertSharingUser(
      caller,
      target.ss,
      "own drive root",
      "pfs is required when ss names another user",
    );
    return { ownerSeq: caller.userSeq, parentRs: null, folder: null, folderEntry: null, depth: 0 };
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
    folderEntry: access.versionstamp
      ? {
        key: resourceKey(access.resource.rs),
        value: access.resource,
        versionstamp: access.versionstamp,
      }
      : null,
    // How deep the folder is (1 = in the drive root), from the path just read: creates need it.
    depth: access.path.length,
  };
}

/**
 * The ancestors of a resource the caller may see, top first: all of them for the owner, up to
 * the topmost one shared with the caller otherwise. `path` is an Access's path.
 */
export async function visibleAncestors(
  kv: Deno.Kv,
  caller: Caller,
  path: Resource[],
): Promise<Resource[]> {
  const out: Resource[] = [];
  for (let i = 1; i < path.length; i++) {
    if (!(await accessIfVisible(kv, caller, { path: path.slice(i), trashed: false }))) break;
    out.push(path[i]);
  }
  return out.reverse();
}

/**
 * May the caller pin folder `resourceSeq`? Their own folder, `ss` omitted or naming them; someone else's
 * folder, `ss` required and naming its owner (PERMISSION_002 otherwise) and a share letting the
 * caller view it (PERMISSION_001 otherwise). RESOURCE_002 when it is missing or in the trash,
 * RESOURCE_005 when it is a file. Returns the folder.
 */
export async function authorizePin(
  kv: Deno.Kv,
  caller: Caller,
  resourceSeq: number,
  sharingUserSeq: number | null | undefined,
): Promise<Resource> {
  const loaded = await loadPath(kv, resourceSeq);
  if (!loaded || loaded.trashed) fail("RESOURCE_002", `No folder with seq ${resourceSeq}`, "rs");
  const folder = loaded.path[0];
  const message = `Folder ${resourceSeq} is not accessible with ss=${sharingUserSeq ?? "null"}`;
  assertSharingUser(caller, sharingUserSeq, folder, message, true);
  if (!(await accessIfVisible(kv, caller, loaded))) {
    fail("PERMISSION_001", `Folder ${resourceSeq} is not shared with the caller`, "rs");
  }
  if (folder.type !== "FOLDER") fail("RESOURCE_005", `Resource ${resourceSeq} is a file`, "rs");
  return folder;
}

// ---------------------------------------------------------------- shares

interface ShareView {
  share: Share;
  resource: Resource;
  path: Resource[];
  isOwner: boolean;
  /** The caller's grant through this share (owner: everything). */
  grant: ShareFlags;
  policy: SharePolicy;
}

/**
 * The share as `caller` may see it: the owner always (unless the resource is gone for good),
 * anyone else only while the share itself grants them something and nothing on its path is in
 * the trash. SHARE_006 otherwise, so share seqs leak nothing.
 */
async function shareSeenBy(kv: Deno.Kv, caller: Caller, shareSeq: number): Promise<ShareView> {
  const share = await getShare(kv, shareSeq);
  if (!share) fail("SHARE_006", `No share with seq ${shareSeq}`, "shareSeq");
  const loaded = await loadPath(kv, share.rs);
  const isOwner = share.ownerSeq === caller.userSeq;
  const policy = await policyOf(kv, share.tenantId);
  if (!loaded || (!isOwner && loaded.trashed)) {
    fail("SHARE_006", `No share with seq ${shareSeq}`, "shareSeq");
  }
  const grant = isOwner
    ? ALL_FLAGS
    : grantOf(share, caller, policy, await presentedToken(kv, share, caller));
  if (!grant) fail("SHARE_006", `No share with seq ${shareSeq}`, "shareSeq");
  return { share, resource: loaded.path[0], path: loaded.path, isOwner, grant, policy };
}

/**
 * Reading a share (the share, its recipients, recipient search, and setting recipients, which
 * then checks re-share): the owner, or anyone the share reaches (SHARE_006 otherwise) who sends
 * `ss` naming the owner (PERMISSION_002 otherwise: the rule's "required" variation).
 */
export async function authorizeShareRead(
  kv: Deno.Kv,
  caller: Caller,
  shareSeq: number,
  sharingUserSeq: number | null | undefined,
): Promise<ShareView> {
  const view = await shareSeenBy(kv, caller, shareSeq);
  if (!view.isOwner) {
    const message = "ss must be the user seq of the share's owner";
    assertSharingUser(caller, sharingUserSeq, view.share, message, true);
  }
  return view;
}

/**
 * Changing or removing a share: the owner only. Anyone else learns that the share exists only
 * when they can see it (SHARE_006 otherwise), then gets SHARE_010 saying `refusal`; `ss` plays
 * no part.
 */
export async function authorizeShareChange(
  kv: Deno.Kv,
  caller: Caller,
  shareSeq: number,
  refusal: string,
): Promise<ShareView> {
  const view = await shareSeenBy(kv, caller, shareSeq);
  if (!view.isOwner) fail("SHARE_010", refusal, "shareSeq");
  return view;
}

/**
 * Opening a share link while signed in (GET /shares/link/{token}): allowed when the link reaches
 * the account once it presents the token, or the account may view the resource anyway (owner,
 * another share); PERMISSION_002 otherwise. `path` is the link's live resource path.
 */
export async function authorizeLinkOpen(
  kv: Deno.Kv,
  caller: Caller,
  share: Share,
  path: Resource[],
): Promise<void> {
  const viaToken = grantOf(share, caller, await policyOf(kv, share.tenantId), true);
  if (!viaToken && !(await accessIfVisible(kv, caller, { path, trashed: false }))) {
    fail("PERMISSION_002", "This account cannot view the linked resource", "token");
  }
}
