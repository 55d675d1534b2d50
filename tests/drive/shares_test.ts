import assert from "node:assert/strict";
import { drainNotifications, peekNotifications } from "../../kv/sharing/notifications.ts";
import { shareKey, tenantKey } from "../../kv/keys.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { newApiUser, shareFlags, uploadAs } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";

async function setup(server: TestServer) {
  const [alice, carol] = await newTeam(server, "alice", "carol");
  const bob = await newApiUser(server, "bob");
  const eve = await newApiUser(server, "eve");
  return { alice, bob, carol, eve };
}

Deno.test("share types: defaults, per-tenant policy through the admin API, never re-share on links", async () => {
  await withServer(async (server) => {
    const { alice, bob } = await setup(server);
    const f = await alice.newFolder("Docs");
    const types = await alice.call("GET", `/shares/${f}/share-types`);
    assert.equal(types.status, 200);
    const d = types.body.data;
    assert.deepEqual([d.editable, d.allowSpecificUsers, d.allowOrgLink, d.allowPublic], [
      true,
      true,
      true,
      true,
    ]);
    const byCode = Object.fromEntries(
      d.shareTypes.map((t: { code: string; allowedPermissions: string[] }) => [
        t.code,
        t.allowedPermissions,
      ]),
    );
    assert.ok(byCode.SPECIFIC_USERS.includes("SHARE"));
    assert.ok(!byCode.ORG_LINK.includes("SHARE"));
    assert.ok(!byCode.PUBLIC_LINK.includes("SHARE"));
    // Someone who cannot see the resource learns nothing.
    assert.equal(
      (await bob.call("GET", `/shares/${f}/share-types`)).body.errorCode,
      "PERMISSION_002",
    );

    // The administrator forbids PUBLIC_LINK and caps SPECIFIC_USERS at view + download; an
    // attempt to give links re-share is ignored.
    const patch = await server.admin.call("PATCH", `/tenants/${alice.tenantId}`, {
      sharePolicy: {
        PUBLIC_LINK: { allowed: false, maxPermissions: ["VIEW"] },
        SPECIFIC_USERS: { allowed: true, maxPermissions: ["VIEW", "DOWNLOAD"] },
        ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "SHARE", "EDIT"] },
      },
    });
    assert.equal(patch.status, 200);
    const after = (await alice.call("GET", `/shares/${f}/share-types`)).body.data;
    assert.equal(after.allowPublic, false);
    assert.deepEqual(after.shareTypes.map((t: { code: string }) => t.code), [
      "SPECIFIC_USERS",
      "ORG_LINK",
    ]);
    assert.deepEqual(after.shareTypes[1].allowedPermissions, ["VIEW", "EDIT"]);

    const pub = await alice.call("POST", "/shares", { rs: f, st: "PUBLIC_LINK", ...shareFlags() });
    assert.equal(pub.status, 403);
    assert.equal(pub.body.errorCode, "SHARE_002");
    const tooMuch = await alice.call("POST", "/shares", {
      rs: f,
      st: "SPECIFIC_USERS",
      ts: [{ us: bob.userSeq, ...shareFlags("ce") }],
    });
    assert.equal(tooMuch.status, 403);
    assert.equal(tooMuch.body.errorCode, "SHARE_003");
    const orgShare = await alice.call("POST", "/shares", {
      rs: f,
      st: "ORG_LINK",
      ...shareFlags("cs"),
    });
    assert.equal(orgShare.body.errorCode, "SHARE_003");
  });
});

/** The permission values the spec names for `allowedPermissions` (drive-external-api.md). */
const SPEC_PERMISSIONS = ["VIEW", "EDIT", "DOWNLOAD", "SHARE"];

function allowedByCode(data: { shareTypes: { code: string; allowedPermissions: string[] }[] }) {
  return Object.fromEntries(data.shareTypes.map((t) => [t.code, t.allowedPermissions]));
}

