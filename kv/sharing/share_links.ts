/**
 * Share links (ORG_LINK, PUBLIC_LINK): resolving a token, the API-key lookup, and anonymous
 * access through the public link page.
 *   ["link_access", sha256(accessToken)]  -> LinkAccess  (after a correct password, ~1 h)
 * Wrong passwords are throttled by kv/identity/guess_throttle.ts (subject `link:<shareSeq>`).
 * A token resolves only while its share exists, is still a link type and has not expired, and
 * while its owner and the owner's tenant are enabled (LINK_005 otherwise; the link comes back
 * when an administrator enables them).
 * Anonymous visitors get PUBLIC_LINK shares only (an ORG_LINK needs a signed-in member of the
 * owner's tenant: LINK_003); with a password they first trade it for an access token.
 */
import {
  accessIfVisible,
  authorizeLinkOpen,
  type Caller,
  NO_PERMISSIONS,
  type Permissions,
} from "./authorize.ts";
import { fail } from "../errors.ts";
import { verifyPassword } from "../../lib/passwords.ts";
import { loadPath, type Resource } from "../tree/resources.ts";
import { accountDisabledReason, getUser } from "../identity/users.ts";
import { randomToken, sha256Hex } from "../../lib/secrets.ts";
import { recordLinkVisit } from "./shared_list.ts";
import {
  getShare,
  intersectFlags,
  isExpired,
  LINK_TYPES,
  policyCap,
  policyOf,
  type Share,
  type ShareFlags,
} from "./shares.ts";
import { linkAccessKey, shareLinkKey } from "../keys.ts";
import {
  clearGuesses,
  countWrongGuess,
  guessRetryAfter,
  takeGuess,
} from "../identity/guess_throttle.ts";

const LINK_ACCESS_TTL_MS = 60 * 60 * 1000;

