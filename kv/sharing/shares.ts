/**
 * Shares: at most one per resource; a share on a folder covers its whole subtree, and the
 * permissions of several shares on a resource's path combine as a union. This module is the
 * model (what one share grants: grantOf) and its reads; every decision about what a caller may
 * do is kv/sharing/authorize.ts's, which alone calls grantOf and sharesOnPath.
 * Its key families (share, share_by_res, share_by_owner, share_link, share_link_list,
 * share_type_gen; see kv/keys.ts) are written by kv/sharing/share_writes.ts only.
 * Who a share reaches: SPECIFIC_USERS its recipients (any tenant); ORG_LINK every user of the
 * owner's tenant; PUBLIC_LINK every authenticated user when it has no password (a password-
 * protected public link opens only through the public link page). Expired shares and types
 * the owner's tenant policy no longer allows grant nothing; grants are capped by the policy.
 * The writes (create, change, set recipients, remove) are in kv/sharing/share_writes.ts.
 */
import { getManyValues } from "../db.ts";
import type { Caller } from "../identity/users.ts";
import { getResource, type Resource } from "../tree/resources.ts";
import {
  getTenant,
  type SharePermission,
  type SharePolicy,
  type ShareType,
  type Tenant,
} from "../identity/tenants.ts";
import { shareByOwnerKey, shareByResKey, shareKey, shareVisitKey } from "../keys.ts";

export type { ShareType };

export interface ShareFlags {
  cv: boolean;
  ce: boolean;
  cd: boolean;
  cu: boolean;
  cs: boolean;
}

export interface ShareTarget {
  userSeq: number;
  tenantId: number;
  flags: ShareFlags;
  addedAt: number;
  addedBy: number;
  changedAt: number;
  changedBy: number;
}

export interface Share {
  shareSeq: number;
  rs: number;
  ownerSeq: number;
  /** The owner's tenant: ORG_LINK reaches its users, its policy caps the share. */
  tenantId: number;
  type: ShareType;
  /** Share-level permissions; for SPECIFIC_USERS the most any recipient gets. */
  flags: ShareFlags;
  targets: ShareTarget[];
  /** The link token (ORG_LINK, PUBLIC_LINK); kept so the link URL can be shown again. */
  linkToken: string | null;
  passwordHash: string | null;
  /** When the password was last set: access tokens issued before it stop working. */
  passwordSetAt: number | null;
  expiresAt: number | null;
  /**
   * An upload-only "file request" (PUBLIC_LINK on a folder, cv and cu only): visitors may add
   * files but the public API shows them nothing of the folder. Absent on older shares: false.
   */
  fileRequest?: boolean;
  createdAt: number;
  createdBy: number;
  updatedAt: number;
  updatedBy: number;
}

export const MAX_TARGETS = 50;
export const LINK_TYPES: ReadonlySet<ShareType> = new Set(["ORG_LINK", "PUBLIC_LINK"]);
export const ALL_FLAGS: ShareFlags = { cv: true, ce: true, cd: true, cu: true, cs: true };
const NO_FLAGS: ShareFlags = { cv: false, ce: false, cd: false, cu: false, cs: false };
export const FLAG_NAMES = ["cv", "ce", "cd", "cu", "cs"] as const;
/**
 * The policy permission that caps each flag. The spec's policy values are VIEW, EDIT, DOWNLOAD
 * and SHARE, so upload has none of its own: EDIT governs `cu` as well as `ce` (adding files to a
 * folder changes it as editing does). The flags stay separate on a share: an owner may still
 * grant `cu` without `ce` or the other way round, within a policy that allows EDIT.
 */
const FLAG_PERMISSION: Record<keyof ShareFlags, SharePermission> = {
  cv: "VIEW",
  ce: "EDIT",
  cd: "DOWNLOAD",
  cu: "EDIT",
  cs: "SHARE",
};

