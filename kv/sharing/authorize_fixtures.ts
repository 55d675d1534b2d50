/**
 * The world and the rule tables of the authorization tests (authorize_test.ts: resources;
 * authorize_shares_test.ts: pins, shares and links). One drive, shared three ways, and every kind
 * of caller: the owner, a recipient holding each permission, non-recipients of the owner's and of
 * another tenant, link holders, a storage provider adapter (its user, never sending `ss`), and
 * signed-in sessions (the caller a session cookie resolves to, kv/identity/sessions.ts: it must
 * get exactly the decisions of its user's read-write key).
 * The expected answers come from the small rule tables below, never from the code under test.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { DriveError } from "../errors.ts";
import type { User } from "../identity/users.ts";
import { startSession, verifySession } from "../identity/sessions.ts";
import { newFile, newFolder, newShare, newTenant, newUser, trash } from "../testing.ts";
import { type Resource } from "../tree/resources.ts";
import { type Action } from "./authorize.ts";
import { lookupLinkForCaller } from "./share_links.ts";
import type { FlagsInput } from "./share_policy.ts";
import type { ShareInput } from "./share_writes.ts";
import type { TargetInput } from "./share_targets.ts";
import type { Share } from "./shares.ts";

// ---------------------------------------------------------------- the drive (fixtures)

/** Where a caller kind's target lives: under which share of the owner's drive. */
type Area = "specific users" | "org link" | "public link";

/**
 * Every caller kind's user but the owner's: its tenant (the owner's is home) and, for the
 * recipients of the specific-users share, what that share grants them.
 */
const CALLERS: readonly [kind: string, tenant: "home" | "away", grant?: FlagsInput][] = [
  ["recipient cv", "home", { cv: true }],
  ["recipient ce", "home", { cv: true, ce: true }],
  ["recipient cd (other tenant)", "away", { cv: true, cd: true }],
  ["recipient cu", "home", { cv: true, cu: true }],
  ["recipient cs", "home", { cv: true, cs: true }],
  ["adapter (its user: recipient cv ce cu)", "home", { cv: true, ce: true, cu: true }],
  ["same-tenant non-recipient", "home"],
  ["other-tenant user", "away"],
  ["ORG_LINK member (same tenant)", "home"],
  ["ORG_LINK outsider (other tenant)", "away"],
  ["PUBLIC_LINK holder (presented the token)", "away"],
  ["PUBLIC_LINK stranger (never presented it)", "home"],
];

/** Session caller kinds: a signed-in browser of another kind's user. */
const SESSION_CALLERS: readonly [kind: string, of: string][] = [
  ["owner's session", "owner"],
  ["recipient ce's session", "recipient ce"],
  ["same-tenant non-recipient's session", "same-tenant non-recipient"],
];

export interface World {
  owner: User;
  /** The user of a caller kind ("owner" or one of CALLERS), by kind name. */
  caller(kind: string): User;
  /** A real user that owns nothing here, for "ss = another user". */
  another: User;
  /** Per area: the shared folder, a folder inside it, and a file inside that. */
  areas: Record<Area, { share: Share; top: Resource; folder: Resource; file: Resource }>;
  /** The owner's unshared folder above the specific-users share. */
  outer: Resource;
  trashedFile: Resource;
  /** A file whose folder is in the trash. */
  underTrashed: Resource;
  trashedFolder: Resource;
  /** A SPECIFIC_USERS share (recipient cv) whose folder is in the trash. */
  binnedShare: Share;
  /** A password-protected PUBLIC_LINK. */
  lockedShare: Share;
}