interface LinkAccess {
  shareSeq: number;
  passwordSetAt: number | null;
  expiresAt: number;
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The live link share of `token`, or SHARE_007 (unknown, revoked or expired). */
export async function resolveLinkToken(kv: Deno.Kv, token: string): Promise<Share> {
  const seq = TOKEN_PATTERN.test(token)
    ? (await kv.get<number>(shareLinkKey(sha256Hex(token)))).value
    : null;
  const share = seq === null ? null : await getShare(kv, seq);
  // The key is the token's hash, so a hit means the token matched; the type and expiry decide.
  if (!share || share.linkToken === null || !LINK_TYPES.has(share.type) || isExpired(share)) {
    fail("SHARE_007", "Unknown, revoked or expired share link", "token");
  }
  const owner = await getUser(kv, share.ownerSeq);
  const disabled = owner ? await accountDisabledReason(kv, owner) : null;
  if (disabled) {
    fail("LINK_005", `The link does not work while its owner is disabled (${disabled})`);
  }
  return share;
}

/** The link's resource when nothing on its path is in the trash; otherwise SHARE_007. */
async function linkRoot(kv: Deno.Kv, share: Share): Promise<Resource[]> {
  const loaded = await loadPath(kv, share.rs);
  if (!loaded || loaded.trashed) {
    fail("SHARE_007", "The shared resource is no longer available", "token");
  }
  return loaded.path;
}

/**
 * GET /shares/link/{token}: the key's account must be able to view the resource (through this
 * link, which it now presents, or any other share, or as owner), otherwise PERMISSION_002.
 * Opening records the visit (from then on a PUBLIC_LINK reaches this account through the API)
 * and lists the resource in the account's shared-with-me list.
 */
export async function lookupLinkForCaller(
  kv: Deno.Kv,
  caller: Caller,
  token: string,
): Promise<{ share: Share; resource: Resource; permissions: Permissions }> {
  const share = await resolveLinkToken(kv, token);
  const path = await linkRoot(kv, share);
  await authorizeLinkOpen(kv, caller, share, path);
  await recordLinkVisit(kv, share, caller, path[0]);
  // Asked again: the recorded visit is what lets a PUBLIC_LINK reach the account.
  const access = await accessIfVisible(kv, caller, { path, trashed: false });
  return { share, resource: path[0], permissions: access?.permissions ?? NO_PERMISSIONS };
}

// ---------------------------------------------------------------- anonymous access

export interface AnonymousLink {
  share: Share;
  resource: Resource;
  /** What an anonymous visitor may do (share flags within the tenant policy). */
  flags: ShareFlags;
  passwordRequired: boolean;
  /** True when the visitor may see the resource (no password, or a valid access token). */
  unlocked: boolean;
}

async function accessIsValid(kv: Deno.Kv, share: Share, accessToken: string | undefined) {
  if (!accessToken || !TOKEN_PATTERN.test(accessToken)) return false;
  const rec = (await kv.get<LinkAccess>(linkAccessKey(sha256Hex(accessToken)))).value;
  return rec !== null && rec.shareSeq === share.shareSeq && rec.expiresAt > Date.now() &&
    rec.passwordSetAt === share.passwordSetAt;
}

/** What the public page may show for `token` (no credentials other than the token). */
export async function describeLink(
  kv: Deno.Kv,
  token: string,
  accessToken: string | undefined,
): Promise<AnonymousLink> {
  const share = await resolveLinkToken(kv, token);
  const path = await linkRoot(kv, share);
  const policy = await policyOf(kv, share.tenantId);
  const flags = intersectFlags(policyCap(policy, share.type), share.flags);
  if (!flags.cv) fail("SHARE_007", "The share no longer grants anything", "token");
  const passwordRequired = share.passwordHash !== null;
  const unlocked = share.type === "PUBLIC_LINK" &&
    (!passwordRequired || await accessIsValid(kv, share, accessToken));
  return { share, resource: path[0], flags, passwordRequired, unlocked };
}

/**
 * Like describeLink, but fails unless the visitor may see the content (`purpose` "see"), or
 * may reach the link to upload ("upload"). A file request shows nothing: LINK_006 for "see".
 */
export async function requireLinkAccess(
  kv: Deno.Kv,
  token: string,
  accessToken: string | undefined,
  purpose: "see" | "upload" = "see",
): Promise<AnonymousLink> {
  const link = await describeLink(kv, token, accessToken);
  if (link.share.type === "ORG_LINK") {
    fail("LINK_003", "Open this link signed in as a member of the owner's organization");
  }
  if (!link.unlocked) fail("LINK_004", "Send the access token from POST .../access", "access");
  if (purpose === "see" && link.share.fileRequest === true) {
    fail("LINK_006", "This link is a file request: it only takes uploads");
  }
  return link;
}

/**
 * Where an anonymous visitor's upload goes: the link must be unlocked and grant cu (LINK_007);
 * a file request always takes its own folder, another link any folder inside it (`folderSeq`).
 * The file is the owner's (their drive, their quota, their events): `owner` is the caller the
 * upload is stored for, asked again at every request since the link may change meanwhile.
 */
export async function authorizeLinkUpload(
  kv: Deno.Kv,
  token: string,
  accessToken: string | undefined,
  folderSeq: number | undefined,
): Promise<{ link: AnonymousLink; folder: Resource; owner: Caller }> {
  const link = await requireLinkAccess(kv, token, accessToken, "upload");
  if (!link.flags.cu) fail("LINK_007", "This link does not allow uploads");
  if (link.resource.type !== "FOLDER") {
    fail("RESOURCE_005", "This link is to a file, not a folder", "folderSeq");
  }
  const rs = link.share.fileRequest ? link.share.rs : folderSeq ?? link.share.rs;
  const { resource } = await resourceInLink(kv, link.share, rs, "folderSeq");
  if (resource.type !== "FOLDER") fail("RESOURCE_005", "folderSeq is a file", "folderSeq");
  return {
    link,
    folder: resource,
    owner: { userSeq: link.share.ownerSeq, tenantId: link.share.tenantId },
  };
}

// ---------------------------------------------------------------- password guessing
//
// Throttled by the one guess throttle (kv/identity/guess_throttle.ts, where the policy is
// explained): each client has its own budget per link, and a link past its ceiling of wrong
// passwords a minute tightens every client's budget without ever refusing a try by itself.

const linkGuesser = (shareSeq: number, client: string) => ({
  subject: `link:${shareSeq}`,
  client,
});

/** Seconds until `client` may try another password on this link, or 0. */
export function passwordRetryAfter(
  kv: Deno.Kv,
  shareSeq: number,
  client: string,
): Promise<number> {
  return guessRetryAfter(kv, linkGuesser(shareSeq, client));
}

/**
 * Trades the link password for an access token. `client` names who is asking (the edge derives
 * it from the peer address, see api/http/client_address.ts). The caller checks
 * passwordRetryAfter first; the try itself is taken from the client's budget before the password
 * is checked ({retryAfter} when the client must wait, answered LINK_002 with Retry-After); a
 * wrong password fails with LINK_001.
 */
export async function grantLinkAccess(
  kv: Deno.Kv,
  share: Share,
  password: string,
  client: string,
): Promise<{ accessToken: string; expiresAt: number } | { retryAfter: number }> {
  if (share.type !== "PUBLIC_LINK") {
    fail("LINK_003", "Open this link signed in as a member of the owner's organization");
  }
  if (share.passwordHash !== null) {
    const guesser = linkGuesser(share.shareSeq, client);
    const retryAfter = await takeGuess(kv, guesser);
    if (retryAfter > 0) return { retryAfter };
    if (!(await verifyPassword(password, share.passwordHash))) {
      await countWrongGuess(kv, [guesser.subject]);
      fail("LINK_001", "Wrong password for this link", "password");
    }
    await clearGuesses(kv, guesser);
  }
  const accessToken = randomToken(32);
  const expiresAt = Date.now() + LINK_ACCESS_TTL_MS;
  const rec: LinkAccess = {
    shareSeq: share.shareSeq,
    passwordSetAt: share.passwordSetAt,
    expiresAt,
  };
  await kv.set(linkAccessKey(sha256Hex(accessToken)), rec, { expireIn: LINK_ACCESS_TTL_MS });
  return { accessToken, expiresAt };
}

/**
 * A resource inside the link's subtree (the shared resource itself or below it), or
 * RESOURCE_002 for anything else, so a link never reveals what lies outside it.
 */
export async function resourceInLink(
  kv: Deno.Kv,
  share: Share,
  resourceSeq: number,
  field: string,
): Promise<{ resource: Resource; path: Resource[] }> {
  const loaded = await loadPath(kv, resourceSeq);
  const inside = loaded && !loaded.trashed && loaded.path.findIndex((r) => r.rs === share.rs);
  if (!loaded || inside === false || inside === null || inside < 0) {
    fail("RESOURCE_002", `No file or folder with seq ${resourceSeq} in this link`, field);
  }
  // The path from the shared root down to the resource.
  return { resource: loaded.path[0], path: loaded.path.slice(0, inside + 1).reverse() };
}
