/**
 * The authorization matrix: every mounted file and folder endpoint, called by the owner, a
 * recipient holding each single permission, a same-tenant and an other-tenant non-recipient,
 * the owner's read-only key, and signed-in sessions (cookie, no key) of the owner and of a
 * recipient, which must get exactly the answers of their users' read-write keys. Expected outcomes follow from the permissions each endpoint
 * needs, so the table below is the whole rule set.
 */
import assert from "node:assert/strict";
import { type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser, shareFlags } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { sessionOf } from "../helpers/browser_session.ts";
import type { JsonResponse } from "../helpers/http.ts";

type Perm = "view" | "edit" | "download" | "upload" | "share";

interface Ctx {
  server: TestServer;
  owner: ApiUser;
  shared: number;
  shareSeq: number;
  n: () => number;
}

interface Case {
  name: string;
  needs: Perm[];
  write: boolean;
  /** Error when the caller can see the resource but lacks a permission. */
  lacking?: string;
  /** Error when the caller cannot see the resource at all. */
  hidden?: string;
  call: (actor: ApiUser, ss: number, ctx: Ctx) => Promise<JsonResponse>;
}

async function fileIn(ctx: Ctx): Promise<number> {
  const res = await ctx.owner.upload(`f${ctx.n()}.txt`, "content", { pfs: ctx.shared });
  assert.equal(res.status, 201);
  return res.body.data.resourceSeq;
}
const folderIn = (ctx: Ctx) => ctx.owner.newFolder(`d${ctx.n()}`, ctx.shared);

async function raw(actor: ApiUser, path: string, init: RequestInit = {}): Promise<JsonResponse> {
  const res = await actor.fetch(path, init);
  const type = res.headers.get("content-type") ?? "";
  const body = type.includes("json") ? await res.json() : (await res.body?.cancel(), null);
  return { status: res.status, body, headers: res.headers };
}

/**
 * A download token, rename, move (inside the shared folder) and delete: the same rules for files
 * and folders.
 */
function itemCases(kind: "files" | "folders"): Case[] {
  const itemIn = kind === "files" ? fileIn : folderIn;
  const newName = (n: number) => kind === "files" ? `r${n}.txt` : `x${n}`;
  return [
    {
      name: `GET /${kind}/{rs}/download-token`,
      needs: ["download"],
      write: false,
      call: async (a, ss, ctx) =>
        a.call("GET", `/${kind}/${await itemIn(ctx)}/download-token?ss=${ss}`),
    },
    {
      name: `PATCH /${kind}/{rs}/rename`,
      needs: ["edit"],
      write: true,
      call: async (a, ss, ctx) =>
        a.call("PATCH", `/${kind}/${await itemIn(ctx)}/rename`, { rn: newName(ctx.n()), ss }),
    },
    {
      name: `POST /${kind}/{rs}/move (inside the shared folder)`,
      needs: ["edit", "upload"],
      write: true,
      call: async (a, ss, ctx) => {
        const [item, dest] = [await itemIn(ctx), await folderIn(ctx)];
        return a.call("POST", `/${kind}/${item}/move`, { pfs: dest, ts: ss, ss });
      },
    },
    {
      name: `PATCH /${kind}/{rs}/delete`,
      needs: ["edit"],
      write: true,
      call: async (a, ss, ctx) => a.call("PATCH", `/${kind}/${await itemIn(ctx)}/delete?ss=${ss}`),
    },
  ];
}