export async function buildWorld(d: Deps): Promise<World> {
  const tenants = { home: await newTenant(d, "home"), away: await newTenant(d, "away") };
  let n = 0;
  const user = (tenant: keyof typeof tenants) =>
    newUser(d, `u${++n}`, { tenantId: tenants[tenant].id });
  const owner = await user("home");
  const callers = new Map<string, User>([["owner", owner]]);
  const recipients: TargetInput[] = [];
  for (const [kind, tenant, grant] of CALLERS) {
    const u = await user(tenant);
    callers.set(kind, u);
    if (grant) recipients.push({ us: u.userSeq, ...grant });
  }
  const another = await user("home");
  const caller = (kind: string) => {
    const u = callers.get(kind);
    assert.ok(u, `no caller of kind "${kind}"`);
    return u;
  };
  // A session's caller is whoever its cookie resolves to, by the same path as a request's.
  for (const [kind, of] of SESSION_CALLERS) {
    const started = await startSession(d, caller(of).userSeq, {
      userAgent: "test",
      address: "127.0.0.1",
      via: "password",
    });
    const verified = await verifySession(d, started.sessionId);
    assert.ok(verified, `the session of ${of} works`);
    callers.set(kind, verified.user);
  }

  const folder = (name: string, parent: Resource | null = null) =>
    newFolder(d, owner, name, parent?.rs ?? null);
  const file = (name: string, parent: Resource) => newFile(d, owner, name, name, parent.rs);
  /** `top` shared with `input`, a folder inside it and a file inside that. */
  const area = async (top: Resource, input: ShareInput) => {
    const inner = await folder("inner", top);
    const share = await newShare(d, owner, top, input);
    return { share, top, folder: inner, file: await file("doc.txt", inner) };
  };

  const outer = await folder("outer");
  const link = { cv: true, cu: false, cs: false };
  const areas = {
    "specific users": await area(await folder("shared", outer), {
      st: "SPECIFIC_USERS",
      ts: recipients,
    }),
    "org link": await area(await folder("org"), { st: "ORG_LINK", ...link, ce: false, cd: true }),
    "public link": await area(await folder("public"), {
      st: "PUBLIC_LINK",
      ...link,
      ce: true,
      cd: false,
    }),
  };
  // Presenting the token is what lets a PUBLIC_LINK reach an account.
  const holder = caller("PUBLIC_LINK holder (presented the token)");
  await lookupLinkForCaller(d.kv, holder, areas["public link"].share.linkToken!);

  const sharedInner = areas["specific users"].folder;
  const trashedFile = await file("gone.txt", sharedInner);
  await trash(d, owner, trashedFile);
  const trashedFolder = await folder("binned-inner", sharedInner);
  const underTrashed = await file("under.txt", trashedFolder);
  await trash(d, owner, trashedFolder);
  const binned = await folder("binned");
  const binnedShare = await newShare(d, owner, binned, {
    st: "SPECIFIC_USERS",
    ts: [recipients[0]],
  });
  await trash(d, owner, binned);
  const lockedShare = await newShare(d, owner, await folder("locked"), {
    st: "PUBLIC_LINK",
    ...link,
    ce: false,
    cd: false,
    password: "correct horse",
  });
  return {
    owner,
    caller,
    another,
    areas,
    outer,
    trashedFile,
    underTrashed,
    trashedFolder,
    binnedShare,
    lockedShare,
  };
}

// ---------------------------------------------------------------- the rule tables

export const ACTIONS: readonly Action[] = ["view", "download", "edit", "upload", "share", "delete"];

export interface Kind {
  name: string;
  area: Area;
  /** What the caller may do there; empty: nothing at all. */
  may: readonly Action[];
  /** The provider's adapter never sends ss and never pins or reads shares. */
  adapter?: true;
  /** The drive's owner (directly or through a session). */
  owner?: true;
}

/**
 * Who may do what. A recipient's ce also allows delete (to the trash). The org link grants
 * view and download, the public link view and edit (so delete), to whoever it reaches.
 */