Deno.test("share types speak the spec's four permissions; EDIT governs cu (upload)", async () => {
  await withServer(async (server) => {
    const { alice, carol } = await setup(server);
    const f = await alice.newFolder("Inbox");
    const byCode = allowedByCode(
      (await alice.call("GET", `/shares/${f}/share-types`)).body.data,
    );
    assert.deepEqual(byCode, {
      SPECIFIC_USERS: ["VIEW", "EDIT", "DOWNLOAD", "SHARE"],
      ORG_LINK: ["VIEW", "EDIT", "DOWNLOAD"],
      PUBLIC_LINK: ["VIEW", "EDIT", "DOWNLOAD"],
    });
    const doc = await (await fetch(`${server.url}/api/external/v1/openapi.json`)).json();
    const entry = doc.components.schemas.ShareTypes.properties.shareTypes.items;
    assert.deepEqual(entry.properties.allowedPermissions.items.enum, SPEC_PERMISSIONS);

    // UPLOAD is no policy value any more: refused with a message that says what governs upload.
    const legacy = await server.admin.call("PATCH", `/tenants/${alice.tenantId}`, {
      sharePolicy: { ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "UPLOAD"] } },
    });
    assert.equal(legacy.status, 400, JSON.stringify(legacy.body));
    assert.match(legacy.body.message, /EDIT/);
    assert.match(legacy.body.field, /^sharePolicy\.ORG_LINK\.maxPermissions/);

    // EDIT in the policy lets a share grant cu, even with ce off.
    const patch = await server.admin.call("PATCH", `/tenants/${alice.tenantId}`, {
      sharePolicy: { ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "EDIT"] } },
    });
    assert.equal(patch.status, 200, JSON.stringify(patch.body));
    const types = (await alice.call("GET", `/shares/${f}/share-types`)).body.data;
    assert.deepEqual(allowedByCode(types).ORG_LINK, ["VIEW", "EDIT"]);
    const share = await alice.call("POST", "/shares", {
      rs: f,
      st: "ORG_LINK",
      ...shareFlags("cu"),
    });
    assert.equal(share.status, 201, JSON.stringify(share.body));
    const into = await carol.call("POST", "/folders", { fn: "drop", pfs: f, ss: alice.userSeq });
    assert.equal(into.status, 201, JSON.stringify(into.body));

    // Without EDIT nobody uploads: the existing share is capped at once, a new cu is refused.
    await server.admin.call("PATCH", `/tenants/${alice.tenantId}`, {
      sharePolicy: { ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "DOWNLOAD"] } },
    });
    const capped = await carol.call("POST", "/folders", { fn: "late", pfs: f, ss: alice.userSeq });
    assert.equal(capped.body.errorCode, "PERMISSION_004");
    const g = await alice.newFolder("Other");
    const refused = await alice.call("POST", "/shares", {
      rs: g,
      st: "ORG_LINK",
      ...shareFlags("cu"),
    });
    assert.equal(refused.body.errorCode, "SHARE_003");
    assert.match(refused.body.message, /EDIT \(cu\)/);
  });
});

