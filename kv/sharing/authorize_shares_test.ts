/**
 * The authorization decisions of kv/sharing/authorize.ts on pins, shares and share links, called
 * directly on an in-memory KV (the world and rule tables: authorize_fixtures.ts; resources:
 * authorize_test.ts). Every case is its own step, named after the case.
 */
import assert from "node:assert/strict";
import { DriveError } from "../errors.ts";
import { domainTest } from "../testing.ts";
import { loadPath } from "../tree/resources.ts";
import {
  authorizeLinkOpen,
  authorizePin,
  authorizeShareChange,
  authorizeShareRead,
} from "./authorize.ts";
import {
  ALLOWED,
  buildWorld,
  expectedPin,
  expectedShareChange,
  expectedShareRead,
  outcome,
  SS_KINDS,
  ssValue,
  USER_KINDS,
} from "./authorize_fixtures.ts";

domainTest(
  "authorization decisions on pins, shares and links, by caller kind and ss",
  async (d, t) => {
    const { kv } = d;
    const w = await buildWorld(d);

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
  },
);