export const KINDS: readonly Kind[] = [
  { name: "owner", area: "specific users", may: ACTIONS, owner: true },
  // Sessions: the same decisions as the user's key (and so as the kind of that user).
  { name: "owner's session", area: "specific users", may: ACTIONS, owner: true },
  { name: "recipient ce's session", area: "specific users", may: ["view", "edit", "delete"] },
  { name: "same-tenant non-recipient's session", area: "specific users", may: [] },
  { name: "recipient cv", area: "specific users", may: ["view"] },
  { name: "recipient ce", area: "specific users", may: ["view", "edit", "delete"] },
  { name: "recipient cd (other tenant)", area: "specific users", may: ["view", "download"] },
  { name: "recipient cu", area: "specific users", may: ["view", "upload"] },
  { name: "recipient cs", area: "specific users", may: ["view", "share"] },
  { name: "same-tenant non-recipient", area: "specific users", may: [] },
  { name: "other-tenant user", area: "specific users", may: [] },
  { name: "ORG_LINK member (same tenant)", area: "org link", may: ["view", "download"] },
  { name: "ORG_LINK outsider (other tenant)", area: "org link", may: [] },
  {
    name: "PUBLIC_LINK holder (presented the token)",
    area: "public link",
    may: ["view", "edit", "delete"],
  },
  { name: "PUBLIC_LINK stranger (never presented it)", area: "public link", may: [] },
  {
    name: "adapter (its user: recipient cv ce cu)",
    area: "specific users",
    may: ["view", "edit", "upload", "delete"],
    adapter: true,
  },
];

export type SsKind = "ss omitted" | "ss = owner" | "ss = another user" | "ss = no such user";
export const SS_KINDS: readonly SsKind[] = [
  "ss omitted",
  "ss = owner",
  "ss = another user",
  "ss = no such user",
];
export const ssKindsOf = (k: Kind): readonly SsKind[] => k.adapter ? ["ss omitted"] : SS_KINDS;
/** The kinds that pin folders and read shares: all but the adapter. */
export const USER_KINDS = KINDS.filter((k) => !k.adapter);

export const ALLOWED = "allowed";
export const names = (k: SsKind) => k === "ss omitted" || k === "ss = owner";

/** authorizeResourceAccess on a live resource (field: the request field naming it). */
export function expectedAccess(k: Kind, ss: SsKind, action: Action, field = "resourceSeq"): string {
  if (!names(ss)) return "PERMISSION_002 (ss)";
  if (k.may.length === 0) return `PERMISSION_002 (${field})`;
  if (!k.may.includes(action)) return `PERMISSION_004 (${field})`;
  return ALLOWED;
}

/** authorizeFolderTarget without pfs: the caller's own drive root, ss naming nobody else. */
export function expectedRootTarget(k: Kind, ss: SsKind): string {
  const namesCaller = ss === "ss omitted" || (ss === "ss = owner" && k.owner === true);
  return namesCaller ? ALLOWED : "REQUEST_001 (pfs)";
}

/** authorizePin on a live folder: ss is required from everyone but the owner. */
export function expectedPin(k: Kind, ss: SsKind): string {
  const ssOk = ss === "ss = owner" || (ss === "ss omitted" && k.owner === true);
  if (!ssOk) return "PERMISSION_002 (ss)";
  if (k.may.length === 0) return "PERMISSION_001 (rs)";
  return ALLOWED;
}

/** authorizeShareRead: invisible shares first, then ss (required from recipients only). */
export function expectedShareRead(k: Kind, ss: SsKind): string {
  if (k.owner) return ALLOWED;
  if (k.may.length === 0) return "SHARE_006 (shareSeq)";
  return ss === "ss = owner" ? ALLOWED : "PERMISSION_002 (ss)";
}

/** authorizeShareChange: the owner only; others learn the share exists only if they see it. */
export function expectedShareChange(k: Kind): string {
  if (k.owner) return ALLOWED;
  return k.may.length === 0 ? "SHARE_006 (shareSeq)" : "SHARE_010 (shareSeq)";
}

// ---------------------------------------------------------------- the cases

const NO_SUCH_USER = 999_999;

export function ssValue(w: World, ss: SsKind): number | undefined {
  if (ss === "ss omitted") return undefined;
  if (ss === "ss = owner") return w.owner.userSeq;
  return ss === "ss = another user" ? w.another.userSeq : NO_SUCH_USER;
}

/** "allowed", or the failure as "CODE (field)". */
export async function outcome(decision: () => Promise<unknown>): Promise<string> {
  try {
    await decision();
    return ALLOWED;
  } catch (err) {
    if (err instanceof DriveError) return `${err.code} (${err.field})`;
    throw err;
  }
}