Deno.test("a tenant policy stored with UPLOAD still loads: UPLOAD is dropped on read, EDIT decides", async () => {
  await withServer(async (server) => {
    const { alice, carol } = await setup(server);
    // A record as the service wrote it before the policy spoke the spec's four values.
    const stored = (await server.kv.get<Record<string, unknown>>(tenantKey(alice.tenantId))).value!;
    await server.kv.set(tenantKey(alice.tenantId), {
      ...stored,
      sharePolicy: {
        SPECIFIC_USERS: {
          allowed: true,
          maxPermissions: ["VIEW", "EDIT", "DOWNLOAD", "UPLOAD", "SHARE"],
        },
        ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "DOWNLOAD", "UPLOAD"] },
        PUBLIC_LINK: { allowed: true, maxPermissions: ["UPLOAD", "VIEW"] },
      },
    });
    const expected = {
      SPECIFIC_USERS: { allowed: true, maxPermissions: ["VIEW", "EDIT", "DOWNLOAD", "SHARE"] },
      ORG_LINK: { allowed: true, maxPermissions: ["VIEW", "DOWNLOAD"] },
      PUBLIC_LINK: { allowed: true, maxPermissions: ["VIEW"] },
    };
    const one = await server.admin.call("GET", `/tenants/${alice.tenantId}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.sharePolicy, expected);
    const all = await server.admin.call("GET", "/tenants");
    const listed = all.body.items.find((t: { id: number }) => t.id === alice.tenantId);
    assert.deepEqual(listed.sharePolicy, expected);

    const f = await alice.newFolder("Legacy");
    const byCode = allowedByCode((await alice.call("GET", `/shares/${f}/share-types`)).body.data);
    for (const perms of Object.values(byCode)) {
      for (const p of perms) assert.ok(SPEC_PERMISSIONS.includes(p), `${p} is not a spec value`);
    }
    // ORG_LINK had UPLOAD without EDIT: upload now follows EDIT, so it is not allowed.
    const org = await alice.call("POST", "/shares", { rs: f, st: "ORG_LINK", ...shareFlags("cu") });
    assert.equal(org.body.errorCode, "SHARE_003");
    const ok = await alice.call("POST", "/shares", { rs: f, st: "ORG_LINK", ...shareFlags("cd") });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    assert.equal(
      (await carol.call("POST", "/folders", { fn: "x", pfs: f, ss: alice.userSeq })).body
        .errorCode,
      "PERMISSION_004",
    );

    // The next write of the tenant stores the migrated policy.
    const renamed = await server.admin.call("PATCH", `/tenants/${alice.tenantId}`, { name: "New" });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.deepEqual(renamed.body.sharePolicy, expected);
    const raw = (await server.kv.get<{ sharePolicy: unknown }>(tenantKey(alice.tenantId))).value!;
    assert.deepEqual(raw.sharePolicy, expected);
  });
});

Deno.test("create share: owner only, flag rules, recipients in other tenants, duplicates", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol, eve } = await setup(server);
    const f = await alice.newFolder("Project");
    const cases: [Record<string, unknown>, number, string][] = [
      [{ rs: f, st: "SPECIFIC_USERS", cv: false, cd: true }, 400, "PERMISSION_003"],
      [{ rs: f, st: "ORG_LINK", cv: true, ce: false }, 400, "SHARE_008"],
      [{ rs: f, st: "PUBLIC_LINK", ...shareFlags(), cv: false }, 400, "SHARE_008"],
      [{ rs: f, st: "PUBLIC_LINK", ...shareFlags("cs") }, 403, "SHARE_003"],
      [
        { rs: f, st: "ORG_LINK", ...shareFlags(), ts: [{ us: bob.userSeq, ...shareFlags() }] },
        400,
        "SHARE_009",
      ],
      [
        { rs: f, st: "SPECIFIC_USERS", ts: [{ us: alice.userSeq, ...shareFlags() }] },
        400,
        "SHARE_009",
      ],
      [
        {
          rs: f,
          st: "SPECIFIC_USERS",
          ts: [{ us: bob.userSeq, ...shareFlags() }, { us: bob.userSeq, ...shareFlags() }],
        },
        400,
        "SHARE_009",
      ],
      [{ rs: f, st: "SPECIFIC_USERS", ts: [{ us: 9999, ...shareFlags() }] }, 404, "USER_001"],
      [
        { rs: f, st: "SPECIFIC_USERS", ts: [{ us: bob.userSeq, ...shareFlags(), cv: false }] },
        400,
        "PERMISSION_003",
      ],
      [{ rs: f, st: "PUBLIC_LINK", ...shareFlags(), password: "pw" }, 400, "REQUEST_001"],
      [{ rs: f, st: "SPECIFIC_USERS", password: "secret-pw" }, 400, "REQUEST_001"],
      [{ rs: f, st: "SPECIFIC_USERS", expireDate: "2001-01-01" }, 400, "REQUEST_001"],
      [{ rs: 424242, st: "SPECIFIC_USERS" }, 404, "RESOURCE_002"],
      [{ rs: f, st: "NOPE" }, 400, "REQUEST_001"],
    ];
    for (const [body, status, code] of cases) {
      const res = await alice.call("POST", "/shares", body);
      assert.equal(res.status, status, JSON.stringify(body));
      assert.equal(res.body.errorCode, code, JSON.stringify(body));
    }
    // Nothing was stored by the failures.
    assert.equal(
      (await alice.call("GET", `/shares/${f}/share-types`)).body.data.currentShareSeq,
      null,
    );

    const reader = await newApiUser(server, "reader", {
      tenantId: alice.tenantId,
      scopes: ["api:read"],
    });
    const rf = await uploadAs(server, reader, "r.txt", "x");
    assert.equal(
      (await reader.call("POST", "/shares", { rs: rf, st: "SPECIFIC_USERS" })).body.errorCode,
      "AUTH_003",
    );

    const share = await alice.newShare({
      rs: f,
      st: "SPECIFIC_USERS",
      cd: false,
      ts: [{ us: bob.userSeq, ...shareFlags("cd", "cs") }, { us: carol.userSeq, ...shareFlags() }],
    });
    assert.equal(share.shareType, "SPECIFIC_USERS");
    assert.equal(share.permissions.canDownload, false);
    const bobT = share.targets.find((t: { userSeq: number }) => t.userSeq === bob.userSeq);
    // The share-level ceiling (cd false) caps what Bob was given; Bob is in another tenant.
    assert.equal(bobT.permissions.canDownload, false);
    assert.equal(bobT.permissions.canShare, true);
    assert.equal(bobT.tenantId, bob.tenantId);
    assert.notEqual(bob.tenantId, alice.tenantId);

    const again = await alice.call("POST", "/shares", { rs: f, st: "SPECIFIC_USERS" });
    assert.equal(again.status, 409);
    assert.equal(again.body.errorCode, "SHARE_005");
    // A recipient (even a re-share holder) cannot create a share; a stranger cannot see it.
    const sub = await alice.newFolder("Sub", f);
    const byBob = await bob.call("POST", "/shares", { rs: sub, st: "SPECIFIC_USERS" });
    assert.equal(byBob.status, 403);
    assert.equal(byBob.body.errorCode, "SHARE_010");
    assert.equal(
      (await eve.call("POST", "/shares", { rs: sub, st: "SPECIFIC_USERS" })).body.errorCode,
      "PERMISSION_002",
    );
  });
});

Deno.test("read share: owner, recipients with ss, nobody else; password never returned", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol, eve } = await setup(server);
    const f = await alice.newFolder("Read");
    const s = await alice.shareWith(f, bob);
    const own = await alice.call("GET", `/shares/${s.shareSeq}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.data.targets.length, 1);
    assert.equal(own.body.data.modifiable, true);
    const withSs = await bob.call("GET", `/shares/${s.shareSeq}?ss=${alice.userSeq}`);
    assert.equal(withSs.status, 200);
    assert.equal((await bob.call("GET", `/shares/${s.shareSeq}`)).body.errorCode, "PERMISSION_002");
    assert.equal(
      (await bob.call("GET", `/shares/${s.shareSeq}?ss=${eve.userSeq}`)).body.errorCode,
      "PERMISSION_002",
    );
    for (const who of [carol, eve]) {
      const res = await who.call("GET", `/shares/${s.shareSeq}?ss=${alice.userSeq}`);
      assert.equal(res.status, 404);
      assert.equal(res.body.errorCode, "SHARE_006");
    }
    assert.equal((await alice.call("GET", "/shares/999")).body.errorCode, "SHARE_006");

    const g = await alice.newFolder("Link");
    const link = await alice.newShare({
      rs: g,
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
      password: "open sesame",
      expireDate: "2099-01-01",
    });
    assert.equal(link.password, null);
    assert.equal(link.isPasswordEnabled, true);
    assert.equal(link.expireDate, "2099-01-01T23:59:59.999Z");
    const token = link.linkUrl.slice(`${server.config.publicUrl}/s/`.length);
    assert.ok(link.linkUrl.startsWith(`${server.config.publicUrl}/s/`));
    // 32 random bytes, base64url: at least 128 bits.
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const read = (await alice.call("GET", `/shares/${link.shareSeq}`)).body.data;
    assert.equal(read.password, null);
    assert.equal(read.linkUrl, link.linkUrl);
    const stored = (await server.kv.get<Record<string, unknown>>(shareKey(link.shareSeq))).value!;
    assert.ok(!JSON.stringify(stored).includes("open sesame"));
    assert.match(String(stored.passwordHash), /^scrypt\$/);
  });
});