/** The flags named with the policy permission that caps them, for messages: "EDIT (ce, cu)". */
export function permissionsOfFlags(flags: readonly (keyof ShareFlags)[]): string {
  const byPermission = new Map<SharePermission, (keyof ShareFlags)[]>();
  for (const k of flags) {
    byPermission.set(FLAG_PERMISSION[k], [...(byPermission.get(FLAG_PERMISSION[k]) ?? []), k]);
  }
  return [...byPermission].map(([p, ks]) => `${p} (${ks.join(", ")})`).join(", ");
}

// ---------------------------------------------------------------- flags and policy

/** What a caller may do with a resource, as the API shows it. */
export interface Permissions {
  canView: boolean;
  canEdit: boolean;
  canDownload: boolean;
  canUpload: boolean;
  canShare: boolean;
  canDelete: boolean;
}

export function flagsToPermissions(f: ShareFlags): Permissions {
  return {
    canView: f.cv,
    canEdit: f.ce,
    canDownload: f.cd,
    canUpload: f.cu,
    canShare: f.cs,
    // A recipient who may edit may also delete (to the trash).
    canDelete: f.ce,
  };
}

function combine(a: ShareFlags, b: ShareFlags, op: (x: boolean, y: boolean) => boolean) {
  const out = { ...NO_FLAGS };
  for (const k of FLAG_NAMES) out[k] = op(a[k], b[k]);
  return out;
}
export const intersectFlags = (a: ShareFlags, b: ShareFlags) => combine(a, b, (x, y) => x && y);
export const unionFlags = (a: ShareFlags, b: ShareFlags) => combine(a, b, (x, y) => x || y);

/** The tenant policy with the rules no administrator can change: link types never re-share. */
function effectivePolicy(tenant: Tenant | null): SharePolicy {
  const out = {} as SharePolicy;
  for (const type of ["SPECIFIC_USERS", "ORG_LINK", "PUBLIC_LINK"] as ShareType[]) {
    const p = tenant?.sharePolicy?.[type] ?? { allowed: false, maxPermissions: [] };
    const perms = p.maxPermissions.filter((x) => !(LINK_TYPES.has(type) && x === "SHARE"));
    out[type] = { allowed: p.allowed && perms.includes("VIEW"), maxPermissions: perms };
  }
  return out;
}

/** The most a share of `type` may grant under `policy`. */
export function policyCap(policy: SharePolicy, type: ShareType): ShareFlags {
  const p = policy[type];
  if (!p.allowed) return { ...NO_FLAGS };
  const out = { ...NO_FLAGS };
  for (const k of FLAG_NAMES) out[k] = p.maxPermissions.includes(FLAG_PERMISSION[k]);
  return out;
}

export function exceeds(flags: ShareFlags, cap: ShareFlags): (keyof ShareFlags)[] {
  return FLAG_NAMES.filter((k) => flags[k] && !cap[k]);
}

export async function policyOf(kv: Deno.Kv, tenantId: number): Promise<SharePolicy> {
  return effectivePolicy(await getTenant(kv, tenantId));
}

// ---------------------------------------------------------------- grants

export function isExpired(share: Share, now = Date.now()): boolean {
  return share.expiresAt !== null && share.expiresAt <= now;
}

/**
 * share_visit (kv/keys.ts): the user presented this link's token (GET
 * /shares/link/{token}). A PUBLIC_LINK reaches "anyone with the link", so through the API it
 * grants only to accounts that have shown the token, never to whoever guesses a resource seq.
 */

/** Whether `caller` has shown `share`'s link token (only PUBLIC_LINK grants depend on it). */
export async function presentedToken(kv: Deno.Kv, share: Share, caller: Caller): Promise<boolean> {
  if (share.type !== "PUBLIC_LINK") return false;
  return (await kv.get(shareVisitKey(share.shareSeq, caller.userSeq))).value !== null;
}

/**
 * What one share grants `caller` (null: nothing), before the owner check. `presentedToken`:
 * the caller has shown this share's link token (see shareVisitKey in kv/keys.ts).
 */
