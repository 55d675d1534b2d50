/**
 * The authorization decisions of kv/sharing/authorize.ts on resources, called directly on an
 * in-memory KV (the world and rule tables: authorize_fixtures.ts; pins, shares and links:
 * authorize_shares_test.ts). Each decision is tried with every kind of `ss` (omitted, the owner,
 * another user, a user seq that does not exist) and every action; every case is its own step,
 * named after the case.
 */
import assert from "node:assert/strict";
import { domainTest } from "../testing.ts";
import { loadPath } from "../tree/resources.ts";
import {
  accessIfVisible,
  authorizeFolderTarget,
  authorizeResourceAccess,
  visibleAncestors,
} from "./authorize.ts";
import {
  ACTIONS,
  ALLOWED,
  buildWorld,
  expectedAccess,
  expectedRootTarget,
  KINDS,
  outcome,
  ssKindsOf,
  ssValue,
} from "./authorize_fixtures.ts";

domainTest("authorization decisions on resources, by caller kind, ss and action", async (d, t) => {
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
        assert.equal(access.isOwner, k.owner === true);
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
});