Deno.test("change share: owner only, access follows at once, type change clears recipients", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol } = await setup(server);
    const f = await alice.newFolder("Team");
    const s = await alice.shareWith(f, bob, "cu", "cs");
    const up1 = await bob.call("POST", "/folders", { fn: "one", pfs: f, ss: alice.userSeq });
    assert.equal(up1.status, 201);

    const byBob = await bob.call("PATCH", `/shares/${s.shareSeq}`, { st: "SPECIFIC_USERS" });
    assert.equal(byBob.status, 403);
    assert.equal(byBob.body.errorCode, "SHARE_010");

    const noUpload = await alice.call("PATCH", `/shares/${s.shareSeq}`, {
      st: "SPECIFIC_USERS",
      ...shareFlags(),
    });
    assert.equal(noUpload.status, 200);
    assert.equal(noUpload.body.data.targets[0].permissions.canUpload, false);
    const up2 = await bob.call("POST", "/folders", { fn: "two", pfs: f, ss: alice.userSeq });
    assert.equal(up2.status, 403);
    assert.equal(up2.body.errorCode, "PERMISSION_004");

    const cvOff = await alice.call("PATCH", `/shares/${s.shareSeq}`, {
      st: "SPECIFIC_USERS",
      cv: false,
      cu: true,
    });
    assert.equal(cvOff.body.errorCode, "PERMISSION_003");
    const tsOnLink = await alice.call("PATCH", `/shares/${s.shareSeq}`, {
      st: "ORG_LINK",
      ...shareFlags(),
      ts: [{ us: bob.userSeq, ...shareFlags() }],
    });
    assert.equal(tsOnLink.body.errorCode, "SHARE_009");

    // Replace recipients through PATCH: Bob out, Carol in.
    const swap = await alice.call("PATCH", `/shares/${s.shareSeq}`, {
      st: "SPECIFIC_USERS",
      ts: [{ us: carol.userSeq, ...shareFlags() }],
    });
    assert.equal(swap.status, 200);
    assert.equal((await bob.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 403);
    assert.equal((await carol.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 200);

    // To ORG_LINK: recipients are dropped, a link appears, Carol (same tenant) still sees it
    // through the organization, Bob (other tenant) does not.
    const org = await alice.call("PATCH", `/shares/${s.shareSeq}`, {
      st: "ORG_LINK",
      ...shareFlags("cd"),
    });
    assert.equal(org.status, 200);
    assert.deepEqual(org.body.data.targets, []);
    assert.ok(org.body.data.linkUrl);
    assert.equal((await carol.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 200);
    assert.equal((await bob.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 403);

    // Back to SPECIFIC_USERS: the link stops resolving.
    const token = org.body.data.linkUrl.split("/s/")[1];
    await alice.call("PATCH", `/shares/${s.shareSeq}`, { st: "SPECIFIC_USERS" });
    assert.equal((await carol.call("GET", `/shares/link/${token}`)).body.errorCode, "SHARE_007");
    assert.equal((await carol.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 403);
  });
});

Deno.test("set targets: owner or re-share holder; omitted recipients lose access; holders cannot grant more", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol, eve } = await setup(server);
    const f = await alice.newFolder("Reshare");
    const s = await alice.newShare({
      rs: f,
      st: "SPECIFIC_USERS",
      ts: [{ us: bob.userSeq, ...shareFlags("cs") }, { us: carol.userSeq, ...shareFlags("ce") }],
    });
    // Carol cannot re-share.
    const byCarol = await carol.call("PUT", `/shares/${s.shareSeq}/targets`, {
      ts: [],
      ss: alice.userSeq,
    });
    assert.equal(byCarol.status, 403);
    assert.equal(byCarol.body.errorCode, "SHARE_010");
    // Bob can: he keeps himself, drops Carol, adds Eve asking for edit he does not have.
    const byBob = await bob.call("PUT", `/shares/${s.shareSeq}/targets`, {
      ss: alice.userSeq,
      ts: [{ us: bob.userSeq, ...shareFlags("cs") }, { us: eve.userSeq, ...shareFlags("ce") }],
    });
    assert.equal(byBob.status, 200, JSON.stringify(byBob.body));
    const eveT = byBob.body.data.targets.find((t: { userSeq: number }) =>
      t.userSeq === eve.userSeq
    );
    assert.equal(eveT.permissions.canEdit, false);
    assert.equal(eveT.sharedBySeq, bob.userSeq);
    assert.equal((await carol.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 403);
    assert.equal((await eve.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 200);
    const eveEdit = await eve.call("PATCH", `/folders/${f}/rename`, {
      rn: "x",
      ss: alice.userSeq,
    });
    assert.equal(eveEdit.body.errorCode, "PERMISSION_004");

    // The owner empties the list: everyone loses access.
    const empty = await alice.call("PUT", `/shares/${s.shareSeq}/targets`, {});
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data.targets, []);
    for (const u of [bob, eve]) {
      assert.equal((await u.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 403);
    }
    // Links have no recipients.
    const g = await alice.newFolder("Org");
    const org = await alice.newShare({ rs: g, st: "ORG_LINK", ...shareFlags() });
    const onLink = await alice.call("PUT", `/shares/${org.shareSeq}/targets`, {
      ts: [{ us: bob.userSeq, ...shareFlags() }],
    });
    assert.equal(onLink.body.errorCode, "SHARE_009");
  });
});