const CASES: Case[] = [
  {
    name: "GET /resources/{rs}",
    needs: ["view"],
    write: false,
    call: async (a, ss, ctx) => a.call("GET", `/resources/${await fileIn(ctx)}?ss=${ss}`),
  },
  {
    name: "GET /resources?pfs",
    needs: ["view"],
    write: false,
    call: (a, ss, ctx) => a.call("GET", `/resources?pfs=${ctx.shared}&ss=${ss}&ps=10`),
  },
  {
    name: "GET /files/{rs}/download",
    needs: ["download"],
    write: false,
    call: async (a, ss, ctx) => raw(a, `/files/${await fileIn(ctx)}/download?ss=${ss}`),
  },
  {
    name: "GET /files/{rs}/view",
    needs: ["view"],
    write: false,
    call: async (a, ss, ctx) => raw(a, `/files/${await fileIn(ctx)}/view?ss=${ss}`),
  },
  {
    name: "GET /files/{rs}/versions",
    needs: ["view"],
    write: false,
    call: async (a, ss, ctx) => a.call("GET", `/files/${await fileIn(ctx)}/versions?ss=${ss}`),
  },
  {
    name: "POST /files (into the shared folder)",
    needs: ["upload"],
    write: true,
    call: (a, ss, ctx) => a.upload(`up${ctx.n()}.txt`, "x", { pfs: ctx.shared, ss }),
  },
  {
    name: "POST /files st=overwrite (replace a shared file's content)",
    needs: ["edit"],
    write: true,
    call: async (a, ss, ctx) => {
      const rs = await fileIn(ctx);
      return a.upload("new.txt", "y", { pfs: ctx.shared, ss, st: "overwrite", rs });
    },
  },
  {
    name: "POST /folders (into the shared folder)",
    needs: ["upload"],
    write: true,
    call: (a, ss, ctx) => a.call("POST", "/folders", { fn: `n${ctx.n()}`, pfs: ctx.shared, ss }),
  },
  {
    name: "POST /documents (into the shared folder)",
    needs: ["upload"],
    write: true,
    lacking: "PERMISSION_002",
    call: (a, ss, ctx) => a.call("POST", "/documents", { tt: "note", pfs: ctx.shared, ss }),
  },
  ...itemCases("files"),
  {
    name: "POST /files/{rs}/copy (to the caller's drive)",
    needs: ["download"],
    write: true,
    call: async (a, ss, ctx) => a.call("POST", `/files/${await fileIn(ctx)}/copy`, { ss }),
  },
  ...itemCases("folders"),
  {
    name: "POST /pinned-folders",
    needs: ["view"],
    write: false,
    hidden: "PERMISSION_001",
    call: async (a, ss, ctx) => {
      const rs = await folderIn(ctx);
      const res = await a.call("POST", "/pinned-folders", { rs, ss });
      // Free the slot again so the next case can pin.
      if (res.status === 201) {
        await a.call("DELETE", `/pinned-folders/${res.body.data.pinnedFolderSeq}`);
      }
      return res;
    },
  },
  {
    name: "GET /shares/{shareSeq}",
    needs: ["view"],
    write: false,
    hidden: "SHARE_006",
    call: (a, ss, ctx) => a.call("GET", `/shares/${ctx.shareSeq}?ss=${ss}`),
  },
  {
    name: "GET /shares/{rs}/share-types",
    needs: ["view"],
    write: false,
    call: async (a, ss, ctx) => a.call("GET", `/shares/${await fileIn(ctx)}/share-types?ss=${ss}`),
  },
  {
    name: "PUT /shares/{shareSeq}/targets",
    needs: ["share"],
    write: true,
    lacking: "SHARE_010",
    hidden: "SHARE_006",
    call: async (a, ss, ctx) => {
      const current = await ctx.owner.call("GET", `/shares/${ctx.shareSeq}`);
      // Re-send the current list unchanged (a holder keeps everyone, so the matrix stays intact).
      const ts = current.body.data.targets.map((
        t: { userSeq: number; permissions: Record<string, boolean> },
      ) => ({
        us: t.userSeq,
        cv: t.permissions.canView,
        ce: t.permissions.canEdit,
        cd: t.permissions.canDownload,
        cu: t.permissions.canUpload,
        cs: t.permissions.canShare,
      }));
      return a.call("PUT", `/shares/${ctx.shareSeq}/targets`, { ts, ss });
    },
  },
];

