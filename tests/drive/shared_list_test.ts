import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser, shareFlags } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";

interface Entry {
  resourceSeq: number;
  resourceName: string;
  [k: string]: unknown;
}

async function sharedFile(owner: ApiUser, to: ApiUser, name: string, content: string) {
  const up = await owner.upload(name, content);
  assert.equal(up.status, 201, JSON.stringify(up.body));
  await owner.shareWith(up.body.data.resourceSeq, to, "cd");
  return up.body.data.resourceSeq as number;
}

/** Every page of GET /shared with `query`, following cursors (bounded). */
async function allPages(user: ApiUser, query: string, onPage?: (n: number) => Promise<void>) {
  const seen: Entry[] = [];
  let cursor: { ci: number; cv: string; ct: string } | null = null;
  for (let page = 0; page < 100; page++) {
    const c: string = cursor
      ? `&ci=${cursor.ci}&cv=${encodeURIComponent(cursor.cv)}&ct=${cursor.ct}`
      : "";
    const res = await user.call("GET", `/shared?${query}${c}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    seen.push(...res.body.data.items);
    cursor = res.body.data.cursor;
    if (!cursor) return seen;
    await onPage?.(page);
  }
  throw new Error("too many pages");
}

const names = (items: Entry[]) => items.map((i) => i.resourceName);

Deno.test("shared list entry: resource, owner, tenant, permissions, who shared, stars, link visits", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const carol = await newApiUser(server, "carol", { tenantId: alice.tenantId });
    const f = await alice.newFolder("Plans");
    const s = await alice.shareWith(f, bob, "cd", "cs");
    // Bob re-shares to Carol.
    await bob.call("PUT", `/shares/${s.shareSeq}/targets`, {
      ss: alice.userSeq,
      ts: [{ us: bob.userSeq, ...shareFlags("cd", "cs") }, { us: carol.userSeq, ...shareFlags() }],
    });
    const res = await carol.call("GET", "/shared?ps=5");
    assert.equal(res.status, 200);
    const [e] = res.body.data.items;
    assert.equal(e.resourceSeq, f);
    assert.equal(e.resourceName, "Plans");
    assert.equal(e.resourceType, "FOLDER");
    assert.equal(e.ownerSeq, alice.userSeq);
    assert.equal(e.ownerAccountId, "alice");
    assert.equal(e.tenantId, alice.tenantId);
    assert.equal(e.tenantName, "alice-org");
    assert.equal(e.shareSeq, s.shareSeq);
    assert.equal(e.shareType, "SPECIFIC_USERS");
    assert.equal(e.sharedVia, "RECIPIENT");
    assert.equal(e.registeredBySeq, bob.userSeq);
    assert.equal(e.changedBySeq, bob.userSeq);
    assert.ok(Date.parse(e.sharedAt) > 0);
    assert.deepEqual(e.permissions, {
      canView: true,
      canEdit: false,
      canDownload: false,
      canUpload: false,
      canShare: false,
      canDelete: false,
    });
    assert.equal(e.isStarred, false);
    assert.equal(e.starredSeq, null);
    assert.equal(res.body.data.cursor, null);

    const star = await carol.call("POST", `/shared/${f}/star?ss=${alice.userSeq}`);
    assert.equal(star.status, 200);
    const starred = (await carol.call("GET", "/shared?ps=5")).body.data.items[0];
    assert.equal(starred.isStarred, true);
    assert.equal(starred.starredSeq, star.body.data.starredSeq);
    assert.equal((await carol.call("DELETE", `/shared/${f}/star`)).body.data.isStarred, false);
    assert.equal((await carol.call("GET", "/shared?ps=5")).body.data.items[0].isStarred, false);
    const eve = await newApiUser(server, "eve");
    assert.equal((await eve.call("POST", `/shared/${f}/star?ss=${alice.userSeq}`)).status, 403);

    // An ORG_LINK is listed for a member once opened through its link.
    const org = await alice.newShare({
      rs: await alice.newFolder("Handbook"),
      st: "ORG_LINK",
      ...shareFlags("cd"),
    });
    assert.equal((await carol.call("GET", "/shared?ps=5")).body.data.items.length, 1);
    await carol.call("GET", `/shares/link/${org.linkUrl.split("/s/")[1]}`);
    const withLink = (await carol.call("GET", "/shared?ps=5")).body.data.items;
    assert.deepEqual(names(withLink), ["Handbook", "Plans"]);
    assert.equal(withLink[0].sharedVia, "LINK");
    assert.equal(withLink[0].permissions.canDownload, true);
    assert.ok(withLink[0].lastOpenedAt);
    // The owner never sees own resources; trashed and revoked ones vanish.
    assert.deepEqual((await alice.call("GET", "/shared?ps=5")).body.data.items, []);
    await alice.call("PATCH", `/folders/${org.resourceSeq}/delete`);
    await alice.call("PUT", `/shares/${s.shareSeq}/targets`, { ts: [] });
    assert.deepEqual((await carol.call("GET", "/shared?ps=5")).body.data.items, []);
  });
});

Deno.test("shared list filters and sorts", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const dave = await newApiUser(server, "dave");
    const bob = await newApiUser(server, "bob");
    await sharedFile(alice, bob, "b-report.docx", "12345");
    await sharedFile(alice, bob, "a-budget.xlsx", "1");
    await sharedFile(dave, bob, "c-photo.png", "123");
    await sharedFile(dave, bob, "d-paper.pdf", "1234567");
    await alice.shareWith(await alice.newFolder("e-folder"), bob);

    const q = async (query: string) => names(await allPages(bob, `ps=2&${query}`));
    assert.deepEqual(await q("sb=name&so=asc"), [
      "a-budget.xlsx",
      "b-report.docx",
      "c-photo.png",
      "d-paper.pdf",
      "e-folder",
    ]);
    assert.deepEqual(await q("sb=name&so=desc"), [
      "e-folder",
      "d-paper.pdf",
      "c-photo.png",
      "b-report.docx",
      "a-budget.xlsx",
    ]);
    assert.deepEqual(await q("sb=size&so=desc&rt=FILE"), [
      "d-paper.pdf",
      "b-report.docx",
      "c-photo.png",
      "a-budget.xlsx",
    ]);
    // Default and sb without so: newest share first.
    const newestFirst = [
      "e-folder",
      "d-paper.pdf",
      "c-photo.png",
      "a-budget.xlsx",
      "b-report.docx",
    ];
    assert.deepEqual(await q(""), newestFirst);
    assert.deepEqual(await q("sb=name"), newestFirst);
    assert.deepEqual(await q("sb=share&so=asc"), [...newestFirst].reverse());
    assert.deepEqual(await q("sb=update&so=asc"), [...newestFirst].reverse());
    assert.deepEqual(await q("rt=FOLDER"), ["e-folder"]);
    assert.deepEqual(await q("ft=spreadsheet"), ["a-budget.xlsx"]);
    assert.deepEqual(await q("ft=image"), ["c-photo.png"]);
    assert.deepEqual(await q("ft=pdf"), ["d-paper.pdf"]);
    assert.deepEqual(await q("ft=document"), ["b-report.docx"]);
    assert.deepEqual(await q("oi=dave&sb=name&so=asc"), ["c-photo.png", "d-paper.pdf"]);
    assert.deepEqual(await q("oi=nobody"), []);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await q(`sd=${today}&ed=${today}`)).length, 5);
    assert.deepEqual(await q("sd=2000-01-01&ed=2000-12-31"), []);
    // sd alone is ignored.
    assert.equal((await q("sd=2000-01-01")).length, 5);

    // Open sort: a download by Bob moves the file to the front of "most recently opened".
    const paper = (await allPages(bob, "ps=10&rt=FILE&oi=dave&ft=pdf"))[0];
    const dl = await bob.fetch(`/files/${paper.resourceSeq}/download?ss=${paper.ownerSeq}`);
    assert.equal(dl.status, 200);
    await dl.body?.cancel();
    const opened = await q("sb=open&so=desc");
    assert.equal(opened[0], "d-paper.pdf");

    for (const bad of ["ps=0", "ps=101", "ps=x", "", "ps=2&rt=DOC", "ps=2&sd=yesterday&ed=x"]) {
      const r = await bob.call("GET", `/shared?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.body.errorCode, "REQUEST_001", bad);
    }
    for (const bad of ["ci=1", "ci=1&cv=5&ct=name", "ci=1&cv=abc&ct=share", "ci=1&cv=5&ct=bogus"]) {
      const r = await bob.call("GET", `/shared?ps=2&${bad}`);
      assert.equal(r.status, 400, bad);
      assert.ok(["RESOURCE_018", "REQUEST_001"].includes(r.body.errorCode), bad);
    }
    assert.equal(
      (await bob.call("GET", "/shared?ps=2&ci=1&cv=5&ct=name")).body.errorCode,
      "RESOURCE_018",
    );
  });
});