Deno.test("delete share: everyone loses access, the link stops resolving, owner only", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol } = await setup(server);
    const f = await alice.newFolder("Gone");
    const s = await alice.shareWith(f, bob, "cs");
    assert.equal((await bob.call("DELETE", `/shares/${s.shareSeq}`)).body.errorCode, "SHARE_010");
    const del = await alice.call("DELETE", `/shares/${s.shareSeq}`);
    assert.equal(del.status, 200);
    assert.equal(del.body.data.shareSeq, s.shareSeq);
    assert.equal((await bob.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 403);
    assert.deepEqual((await bob.call("GET", "/shared?ps=10")).body.data.items, []);
    assert.equal((await alice.call("DELETE", `/shares/${s.shareSeq}`)).body.errorCode, "SHARE_006");
    // The resource is untouched.
    assert.equal((await alice.call("GET", `/resources/${f}`)).status, 200);

    const g = await alice.newFolder("OrgGone");
    const org = await alice.newShare({ rs: g, st: "ORG_LINK", ...shareFlags() });
    const token = org.linkUrl.split("/s/")[1];
    assert.equal((await carol.call("GET", `/shares/link/${token}`)).status, 200);
    await alice.call("DELETE", `/shares/${org.shareSeq}`);
    const after = await carol.call("GET", `/shares/link/${token}`);
    assert.equal(after.status, 404);
    assert.equal(after.body.errorCode, "SHARE_007");
    assert.deepEqual((await carol.call("GET", "/shared?ps=10")).body.data.items, []);
  });
});