Deno.test("authorization matrix over every mounted file and folder endpoint", async () => {
  await withServer(async (server) => {
    const owner = await newApiUser(server, "owner");
    const readOnlyKey = await server.admin.createKey(owner.userSeq, ["api:read"]);
    const ownerRead = new (owner.constructor as typeof ApiUser)(
      server.url,
      owner.userSeq,
      owner.tenantId,
      readOnlyKey,
      owner.accountId,
    );
    const other = await server.admin.createTenant("recipients-org");
    const r: Record<Perm, ApiUser> = {
      view: await newApiUser(server, "r-view", { tenantId: other.id }),
      edit: await newApiUser(server, "r-edit", { tenantId: other.id }),
      download: await newApiUser(server, "r-download", { tenantId: other.id }),
      upload: await newApiUser(server, "r-upload", { tenantId: other.id }),
      share: await newApiUser(server, "r-share", { tenantId: other.id }),
    };
    const sameTenant = await newApiUser(server, "colleague", { tenantId: owner.tenantId });
    const otherTenant = await newApiUser(server, "stranger");
    const shared = await owner.newFolder("Shared");
    const flagOf: Record<Perm, ("ce" | "cd" | "cu" | "cs")[]> = {
      view: [],
      edit: ["ce"],
      download: ["cd"],
      upload: ["cu"],
      share: ["cs"],
    };
    const share = await owner.newShare({
      rs: shared,
      st: "SPECIFIC_USERS",
      ts: (Object.keys(r) as Perm[]).map((p) => ({
        us: r[p].userSeq,
        ...shareFlags(...flagOf[p]),
      })),
    });
    let counter = 0;
    const ctx: Ctx = { server, owner, shared, shareSeq: share.shareSeq, n: () => ++counter };

    type Actor = {
      name: string;
      user: ApiUser;
      perms: Perm[] | "owner" | "none";
      readOnly?: boolean;
    };
    const actors: Actor[] = [
      { name: "owner", user: owner, perms: "owner" },
      { name: "owner read-only key", user: ownerRead, perms: "owner", readOnly: true },
      ...(Object.keys(r) as Perm[]).map((p) => ({
        name: `recipient with ${p}`,
        user: r[p],
        perms: p === "view" ? ["view"] as Perm[] : ["view", p] as Perm[],
      })),
      { name: "same-tenant non-recipient", user: sameTenant, perms: "none" },
      { name: "other-tenant non-recipient", user: otherTenant, perms: "none" },
      { name: "owner's session", user: await sessionOf(server, owner), perms: "owner" },
      {
        name: "session of the recipient with edit",
        user: await sessionOf(server, r.edit),
        perms: ["view", "edit"],
      },
      {
        name: "same-tenant non-recipient's session",
        user: await sessionOf(server, sameTenant),
        perms: "none",
      },
    ];

    const failures: string[] = [];
    for (const c of CASES) {
      for (const actor of actors) {
        let expect: { ok: true } | { ok: false; status: number; code: string };
        if (actor.perms === "owner") {
          expect = actor.readOnly && c.write
            ? { ok: false, status: 403, code: "AUTH_003" }
            : { ok: true };
        } else if (actor.perms === "none") {
          const code = c.hidden ?? "PERMISSION_002";
          expect = { ok: false, status: code === "SHARE_006" ? 404 : 403, code };
        } else {
          const has = actor.perms;
          expect = c.needs.every((p) => has.includes(p))
            ? { ok: true }
            : { ok: false, status: 403, code: c.lacking ?? "PERMISSION_004" };
        }
        const ss = owner.userSeq;
        const res = await c.call(actor.user, ss, ctx);
        const got = `${res.status} ${res.body?.errorCode ?? ""}`;
        const okNow = res.status >= 200 && res.status < 300;
        if (
          expect.ok ? !okNow : res.status !== expect.status || res.body?.errorCode !== expect.code
        ) {
          failures.push(
            `${c.name} as ${actor.name}: expected ${JSON.stringify(expect)}, got ${got}`,
          );
        }
      }
    }
    assert.deepEqual(failures, []);

    // ss must name the owner: a recipient passing someone else's seq is refused.
    const wrongSs = await r.view.call("GET", `/resources/${shared}?ss=${otherTenant.userSeq}`);
    assert.equal(wrongSs.body.errorCode, "PERMISSION_002");
  });
});

Deno.test("link shares in the matrix: ORG_LINK reaches the tenant, PUBLIC_LINK whoever presented its token; trash hides all", async () => {
  await withServer(async (server) => {
    const [owner, colleague] = await newTeam(server, "owner", "colleague");
    const stranger = await newApiUser(server, "stranger");
    const org = await owner.newFolder("Org");
    const pub = await owner.newFolder("Pub");
    await owner.newShare({ rs: org, st: "ORG_LINK", ...shareFlags("cu") });
    const link = await owner.newShare({ rs: pub, st: "PUBLIC_LINK", ...shareFlags("cd") });
    const ss = owner.userSeq;
    const mk = (u: ApiUser, pfs: number) =>
      u.call("POST", "/folders", { fn: `x${u.userSeq}`, pfs, ss });
    assert.equal((await mk(colleague, org)).status, 201);
    assert.equal((await mk(stranger, org)).body.errorCode, "PERMISSION_002");
    // Knowing (or guessing) the resource seq is not having the link.
    const guessed = await stranger.call("GET", `/resources?pfs=${pub}&ss=${ss}&ps=5`);
    assert.equal(guessed.body.errorCode, "PERMISSION_002");
    const token = new URL(link.linkUrl).pathname.split("/").pop();
    assert.equal((await stranger.call("GET", `/shares/link/${token}`)).status, 200);
    assert.equal((await mk(stranger, pub)).body.errorCode, "PERMISSION_004");
    assert.equal((await stranger.call("GET", `/resources?pfs=${pub}&ss=${ss}&ps=5`)).status, 200);
    // Anything on the path in the trash: the subtree is gone for everyone but the trash.
    const inner = await owner.newFolder("Inner", org);
    assert.equal((await colleague.call("GET", `/resources/${inner}?ss=${ss}`)).status, 200);
    await owner.call("PATCH", `/folders/${org}/delete`);
    const hidden = await colleague.call("GET", `/resources/${inner}?ss=${ss}`);
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.errorCode, "RESOURCE_002");
  });
});
