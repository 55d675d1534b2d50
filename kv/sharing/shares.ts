/**
 * Shares: at most one per resource; a share on a folder covers its whole subtree, and the
 * permissions of several shares on a resource's path combine as a union (permissionsFromShares,
 * the seam kv/authorize.ts calls for every non-owner access).
 *   ["share", shareSeq]                 -> Share (recipients inline, at most MAX_TARGETS)
 *   ["share_by_res", rs]                -> shareSeq
 *   ["share_by_owner", ownerSeq, seq]   -> {rs, type}   (hierarchy rule, descendant side)
 *   ["share_link", sha256(token)]       -> shareSeq      (ORG_LINK / PUBLIC_LINK only)
 *   ["share_link_list", shareSeq]       -> rs            (admin listing of links)
 *   ["share_type_gen", ownerSeq]        -> number        (bumped by each create / type change)
 * Who a share reaches: SPECIFIC_USERS its recipients (any tenant); ORG_LINK every user of the
 * owner's tenant; PUBLIC_LINK every authenticated user when it has no password (a password-
 * protected public link opens only through the public link page). Expired shares and types
 * the owner's tenant policy no longer allows grant nothing; grants are capped by the policy.
 * The writes (create, change, set recipients, remove) are in kv/share_writes.ts.
 */
import type { Caller, Permissions } from "./authorize.ts";
import { getManyValues } from "../db.ts";
import { fail } from "../errors.ts";
import { getResource, loadPath, type Resource } from "../tree/resources.ts";
import { sha256Hex } from "../../lib/secrets.ts";
import {
  getTenant,
  type SharePermission,
  type SharePolicy,
  type ShareType,
  type Tenant,
} from "../identity/tenants.ts";

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
  createdAt: number;
  createdBy: number;
  updatedAt: number;
  updatedBy: number;
}

export const MAX_TARGETS = 50;
export const LINK_TYPES: ReadonlySet<ShareType> = new Set(["ORG_LINK", "PUBLIC_LINK"]);
export const ALL_FLAGS: ShareFlags = { cv: true, ce: true, cd: true, cu: true, cs: true };
export const NO_FLAGS: ShareFlags = { cv: false, ce: false, cd: false, cu: false, cs: false };
export const FLAG_NAMES = ["cv", "ce", "cd", "cu", "cs"] as const;
export const FLAG_PERMISSION: Record<keyof ShareFlags, SharePermission> = {
  cv: "VIEW",
  ce: "EDIT",
  cd: "DOWNLOAD",
  cu: "UPLOAD",
  cs: "SHARE",
};

export const shareKey = (seq: number): Deno.KvKey => ["share", seq];
export const shareByResKey = (rs: number): Deno.KvKey => ["share_by_res", rs];
export const shareByOwnerKey = (owner: number, seq: number): Deno.KvKey => [
  "share_by_owner",
  owner,
  seq,
];
export const linkKey = (token: string): Deno.KvKey => ["share_link", sha256Hex(token)];
export const linkListKey = (seq: number): Deno.KvKey => ["share_link_list", seq];
/**
 * Checked and bumped by every commit that adds a share type to an owner's tree, so two
 * concurrent ones (a folder and its subfolder, say) cannot both pass the one-type-per-hierarchy
 * rule: the later commit fails its check and re-validates.
 */
export const shareTypeGenKey = (owner: number): Deno.KvKey => ["share_type_gen", owner];

// ---------------------------------------------------------------- flags and policy

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
const unionFlags = (a: ShareFlags, b: ShareFlags) => combine(a, b, (x, y) => x || y);

/** The tenant policy with the rules no administrator can change: link types never re-share. */
export function effectivePolicy(tenant: Tenant | null): SharePolicy {
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
 * ["share_visit", shareSeq, userSeq]: the user presented this link's token (GET
 * /shares/link/{token}). A PUBLIC_LINK reaches "anyone with the link", so through the API it
 * grants only to accounts that have shown the token, never to whoever guesses a resource seq.
 */
export const visitKey = (shareSeq: number, u: number): Deno.KvKey => ["share_visit", shareSeq, u];