Deno.test("one share type per hierarchy: checked up and down, also after moving a shared folder", async () => {
  await withServer(async (server) => {
    const { alice, bob } = await setup(server);
    const top = await alice.newFolder("Top");
    const mid = await alice.newFolder("Mid", top);
    const leaf = await alice.newFolder("Leaf", mid);
    await alice.newShare({ rs: mid, st: "ORG_LINK", ...shareFlags() });
    // Down: a descendant cannot use another type; up: neither can an ancestor.
    for (const rs of [leaf, top]) {
      const res = await alice.call("POST", "/shares", {
        rs,
        st: "SPECIFIC_USERS",
        ts: [{ us: bob.userSeq, ...shareFlags() }],
      });
      assert.equal(res.status, 409, `rs ${rs}`);
      assert.equal(res.body.errorCode, "SHARE_004");
    }
    const types = (await alice.call("GET", `/shares/${leaf}/share-types`)).body.data;
    assert.equal(types.editable, false);
    assert.equal(types.fixedType, "ORG_LINK");
    assert.deepEqual(types.shareTypes.map((t: { code: string }) => t.code), ["ORG_LINK"]);
    const same = await alice.newShare({ rs: leaf, st: "ORG_LINK", ...shareFlags("cd") });
    assert.equal(same.modifiable, false);
    const change = await alice.call("PATCH", `/shares/${same.shareSeq}`, {
      st: "PUBLIC_LINK",
      ...shareFlags(),
    });
    assert.equal(change.body.errorCode, "SHARE_004");

    // A folder shared with specific users is moved into a folder shared as PUBLIC_LINK.
    const pub = await alice.newFolder("Public");
    await alice.newShare({ rs: pub, st: "PUBLIC_LINK", ...shareFlags() });
    const team = await alice.newFolder("Team");
    const teamShare = await alice.shareWith(team, bob, "ce");
    assert.equal(teamShare.modifiable, true);
    const moved = await alice.call("POST", `/folders/${team}/move`, { pfs: pub });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    const read = (await alice.call("GET", `/shares/${teamShare.shareSeq}`)).body.data;
    assert.equal(read.modifiable, false);
    const t2 = (await alice.call("GET", `/shares/${team}/share-types`)).body.data;
    assert.equal(t2.fixedType, "PUBLIC_LINK");
    assert.equal(t2.editable, false);
    // Changing its recipients keeps the mismatch, so it is refused; adopting the ancestor's type
    // is allowed and makes the hierarchy consistent again.
    const stay = await alice.call("PATCH", `/shares/${teamShare.shareSeq}`, {
      st: "SPECIFIC_USERS",
      ts: [],
    });
    assert.equal(stay.status, 200, "same type: allowed (the type itself does not change)");
    const wrong = await alice.call("PATCH", `/shares/${teamShare.shareSeq}`, {
      st: "ORG_LINK",
      ...shareFlags(),
    });
    assert.equal(wrong.body.errorCode, "SHARE_004");
    const adopt = await alice.call("PATCH", `/shares/${teamShare.shareSeq}`, {
      st: "PUBLIC_LINK",
      ...shareFlags("cd"),
    });
    assert.equal(adopt.status, 200);
    // New shares inside follow the hierarchy's type too.
    const inner = await alice.newFolder("Inner", team);
    const innerShare = await alice.call("POST", "/shares", { rs: inner, st: "SPECIFIC_USERS" });
    assert.equal(innerShare.body.errorCode, "SHARE_004");
  });
});

Deno.test("se queues a notification for the recipient in the outbox", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol } = await setup(server);
    const f = await alice.newFolder("Notify");
    await alice.newShare({
      rs: f,
      st: "SPECIFIC_USERS",
      ts: [{ us: bob.userSeq, ...shareFlags(), se: true }, { us: carol.userSeq, ...shareFlags() }],
    });
    const out = await peekNotifications(server.kv);
    assert.equal(out.length, 1);
    assert.equal(out[0].to, "bob@example.com");
    assert.match(out[0].subject, /Notify/);
    // A mailer drains the outbox: a failed send keeps the message, a sent one is gone.
    const failing = drainNotifications(server.kv, () => Promise.reject(new Error("smtp down")));
    await assert.rejects(failing, /smtp down/);
    assert.equal((await peekNotifications(server.kv)).length, 1);
    const sent: string[] = [];
    assert.equal(
      await drainNotifications(server.kv, (n) => Promise.resolve(void sent.push(n.to))),
      1,
    );
    assert.deepEqual(sent, ["bob@example.com"]);
    assert.deepEqual(await peekNotifications(server.kv), []);
  });
});

