/**
 * The authorization decisions of kv/sharing/authorize.ts, called directly on an in-memory KV.
 * One drive, shared three ways, and every kind of caller: the owner, a recipient holding each
 * permission, non-recipients of the owner's and of another tenant, link holders, and a storage
 * provider adapter (its user, never sending `ss`). Each decision is tried with every kind of `ss`
 * (omitted, the owner, another user, a user seq that does not exist) and, for resources, every
 * action. The expected answers come from the small rule tables below, never from the code under
 * test; every case is its own step, named after the case.
 */
import assert from "node:assert/strict";
import type { Deps } from "../deps.ts";
import { DriveError } from "../errors.ts";
import type { User } from "../identity/users.ts";
import { domainTest, newFile, newFolder, newShare, newTenant, newUser, trash } from "../testing.ts";
import { loadPath, type Resource } from "../tree/resources.ts";
import {
  accessIfVisible,
  type Action,
  authorizeFolderTarget,
  authorizeLinkOpen,
  authorizePin,
  authorizeResourceAccess,
  authorizeShareChange,
  authorizeShareRead,
  visibleAncestors,
} from "./authorize.ts";
import { lookupLinkForCaller } from "./share_links.ts";
import type { FlagsInput, ShareInput, TargetInput } from "./share_writes.ts";
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