/** Whether `caller` has shown `share`'s link token (only PUBLIC_LINK grants depend on it). */
export async function presentedToken(kv: Deno.Kv, share: Share, caller: Caller): Promise<boolean> {
  if (share.type !== "PUBLIC_LINK") return false;
  return (await kv.get(visitKey(share.shareSeq, caller.userSeq))).value !== null;
}

/**
 * What one share grants `caller` (null: nothing), before the owner check. `presentedToken`:
 * the caller has shown this share's link token (see visitKey).
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

/**
 * The union of the permissions that shares on `path` (a resource and its ancestors) grant
 * `caller`, or null when none does.
 */
export async function permissionsFromShares(
  kv: Deno.Kv,
  caller: Caller,
  path: Resource[],
): Promise<Permissions | null> {
  const seqs = (await getManyValues<number>(kv, path.map((r) => shareByResKey(r.rs))))
    .filter((s): s is number => s !== null);
  if (seqs.length === 0) return null;
  const shares = (await getManyValues<Share>(kv, seqs.map(shareKey)))
    .filter((s): s is Share => s !== null);
  const policies = new Map<number, SharePolicy>();
  let total: ShareFlags | null = null;
  for (const share of shares) {
    let policy = policies.get(share.tenantId);
    if (!policy) {
      policy = await policyOf(kv, share.tenantId);
      policies.set(share.tenantId, policy);
    }
    const g = grantOf(share, caller, policy, await presentedToken(kv, share, caller));
    if (g) total = total ? unionFlags(total, g) : g;
  }
  return total ? flagsToPermissions(total) : null;
}

// ---------------------------------------------------------------- reads

export async function getShare(kv: Deno.Kv, shareSeq: number): Promise<Share | null> {
  return (await kv.get<Share>(shareKey(shareSeq))).value;
}

export async function shareOfResource(kv: Deno.Kv, rs: number): Promise<Share | null> {
  const seq = (await kv.get<number>(shareByResKey(rs))).value;
  return seq === null ? null : getShare(kv, seq);
}

export function linkUrlOf(publicUrl: string, share: Share): string | null {
  return share.linkToken ? `${publicUrl}/s/${share.linkToken}` : null;
}

export interface ShareView {
  share: Share;
  resource: Resource;
  path: Resource[];
  isOwner: boolean;
  /** The caller's grant through this share (owner: everything). */
  grant: ShareFlags;
  policy: SharePolicy;
}

/**
 * Loads a share for `caller`: the owner always sees it; anyone else only when the share
 * currently grants them something (otherwise SHARE_006, so share seqs leak nothing), and
 * then `ss` must name the owner (PERMISSION_002).
 */
export async function loadShareFor(
  kv: Deno.Kv,
  caller: Caller,
  shareSeq: number,
  ss: number | null | undefined,
  requireSs = true,
): Promise<ShareView> {
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
  if (!isOwner && requireSs && ss !== share.ownerSeq) {
    fail("PERMISSION_002", "ss must be the user seq of the share's owner", "ss");
  }
  return { share, resource: loaded.path[0], path: loaded.path, isOwner, grant, policy };
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
  for (const s of await getManyValues<Share>(kv, ancestorSeqs.map(shareKey))) {
    if (s) types.add(s.type);
  }
  if (resource.type !== "FOLDER") return types;
  // parent pointers seen so far; the resource's own ancestors are known not to be below it.
  const parentOf = new Map<number, number | null>(path.map((r) => [r.rs, r.parentRs]));
  const isBelow = async (rs: number): Promise<boolean> => {
    let cur: number | null = rs;
    for (let depth = 0; cur !== null && depth < 80; depth++) {
      if (cur === resource.rs) return rs !== resource.rs;
      if (cur !== rs && path.some((p) => p.rs === cur)) return false;
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
    prefix: ["share_by_owner", resource.ownerSeq],
  });
  for await (const e of it) {
    if (e.key[2] === exclude || types.has(e.value.type)) continue;
    if (await isBelow(e.value.rs)) types.add(e.value.type);
  }
  return types;
}