async function seedShares(
  owner: ApiUser,
  to: ApiUser,
  prefix: string,
  n: number,
) {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const rs = await owner.newFolder(`${prefix}${String(i).padStart(3, "0")}`);
    await owner.shareWith(rs, to);
    out.push(rs);
  }
  return out;
}

Deno.test("pagination over many pages stays exact while shares are added and renamed concurrently", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const original = await seedShares(alice, bob, "m", 30);
    let added = 0;
    // Between pages: new shares sort before and after the cursor; an existing one is renamed.
    const seen = await allPages(bob, "ps=7&sb=name&so=asc", async (page) => {
      await Promise.all([
        seedShares(alice, bob, `a${page}-`, 1),
        seedShares(alice, bob, `z${page}-`, 1),
        alice.call("PATCH", `/folders/${original[29 - page]}/rename`, { rn: `renamed-${page}` }),
      ]);
      added += 2;
    });
    const ids = seen.map((e) => e.resourceSeq);
    assert.equal(new Set(ids).size, ids.length, "no entry twice");
    for (const rs of original) assert.ok(ids.includes(rs), `original ${rs} listed`);
    assert.ok(added >= 8, "several pages were fetched");
    // Entries added after the cursor passed their position are listed; those before are not.
    assert.ok(seen.some((e) => e.resourceName.startsWith("z")));
    assert.ok(!seen.some((e) => e.resourceName.startsWith("a")));
    // Entries show live names.
    assert.ok(seen.some((e) => e.resourceName === "renamed-0"));

    // Descending share-time pages with concurrent inserts: each original item exactly once.
    const desc = await allPages(bob, "ps=9", async (page) => {
      await seedShares(alice, bob, `n${page}-`, 1);
    });
    const descIds = desc.map((e) => e.resourceSeq);
    assert.equal(new Set(descIds).size, descIds.length);
    for (const rs of original) assert.ok(descIds.includes(rs));
  });
});

