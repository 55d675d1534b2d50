/**
 * The rules a share request must meet before anything is written (kv/sharing/share_writes.ts):
 * the flags it asks for (cv first; link types send every flag), the tenant's share policy (which
 * types, which permissions), the one share type per hierarchy, and the expiry date.
 */
import { fail } from "../errors.ts";
import type { SharePolicy } from "../identity/tenants.ts";
import type { Resource } from "../tree/resources.ts";
import {
  exceeds,
  FLAG_NAMES,
  hierarchyTypes,
  LINK_TYPES,
  permissionsOfFlags,
  policyCap,
  type ShareFlags,
  type ShareType,
} from "./shares.ts";

export interface FlagsInput {
  cv?: boolean;
  ce?: boolean;
  cd?: boolean;
  cu?: boolean;
  cs?: boolean;
}

/** PERMISSION_003 when a permission is on while cv is explicitly off. */
export function checkViewPrerequisite(f: FlagsInput, field: string) {
  if (f.cv === false && (f.ce || f.cd || f.cu || f.cs)) {
    fail("PERMISSION_003", `${field}cv must be true while another permission is on`, `${field}cv`);
  }
}

/** Share-level flags of a request: link types need every flag sent and cv true. */
function shareFlagsOf(type: ShareType, f: FlagsInput, cap: ShareFlags): ShareFlags {
  checkViewPrerequisite(f, "");
  if (LINK_TYPES.has(type)) {
    const missing = FLAG_NAMES.filter((k) => typeof f[k] !== "boolean");
    if (missing.length > 0) {
      fail("SHARE_008", `${type} needs ${missing.join(", ")} sent explicitly`, missing[0]);
    }
    if (!f.cv) fail("SHARE_008", `${type} needs cv true`, "cv");
    return { cv: true, ce: f.ce!, cd: f.cd!, cu: f.cu!, cs: f.cs! };
  }
  if (f.cv === false) fail("PERMISSION_003", "cv must be true for a share", "cv");
  // SPECIFIC_USERS: an unsent flag defaults to what the policy allows (recipients set theirs).
  const out = { ...cap, cv: true };
  for (const k of FLAG_NAMES) if (typeof f[k] === "boolean") out[k] = f[k]!;
  return out;
}

export function assertWithinPolicy(
  flags: ShareFlags,
  cap: ShareFlags,
  type: ShareType,
  field: string,
) {
  const over = exceeds(flags, cap);
  if (over.length > 0) {
    fail(
      "SHARE_003",
      `The tenant's policy does not allow ${permissionsOfFlags(over)} ` +
        `for ${type}`,
      `${field}${over[0]}`,
    );
  }
}

function assertTypeAllowed(policy: SharePolicy, type: ShareType) {
  if (!policy[type].allowed) {
    fail("SHARE_002", `The tenant's share policy does not allow ${type}`, "st");
  }
}

export async function assertHierarchyAllows(
  kv: Deno.Kv,
  path: Resource[],
  type: ShareType,
  exclude: number | null,
) {
  const others = await hierarchyTypes(kv, path, exclude);
  const conflicting = [...others].filter((t) => t !== type);
  if (conflicting.length > 0) {
    fail(
      "SHARE_004",
      `Resources in this hierarchy are shared as ${conflicting.join(", ")}; ` +
        `every resource in one hierarchy uses one share type`,
      "st",
    );
  }
}

/**
 * The share-level flags of a request of type `input.st` under the tenant's `policy`, checked:
 * the type is allowed and the flags stay within what the policy lets that type grant. Returns
 * them with the policy's cap, which recipients are held to.
 */
export function requestedFlags(
  policy: SharePolicy,
  input: FlagsInput & { st: ShareType },
): { cap: ShareFlags; flags: ShareFlags } {
  assertTypeAllowed(policy, input.st);
  const cap = policyCap(policy, input.st);
  const flags = shareFlagsOf(input.st, input, cap);
  assertWithinPolicy(flags, cap, input.st, "");
  return { cap, flags };
}

/** REQUEST_001 when a password comes with a share type that has no link. */
export function assertPasswordFits(type: ShareType, password: string | null | undefined) {
  if (password != null && !LINK_TYPES.has(type)) {
    fail("REQUEST_001", "password is only for ORG_LINK and PUBLIC_LINK shares", "password");
  }
}

/**
 * SHARE_011 unless a file request (`fileRequest` true) is a PUBLIC_LINK on a folder granting cv
 * and cu only. View stays the prerequisite (SHARE_008's rule for links): the link grants cv so
 * the visitor may open it, and the public API (api/public/links.ts) shows a file request nothing
 * but the upload form, so cv there means "may open the drop box", never "may list".
 */
export function assertFileRequestFits(
  type: ShareType,
  flags: ShareFlags,
  resource: { type: "FILE" | "FOLDER" },
  fileRequest: boolean,
) {
  if (!fileRequest) return;
  if (type !== "PUBLIC_LINK" || resource.type !== "FOLDER") {
    fail("SHARE_011", "A file request is a PUBLIC_LINK on a folder", "fileRequest");
  }
  if (!flags.cv || !flags.cu || flags.ce || flags.cd || flags.cs) {
    fail("SHARE_011", "A file request grants cv and cu only (ce, cd and cs false)", "fileRequest");
  }
}

/** The expiry of a request: a date means its last millisecond (UTC); null removes it. */
export function parseExpiry(expireDate: string | null | undefined): number | null | undefined {
  if (expireDate === undefined || expireDate === null) return expireDate;
  const ms = Date.parse(
    /^\d{4}-\d{2}-\d{2}$/.test(expireDate) ? `${expireDate}T23:59:59.999Z` : expireDate,
  );
  if (!Number.isFinite(ms)) {
    fail("REQUEST_001", "expireDate must be an ISO date or date-time", "expireDate");
  }
  if (ms <= Date.now()) fail("REQUEST_001", "expireDate must be in the future", "expireDate");
  return ms;
}