Deno.test("recipients list and user search: tenant-aware, bounded", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol, eve } = await setup(server);
    for (let i = 0; i < 25; i++) {
      await server.admin.createUser(alice.tenantId, `member${i}`);
    }
    const f = await alice.newFolder("Search");
    const s = await alice.shareWith(f, bob, "cs");
    const users = await alice.call("GET", `/shares/${s.shareSeq}/users`);
    assert.equal(users.status, 200);
    assert.equal(users.body.data.items.length, 1);
    const entry = users.body.data.items[0];
    assert.equal(entry.userSeq, bob.userSeq);
    assert.equal(entry.status, "ACTIVE");
    assert.equal(entry.tenantId, bob.tenantId);
    assert.equal(entry.tenantName, "bob-org");
    assert.equal(
      (await bob.call("GET", `/shares/${s.shareSeq}/users?ss=${alice.userSeq}`)).status,
      200,
    );
    assert.equal(
      (await eve.call("GET", `/shares/${s.shareSeq}/users?ss=${alice.userSeq}`)).status,
      404,
    );

    // Partial matches only inside the caller's tenant, bounded.
    const many = await alice.call("GET", "/shares/users/search?sk=member");
    assert.equal(many.status, 200);
    assert.equal(many.body.data.items.length, 20);
    assert.ok(many.body.data.items.every((u: { sameTenant: boolean }) => u.sameTenant));
    const partialOther = await alice.call("GET", "/shares/users/search?sk=bo");
    assert.deepEqual(partialOther.body.data.items, []);
    // Another tenant's user by exact e-mail or account name.
    const exact = await alice.call("GET", "/shares/users/search?sk=eve%40example.com");
    assert.equal(exact.body.data.items[0].userSeq, eve.userSeq);
    assert.equal(exact.body.data.items[0].sameTenant, false);
    const byAccount = await alice.call("GET", `/shares/${s.shareSeq}/users/search?sk=BOB`);
    assert.equal(byAccount.body.data.items[0].isRecipient, true);
    const own = await alice.call("GET", "/shares/users/search?sk=carol");
    assert.equal(own.body.data.items[0].userSeq, carol.userSeq);
    assert.equal((await alice.call("GET", "/shares/users/search")).body.errorCode, "REQUEST_001");
  });
});

Deno.test("link lookup: key required, view of the key's account checked, unknown/revoked/expired tokens", async () => {
  await withServer(async (server) => {
    const { alice, bob, carol, eve } = await setup(server);
    const org = await alice.newShare({
      rs: await alice.newFolder("OrgDocs"),
      st: "ORG_LINK",
      ...shareFlags("cd"),
    });
    const orgToken = org.linkUrl.split("/s/")[1];
    const noKey = await fetch(`${server.url}/api/external/v1/shares/link/${orgToken}`);
    assert.equal(noKey.status, 401);
    await noKey.body?.cancel();
    const carolLook = await carol.call("GET", `/shares/link/${orgToken}`);
    assert.equal(carolLook.status, 200);
    assert.equal(carolLook.body.data.isPublicLink, false);
    assert.equal(carolLook.body.data.redirectUrl, org.linkUrl);
    assert.equal(carolLook.body.data.permissions.canDownload, true);
    assert.equal(
      (await bob.call("GET", `/shares/link/${orgToken}`)).body.errorCode,
      "PERMISSION_002",
    );

    const pub = await alice.newShare({
      rs: await alice.newFolder("PubDocs"),
      st: "PUBLIC_LINK",
      ...shareFlags(),
    });
    const pubToken = pub.linkUrl.split("/s/")[1];
    const eveLook = await eve.call("GET", `/shares/link/${pubToken}`);
    assert.equal(eveLook.status, 200);
    assert.equal(eveLook.body.data.isPublicLink, true);

    // A password-protected public link opens only through the public link page.
    const locked = await alice.newShare({
      rs: await alice.newFolder("Locked"),
      st: "PUBLIC_LINK",
      ...shareFlags(),
      password: "hunter22",
    });
    const lockedToken = locked.linkUrl.split("/s/")[1];
    assert.equal(
      (await eve.call("GET", `/shares/link/${lockedToken}`)).body.errorCode,
      "PERMISSION_002",
    );
    assert.equal((await alice.call("GET", `/shares/link/${lockedToken}`)).status, 200);

    for (const t of ["nope", "A".repeat(43)]) {
      const r = await carol.call("GET", `/shares/link/${t}`);
      assert.equal(r.status, 404);
      assert.equal(r.body.errorCode, "SHARE_007");
    }
    // Expiry: move the stored expiry into the past (as time passing would).
    const entry = await server.kv.get<{ expiresAt: number | null }>(shareKey(pub.shareSeq));
    await server.kv.set(shareKey(pub.shareSeq), { ...entry.value!, expiresAt: Date.now() - 1 });
    assert.equal((await eve.call("GET", `/shares/link/${pubToken}`)).body.errorCode, "SHARE_007");
    assert.equal(
      (await eve.call("GET", `/resources/${pub.resourceSeq}?ss=${alice.userSeq}`)).status,
      403,
    );
  });
});