interface World {
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

async function buildWorld(d: Deps): Promise<World> {
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

const ACTIONS: readonly Action[] = ["view", "download", "edit", "upload", "share", "delete"];

interface Kind {
  name: string;
  area: Area;
  /** What the caller may do there; empty: nothing at all. */
  may: readonly Action[];
  /** The provider's adapter never sends ss and never pins or reads shares. */
  adapter?: true;
}

/**
 * Who may do what. A recipient's ce also allows delete (to the trash). The org link grants
 * view and download, the public link view and edit (so delete), to whoever it reaches.
 */
const KINDS: readonly Kind[] = [
  { name: "owner", area: "specific users", may: ACTIONS },
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

type SsKind = "ss omitted" | "ss = owner" | "ss = another user" | "ss = no such user";
const SS_KINDS: readonly SsKind[] = [
  "ss omitted",
  "ss = owner",
  "ss = another user",
  "ss = no such user",
];
const ssKindsOf = (k: Kind): readonly SsKind[] => k.adapter ? ["ss omitted"] : SS_KINDS;
/** The kinds that pin folders and read shares: all but the adapter. */
const USER_KINDS = KINDS.filter((k) => !k.adapter);

const ALLOWED = "allowed";
const names = (k: SsKind) => k === "ss omitted" || k === "ss = owner";

/** authorizeResourceAccess on a live resource (field: the request field naming it). */
function expectedAccess(k: Kind, ss: SsKind, action: Action, field = "resourceSeq"): string {
  if (!names(ss)) return "PERMISSION_002 (ss)";
  if (k.may.length === 0) return `PERMISSION_002 (${field})`;
  if (!k.may.includes(action)) return `PERMISSION_004 (${field})`;
  return ALLOWED;
}

/** authorizeFolderTarget without pfs: the caller's own drive root, ss naming nobody else. */
function expectedRootTarget(k: Kind, ss: SsKind): string {
  const namesCaller = ss === "ss omitted" || (ss === "ss = owner" && k.name === "owner");
  return namesCaller ? ALLOWED : "REQUEST_001 (pfs)";
}

/** authorizePin on a live folder: ss is required from everyone but the owner. */
function expectedPin(k: Kind, ss: SsKind): string {
  const ssOk = ss === "ss = owner" || (ss === "ss omitted" && k.name === "owner");
  if (!ssOk) return "PERMISSION_002 (ss)";
  if (k.may.length === 0) return "PERMISSION_001 (rs)";
  return ALLOWED;
}

/** authorizeShareRead: invisible shares first, then ss (required from recipients only). */
function expectedShareRead(k: Kind, ss: SsKind): string {
  if (k.name === "owner") return ALLOWED;
  if (k.may.length === 0) return "SHARE_006 (shareSeq)";
  return ss === "ss = owner" ? ALLOWED : "PERMISSION_002 (ss)";
}

/** authorizeShareChange: the owner only; others learn the share exists only if they see it. */
function expectedShareChange(k: Kind): string {
  if (k.name === "owner") return ALLOWED;
  return k.may.length === 0 ? "SHARE_006 (shareSeq)" : "SHARE_010 (shareSeq)";
}

// ---------------------------------------------------------------- the cases

const NO_SUCH_USER = 999_999;

function ssValue(w: World, ss: SsKind): number | undefined {
  if (ss === "ss omitted") return undefined;
  if (ss === "ss = owner") return w.owner.userSeq;
  return ss === "ss = another user" ? w.another.userSeq : NO_SUCH_USER;
}

/** "allowed", or the failure as "CODE (field)". */
async function outcome(decision: () => Promise<unknown>): Promise<string> {
  try {
    await decision();
    return ALLOWED;
  } catch (err) {
    if (err instanceof DriveError) return `${err.code} (${err.field})`;
    throw err;
  }
}

domainTest("authorization decisions, by caller kind, ss and action", async (d, t) => {
  const { kv } = d;
  const w = await buildWorld(d);

  await t.step("authorizeResourceAccess", async (t) => {
    for (const k of KINDS) {
      for (const ss of ssKindsOf(k)) {
        for (const action of ACTIONS) {
          await t.step(`${k.name}, ${ss}, ${action}`, async () => {
            const rs = w.areas[k.area].file.rs;
            const got = await outcome(() =>
              authorizeResourceAccess(kv, w.caller(k.name), { rs, ss: ssValue(w, ss) }, action)
            );
            assert.equal(got, expectedAccess(k, ss, action));
          });
        }
      }
    }
  });

  await t.step("authorizeResourceAccess: trashed or missing is RESOURCE_002", async (t) => {
    const missing = [
      ["a trashed file", w.trashedFile.rs],
      ["a file in a trashed folder", w.underTrashed.rs],
      ["a resource seq that does not exist", 999_999],
    ] as const;
    for (const [what, rs] of missing) {
      for (const k of KINDS) {
        for (const ss of ssKindsOf(k)) {
          await t.step(`${what}, ${k.name}, ${ss}`, async () => {
            const got = await outcome(() =>
              authorizeResourceAccess(kv, w.caller(k.name), { rs, ss: ssValue(w, ss) }, "view")
            );
            assert.equal(got, "RESOURCE_002 (resourceSeq)");
          });
        }
      }
    }
  });

  await t.step("authorizeResourceAccess: expected type and field", async (t) => {
    const { file, folder } = w.areas["specific users"];
    const cases = [
      ["a folder where a file is expected", folder.rs, "FILE", "RESOURCE_006 (rs)"],
      ["a file where a folder is expected", file.rs, "FOLDER", "RESOURCE_005 (rs)"],
      ["a file where a file is expected", file.rs, "FILE", ALLOWED],
    ] as const;
    for (const [name, rs, type, expected] of cases) {
      await t.step(name, async () => {
        const target = { rs, type, field: "rs" };
        assert.equal(
          await outcome(() => authorizeResourceAccess(kv, w.owner, target, "view")),
          expected,
        );
      });
    }
    await t.step("the result describes the access", async () => {
      const recipient = w.caller("recipient cu");
      const access = await authorizeResourceAccess(kv, recipient, { rs: file.rs }, "upload");
      assert.equal(access.resource.rs, file.rs);
      assert.equal(access.isOwner, false);
      assert.deepEqual(access.path.map((r) => r.rs), [
        file.rs,
        folder.rs,
        w.areas["specific users"].top.rs,
        w.outer.rs,
      ]);
    });
  });

  await t.step("authorizeFolderTarget", async (t) => {
    for (const k of KINDS) {
      for (const ss of ssKindsOf(k)) {
        await t.step(`${k.name}, ${ss}, into the shared folder (pfs)`, async () => {
          const pfs = w.areas[k.area].folder.rs;
          const got = await outcome(() =>
            authorizeFolderTarget(kv, w.caller(k.name), { pfs, ss: ssValue(w, ss) }, "upload")
          );
          assert.equal(got, expectedAccess(k, ss, "upload", "pfs"));
        });
        await t.step(`${k.name}, ${ss}, into the own drive root (no pfs)`, async () => {
          const caller = w.caller(k.name);
          let target;
          const got = await outcome(async () => {
            target = await authorizeFolderTarget(kv, caller, { ss: ssValue(w, ss) });
          });
          assert.equal(got, expectedRootTarget(k, ss));
          if (got === ALLOWED) {
            assert.deepEqual(target, {
              ownerSeq: caller.userSeq,
              parentRs: null,
              folder: null,
              folderEntry: null,
              depth: 0,
            });
          }
        });
      }
    }
    await t.step("a file as pfs is RESOURCE_005", async () => {
      const pfs = w.areas["specific users"].file.rs;
      assert.equal(
        await outcome(() => authorizeFolderTarget(kv, w.owner, { pfs })),
        "RESOURCE_005 (pfs)",
      );
    });
    await t.step("a trashed pfs is RESOURCE_002", async () => {
      const pfs = w.trashedFolder.rs;
      assert.equal(
        await outcome(() => authorizeFolderTarget(kv, w.owner, { pfs })),
        "RESOURCE_002 (pfs)",
      );
    });
  });

  await t.step("accessIfVisible", async (t) => {
    for (const k of KINDS) {
      await t.step(k.name, async () => {
        const loaded = await loadPath(kv, w.areas[k.area].file.rs);
        const access = await accessIfVisible(kv, w.caller(k.name), loaded);
        if (k.may.length === 0) return assert.equal(access, null);
        assert.ok(access);
        assert.equal(access.isOwner, k.name === "owner");
        assert.deepEqual(access.permissions, {
          canView: k.may.includes("view"),
          canEdit: k.may.includes("edit"),
          canDownload: k.may.includes("download"),
          canUpload: k.may.includes("upload"),
          canShare: k.may.includes("share"),
          canDelete: k.may.includes("delete"),
        });
      });
    }
    for (const [what, rs] of [["trashed", w.trashedFile.rs], ["missing", 999_999]] as const) {
      await t.step(`a ${what} resource is not visible, even to its owner`, async () => {
        assert.equal(await accessIfVisible(kv, w.owner, await loadPath(kv, rs)), null);
      });
    }
  });

  await t.step("visibleAncestors", async (t) => {
    const su = w.areas["specific users"];
    const cases = [
      ["owner: every ancestor", w.owner, su, [w.outer, su.top, su.folder]],
      ["recipient: up to the shared folder", w.caller("recipient cv"), su, [
        su.top,
        su.folder,
      ]],
      [
        "link holder: up to the linked folder",
        w.caller("PUBLIC_LINK holder (presented the token)"),
        w.areas["public link"],
        [w.areas["public link"].top, w.areas["public link"].folder],
      ],
    ] as const;
    for (const [name, caller, area, expected] of cases) {
      await t.step(name, async () => {
        const { path } = await authorizeResourceAccess(kv, caller, { rs: area.file.rs }, "view");
        const got = await visibleAncestors(kv, caller, path);
        assert.deepEqual(got.map((r) => r.name), expected.map((r) => r.name));
      });
    }
  });

  await t.step("authorizePin (ss required from recipients)", async (t) => {
    for (const k of USER_KINDS) {
      for (const ss of SS_KINDS) {
        await t.step(`${k.name}, ${ss}`, async () => {
          const rs = w.areas[k.area].folder.rs;
          const got = await outcome(() => authorizePin(kv, w.caller(k.name), rs, ssValue(w, ss)));
          assert.equal(got, expectedPin(k, ss));
        });
      }
    }
    await t.step("a file is RESOURCE_005", async () => {
      const rs = w.areas["specific users"].file.rs;
      assert.equal(
        await outcome(() => authorizePin(kv, w.owner, rs, undefined)),
        "RESOURCE_005 (rs)",
      );
    });
    await t.step("a trashed folder is RESOURCE_002", async () => {
      const rs = w.trashedFolder.rs;
      assert.equal(
        await outcome(() => authorizePin(kv, w.owner, rs, undefined)),
        "RESOURCE_002 (rs)",
      );
    });
  });

  await t.step("authorizeShareRead (ss required from recipients)", async (t) => {
    for (const k of USER_KINDS) {
      for (const ss of SS_KINDS) {
        await t.step(`${k.name}, ${ss}`, async () => {
          const shareSeq = w.areas[k.area].share.shareSeq;
          const got = await outcome(() =>
            authorizeShareRead(kv, w.caller(k.name), shareSeq, ssValue(w, ss))
          );
          assert.equal(got, expectedShareRead(k, ss));
        });
      }
    }
    const binned = w.binnedShare.shareSeq;
    await t.step("a share whose resource is in the trash: the owner still reads it", async () => {
      assert.equal(await outcome(() => authorizeShareRead(kv, w.owner, binned, null)), ALLOWED);
    });
    await t.step("a share whose resource is in the trash: hidden from recipients", async () => {
      const recipient = w.caller("recipient cv");
      const got = await outcome(() => authorizeShareRead(kv, recipient, binned, w.owner.userSeq));
      assert.equal(got, "SHARE_006 (shareSeq)");
    });
    await t.step("a share seq that does not exist", async () => {
      assert.equal(
        await outcome(() => authorizeShareRead(kv, w.owner, 999_999, null)),
        "SHARE_006 (shareSeq)",
      );
    });
    await t.step("the view carries the caller's grant through the share", async () => {
      const recipient = w.caller("recipient cd (other tenant)");
      const shareSeq = w.areas["specific users"].share.shareSeq;
      const view = await authorizeShareRead(kv, recipient, shareSeq, w.owner.userSeq);
      assert.equal(view.isOwner, false);
      assert.deepEqual(view.grant, { cv: true, ce: false, cd: true, cu: false, cs: false });
    });
  });

  await t.step("authorizeShareChange (owner only, ss plays no part)", async (t) => {
    for (const k of USER_KINDS) {
      await t.step(k.name, async () => {
        const shareSeq = w.areas[k.area].share.shareSeq;
        const got = await outcome(() =>
          authorizeShareChange(kv, w.caller(k.name), shareSeq, "Only the owner may do this")
        );
        assert.equal(got, expectedShareChange(k));
      });
    }
    await t.step("the refusal names the change", async () => {
      const recipient = w.caller("recipient cs");
      const shareSeq = w.areas["specific users"].share.shareSeq;
      await assert.rejects(
        authorizeShareChange(kv, recipient, shareSeq, "Only the owner may remove a share"),
        (err) => err instanceof DriveError && err.message === "Only the owner may remove a share",
      );
    });
  });

  await t.step("authorizeLinkOpen", async (t) => {
    const org = w.areas["org link"];
    const pub = w.areas["public link"];
    const locked = w.lockedShare;
    const lockedPath = (await loadPath(kv, locked.rs))!.path;
    const cases = [
      ["ORG_LINK, owner", "owner", org.share, org, ALLOWED],
      ["ORG_LINK, member", "ORG_LINK member (same tenant)", org.share, org, ALLOWED],
      [
        "ORG_LINK, outsider",
        "ORG_LINK outsider (other tenant)",
        org.share,
        org,
        "PERMISSION_002 (token)",
      ],
      // Presenting a PUBLIC_LINK's token is what reaches an account: anyone may open it.
      [
        "PUBLIC_LINK, stranger",
        "PUBLIC_LINK stranger (never presented it)",
        pub.share,
        pub,
        ALLOWED,
      ],
      ["PUBLIC_LINK, other tenant", "other-tenant user", pub.share, pub, ALLOWED],
      ["password PUBLIC_LINK, owner", "owner", locked, null, ALLOWED],
      [
        "password PUBLIC_LINK, stranger",
        "PUBLIC_LINK stranger (never presented it)",
        locked,
        null,
        "PERMISSION_002 (token)",
      ],
    ] as const;
    for (const [name, kind, share, area, expected] of cases) {
      await t.step(name, async () => {
        const path = area ? (await loadPath(kv, area.top.rs))!.path : lockedPath;
        const caller = w.caller(kind);
        assert.equal(await outcome(() => authorizeLinkOpen(kv, caller, share, path)), expected);
      });
    }
  });
});