export function grantOf(
  share: Share,
  caller: Caller,
  policy: SharePolicy,
  presentedToken: boolean,
): ShareFlags | null {
  if (isExpired(share)) return null;
  const cap = intersectFlags(policyCap(policy, share.type), share.flags);
  let flags: ShareFlags | null = null;
  if (share.type === "SPECIFIC_USERS") {
    const t = share.targets.find((x) => x.userSeq === caller.userSeq);
    if (t) flags = intersectFlags(t.flags, cap);
  } else if (share.type === "ORG_LINK") {
    if (caller.tenantId === share.tenantId) flags = cap;
  } else if (share.passwordHash === null && presentedToken) {
    flags = cap;
  }
  return flags && flags.cv ? flags : null;
}

/** The shares on `path` (a resource and its ancestors), nearest first. */
export async function sharesOnPath(kv: Deno.Kv, path: Resource[]): Promise<Share[]> {
  const seqs = (await getManyValues<number>(kv, path.map((r) => shareByResKey(r.rs))))
    .filter((s): s is number => s !== null);
  if (seqs.length === 0) return [];
  return (await getManyValues<Share>(kv, seqs.map((seq) => shareKey(seq))))
    .filter((s): s is Share => s !== null);
}

// ---------------------------------------------------------------- reads

export async function getShare(kv: Deno.Kv, shareSeq: number): Promise<Share | null> {
  return (await kv.get<Share>(shareKey(shareSeq))).value;
}

export async function shareOfResource(kv: Deno.Kv, resourceSeq: number): Promise<Share | null> {
  const seq = (await kv.get<number>(shareByResKey(resourceSeq))).value;
  return seq === null ? null : getShare(kv, seq);
}

export function linkUrlOf(publicUrl: string, share: Share): string | null {
  return share.linkToken ? `${publicUrl}/s/${share.linkToken}` : null;
}

/**
 * Share types used elsewhere in `resource`'s hierarchy (ancestors and descendants), not
 * counting share `exclude`. Descendants are found among the owner's shares, walking each one's
 * parents (memoized): its cost grows with how many shares the owner has, not with the tree.
 */
export async function hierarchyTypes(
  kv: Deno.Kv,
  path: Resource[],
  exclude: number | null,
): Promise<Set<ShareType>> {
  const types = new Set<ShareType>();
  const resource = path[0];
  const ancestorSeqs =
    (await getManyValues<number>(kv, path.slice(1).map((r) => shareByResKey(r.rs))))
      .filter((s): s is number => s !== null && s !== exclude);
  for (const s of await getManyValues<Share>(kv, ancestorSeqs.map((seq) => shareKey(seq)))) {
    if (s) types.add(s.type);
  }
  if (resource.type !== "FOLDER") return types;
  // parent pointers seen so far; the resource's own ancestors are known not to be below it.
  const parentOf = new Map<number, number | null>(path.map((r) => [r.rs, r.parentRs]));
  const isBelow = async (resourceSeq: number): Promise<boolean> => {
    let cur: number | null = resourceSeq;
    for (let depth = 0; cur !== null && depth < 80; depth++) {
      if (cur === resource.rs) return resourceSeq !== resource.rs;
      if (cur !== resourceSeq && path.some((p) => p.rs === cur)) return false;
      let parent = parentOf.get(cur);
      if (parent === undefined) {
        parent = (await getResource(kv, cur))?.parentRs ?? null;
        parentOf.set(cur, parent);
      }
      cur = parent;
    }
    return false;
  };
  const it = kv.list<{ rs: number; type: ShareType }>({
    prefix: shareByOwnerKey(resource.ownerSeq),
  });
  for await (const e of it) {
    if (e.key[2] === exclude || types.has(e.value.type)) continue;
    if (await isBelow(e.value.rs)) types.add(e.value.type);
  }
  return types;
}