Deno.test("a policy lowered after sharing caps existing shares at once", async () => {
  await withServer(async (server) => {
    const { alice, bob } = await setup(server);
    const f = await alice.newFolder("Capped");
    await alice.shareWith(f, bob, "cu");
    assert.equal(
      (await bob.call("POST", "/folders", { fn: "a", pfs: f, ss: alice.userSeq })).status,
      201,
    );
    await server.admin.call("PATCH", `/tenants/${alice.tenantId}`, {
      sharePolicy: { SPECIFIC_USERS: { allowed: true, maxPermissions: ["VIEW"] } },
    });
    const denied = await bob.call("POST", "/folders", { fn: "b", pfs: f, ss: alice.userSeq });
    assert.equal(denied.body.errorCode, "PERMISSION_004");
    await server.admin.call("PATCH", `/tenants/${alice.tenantId}`, {
      sharePolicy: { SPECIFIC_USERS: { allowed: false, maxPermissions: ["VIEW"] } },
    });
    assert.equal((await bob.call("GET", `/resources/${f}?ss=${alice.userSeq}`)).status, 403);
  });
});

Deno.test("concurrent creates on one resource: exactly one share", async () => {
  await withServer(async (server) => {
    const { alice, bob } = await setup(server);
    const f = await alice.newFolder("Race");
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        alice.call("POST", "/shares", {
          rs: f,
          st: "SPECIFIC_USERS",
          ts: [{ us: bob.userSeq, ...shareFlags() }],
        })),
    );
    assert.equal(results.filter((r) => r.status === 201).length, 1);
    for (const r of results.filter((r) => r.status !== 201)) {
      assert.equal(r.body.errorCode, "SHARE_005");
    }
    assert.equal((await bob.call("GET", "/shared?ps=10")).body.data.items.length, 1);
  });
});

Deno.test("concurrent shares of a folder and its subfolder with different types: one wins", async () => {
  await withServer(async (server) => {
    const { alice } = await setup(server);
    for (let i = 0; i < 4; i++) {
      const parent = await alice.newFolder(`Up${i}`);
      const child = await alice.newFolder("Down", parent);
      const [up, down] = await Promise.all([
        alice.call("POST", "/shares", { rs: parent, st: "ORG_LINK", ...shareFlags() }),
        alice.call("POST", "/shares", { rs: child, st: "PUBLIC_LINK", ...shareFlags() }),
      ]);
      const statuses = [up.status, down.status].sort();
      assert.deepEqual(statuses, [201, 409], JSON.stringify([up.body, down.body]));
      const lost = up.status === 201 ? down : up;
      assert.equal(lost.body.errorCode, "SHARE_004");
    }
  });
});

Deno.test("trash hides a shared resource, restore brings the share back, purge removes the share", async () => {
  await withServer(async (server) => {
    const { alice, bob } = await setup(server);
    const f = await alice.newFolder("Cycle");
    const s = await alice.shareWith(f, bob);
    assert.equal((await alice.call("PATCH", `/folders/${f}/delete`)).status, 200);
    assert.deepEqual((await bob.call("GET", "/shared?ps=5")).body.data.items, []);
    assert.equal((await bob.call("GET", `/shares/${s.shareSeq}?ss=${alice.userSeq}`)).status, 404);
    assert.equal((await alice.call("POST", `/trash/${f}/restore`)).status, 200);
    assert.equal((await bob.call("GET", "/shared?ps=5")).body.data.items.length, 1);
    await alice.call("PATCH", `/folders/${f}/delete`);
    assert.equal((await alice.call("DELETE", `/trash/${f}`)).status, 200);
    const gone = await alice.call("DELETE", `/shares/${s.shareSeq}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.errorCode, "SHARE_006");
  });
});