Deno.test("a link visitor who becomes a named recipient is listed once, with the new share's data", async () => {
  await withServer(async (server) => {
    const [alice, carol] = await newTeam(server, "alice", "carol");
    const rs = await alice.newFolder("Wiki");
    const org = await alice.newShare({ rs, st: "ORG_LINK", ...shareFlags() });
    await carol.call("GET", `/shares/link/${org.linkUrl.split("/s/")[1]}`);
    await alice.call("PATCH", `/folders/${rs}/rename`, { rn: "Wiki2" });
    const patched = await alice.call("PATCH", `/shares/${org.shareSeq}`, {
      st: "SPECIFIC_USERS",
      ts: [{ us: carol.userSeq, ...shareFlags("ce") }],
    });
    assert.equal(patched.status, 200);
    for (const sort of ["sb=name&so=asc", "sb=open&so=desc", "sb=share&so=asc", ""]) {
      const items = await allPages(carol, `ps=5&${sort}`);
      assert.equal(items.length, 1, sort);
      assert.equal(items[0].sharedVia, "RECIPIENT");
      assert.equal((items[0].permissions as { canEdit: boolean }).canEdit, true);
    }
  });
});

Deno.test("filtered pages that use up their scan budget after a cursor skip no entry", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const first = await sharedFile(alice, bob, "a.pdf", "a");
    // After the first page's cursor: 1000 entries the filter rejects, then two it keeps, so the
    // second page fills on the last key of its budget (ps + 1000) while more keys follow.
    for (let i = 0; i < 1000; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => sharedFile(alice, bob, `b-${i + j}.txt`, "b")),
      );
    }
    const second = await sharedFile(alice, bob, "y.pdf", "y");
    const last = await sharedFile(alice, bob, "z.pdf", "z");
    const seen = await allPages(bob, "ps=1&ft=pdf&sb=name&so=asc");
    assert.deepEqual(seen.map((e) => e.resourceSeq), [first, second, last]);
  });
});
