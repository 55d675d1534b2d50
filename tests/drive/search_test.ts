/**
 * GET /search over HTTP: tokens (case, accents, camelCase, prefixes), filters, scopes and the
 * caller's permissions, revoked shares, trash, renames and moves, paging, and bad input.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";

// deno-lint-ignore no-explicit-any
type Hit = any;

async function search(user: ApiUser, params: Record<string, string | number>) {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  const res = await user.call("GET", `/search?${qs}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { items: Hit[]; nextCursor: string | null };
}

/** The names found, sorted (the order is the index's, tested in the paging test). */
async function names(user: ApiUser, params: Record<string, string | number>) {
  return (await search(user, params)).items.map((h: Hit) => h.resource.name).sort();
}

Deno.test("search: case, accents, camelCase and token prefixes; own paths", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const reports = await alice.newFolder("Reports");
    const y2024 = await alice.newFolder("2024", reports);
    await alice.newFile("Q3 Report.pdf", "a", y2024);
    await alice.newFile("QuarterlyReport.xlsx", "b");
    await alice.newFile("Résumé Müller.docx", "c");
    await alice.newFile("Straße.txt", "d");
    await alice.newFile("notes.md", "e");
    await alice.newFile("support.txt", "f");

    assert.deepEqual(await names(alice, { q: "rep" }), [
      "Q3 Report.pdf",
      "QuarterlyReport.xlsx",
      "Reports",
    ]);
    assert.deepEqual(await names(alice, { q: "REPORT" }), await names(alice, { q: "rep" }));
    assert.deepEqual(await names(alice, { q: "port" }), [], "prefix of a word, not an infix");
    assert.deepEqual(await names(alice, { q: "resume" }), ["Résumé Müller.docx"]);
    assert.deepEqual(await names(alice, { q: "MÜLLER" }), ["Résumé Müller.docx"]);
    assert.deepEqual(await names(alice, { q: "mull" }), ["Résumé Müller.docx"]);
    assert.deepEqual(await names(alice, { q: "strasse" }), ["Straße.txt"]);
    assert.deepEqual(await names(alice, { q: "quarterly" }), ["QuarterlyReport.xlsx"]);
    assert.deepEqual(await names(alice, { q: "q3 rep" }), ["Q3 Report.pdf"]);
    assert.deepEqual(await names(alice, { q: "Q3Report" }), ["Q3 Report.pdf"]);
    assert.deepEqual(await names(alice, { q: "rep pdf" }), ["Q3 Report.pdf"]);
    assert.deepEqual(await names(alice, { q: "rep docx" }), []);

    const [hit] = (await search(alice, { q: "q3" })).items;
    assert.equal(hit.scope, "own");
    assert.equal(hit.path, "/Reports/2024");
    assert.equal(hit.owner, null);
    assert.equal(hit.resource.parentSeq, y2024);
    assert.equal(hit.resource.ownerSeq, alice.userSeq);
    assert.deepEqual(Object.values(hit.permissions), [true, true, true, true, true, true]);
    const [root] = (await search(alice, { q: "Reports", rt: "FOLDER" })).items;
    assert.equal(root.path, "/");
  });
});

Deno.test("search: rt and ft filters", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    await alice.newFolder("Plan folder");
    await alice.newFile("plan.docx", "a");
    await alice.newFile("plan.xlsx", "b");
    await alice.newFile("plan.png", "c");
    assert.deepEqual(await names(alice, { q: "plan", rt: "FOLDER" }), ["Plan folder"]);
    assert.deepEqual(await names(alice, { q: "plan", rt: "FILE" }), [
      "plan.docx",
      "plan.png",
      "plan.xlsx",
    ]);
    assert.deepEqual(await names(alice, { q: "plan", ft: "spreadsheet" }), ["plan.xlsx"]);
    assert.deepEqual(await names(alice, { q: "plan", ft: "image" }), ["plan.png"]);
  });
});

Deno.test("search: scopes, owners and the caller's permissions on shared hits", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    await alice.newFile("alice budget.txt", "a");
    const shared = await bob.newFolder("Team budget");
    const inner = await bob.newFolder("Drafts", shared);
    await bob.newFile("budget draft.txt", "b", inner);
    await bob.newFile("private budget.txt", "c"); // not shared
    const single = await bob.newFile("budget single.txt", "d");
    await bob.shareWith(shared, alice, "cd");
    await bob.shareWith(single, alice);

    assert.deepEqual(await names(alice, { q: "budget", scope: "own" }), ["alice budget.txt"]);
    assert.deepEqual(await names(alice, { q: "budget", scope: "shared" }), [
      "Team budget",
      "budget draft.txt",
      "budget single.txt",
    ]);
    assert.deepEqual(await names(alice, { q: "budget" }), [
      "Team budget",
      "alice budget.txt",
      "budget draft.txt",
      "budget single.txt",
    ]);
    const hits = (await search(alice, { q: "budget", scope: "shared" })).items;
    const byName = new Map(hits.map((h: Hit) => [h.resource.name, h]));
    const draft = byName.get("budget draft.txt");
    assert.equal(draft.scope, "shared");
    assert.equal(draft.path, null);
    assert.deepEqual(draft.owner, { userSeq: bob.userSeq, accountId: "bob", name: "bob" });
    assert.equal(draft.permissions.canView, true);
    assert.equal(draft.permissions.canDownload, true);
    assert.equal(draft.permissions.canEdit, false);
    assert.equal(byName.get("budget single.txt").permissions.canDownload, false);

    // Bob's own search sees his drive only: nothing of Alice's is shared with him.
    assert.deepEqual(await names(bob, { q: "budget", scope: "shared" }), []);
    assert.deepEqual(await names(bob, { q: "alice" }), []);
  });
});

Deno.test("search: a revoked share, a removed recipient and trash hide hits", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const folder = await bob.newFolder("Invoices");
    await bob.newFile("invoice 1.pdf", "a", folder);
    const share = await bob.shareWith(folder, alice, "cd");
    assert.equal((await names(alice, { q: "invoice" })).length, 2);
    const removed = await bob.call("DELETE", `/shares/${share.shareSeq}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(await names(alice, { q: "invoice" }), []);

    const again = await bob.shareWith(folder, alice);
    assert.equal((await names(alice, { q: "invoice" })).length, 2);
    await bob.call("PUT", `/shares/${again.shareSeq}/targets`, { ts: [] });
    assert.deepEqual(await names(alice, { q: "invoice" }), []);

    // Trash: a file, then a folder with its contents; restore brings them back.
    const docs = await alice.newFolder("Docs");
    await alice.newFile("memo inside.txt", "x", docs);
    const loose = await alice.newFile("memo loose.txt", "y");
    assert.equal((await alice.call("PATCH", `/files/${loose}/delete`)).status, 200);
    assert.deepEqual(await names(alice, { q: "memo" }), ["memo inside.txt"]);
    assert.equal((await alice.call("PATCH", `/folders/${docs}/delete`)).status, 200);
    assert.deepEqual(await names(alice, { q: "memo" }), []);
    assert.deepEqual(await names(alice, { q: "docs" }), []);
    assert.equal((await alice.call("POST", `/trash/${docs}/restore`)).status, 200);
    assert.deepEqual(await names(alice, { q: "memo" }), ["memo inside.txt"]);
    // A share on a folder in the owner's trash hides its contents from the recipient too.
    const box = await bob.newFolder("Box");
    await bob.newFile("boxed item.txt", "z", box);
    await bob.shareWith(box, alice);
    assert.deepEqual(await names(alice, { q: "boxed" }), ["boxed item.txt"]);
    await bob.call("PATCH", `/folders/${box}/delete`);
    assert.deepEqual(await names(alice, { q: "boxed" }), []);
  });
});

Deno.test("search: renames and moves are found under the new name and place", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const target = await alice.newFolder("Archive");
    const rs = await alice.newFile("draft.txt", "x");
    const renamed = await alice.call("PATCH", `/files/${rs}/rename`, { rn: "Final Contract.txt" });
    assert.equal(renamed.status, 200);
    assert.deepEqual(await names(alice, { q: "draft" }), []);
    assert.deepEqual(await names(alice, { q: "contract" }), ["Final Contract.txt"]);
    assert.equal((await alice.call("POST", `/files/${rs}/move`, { pfs: target })).status, 200);
    const [hit] = (await search(alice, { q: "contract" })).items;
    assert.equal(hit.path, "/Archive");
  });
});

Deno.test("search: cursor paging never skips or repeats, and a name counts once", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const expected: string[] = [];
    for (let i = 0; i < 23; i++) {
      const name = `page item ${String(i).padStart(2, "0")}.txt`;
      await alice.newFile(name, "x");
      expected.push(name);
    }
    // Several tokens start with "pag": still one hit.
    await alice.newFile("pages paging page.txt", "x");
    expected.push("pages paging page.txt");
    // Shared hits from another drive continue the same order.
    const shared = await bob.newFile("page from bob.txt", "x");
    await bob.shareWith(shared, alice);
    expected.push("page from bob.txt");

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { items: Hit[]; nextCursor: string | null } = await search(alice, {
        q: "pag",
        ps: 7,
        ...(cursor ? { cursor } : {}),
      });
      assert.ok(page.items.length <= 7);
      seen.push(...page.items.map((h: Hit) => h.resource.name));
      cursor = page.nextCursor;
      pages++;
      assert.ok(pages < 10, "paging must end");
    } while (cursor);
    assert.deepEqual([...seen].sort(), [...expected].sort());
    assert.equal(new Set(seen).size, seen.length, "no repeats");
    assert.equal(seen.at(-1), "page from bob.txt", "owners in user seq order");

    // A cursor belongs to its query.
    const first = await search(alice, { q: "pag", ps: 2 });
    const other = await alice.call("GET", `/search?q=item&ps=2&cursor=${first.nextCursor}`);
    assert.equal(other.status, 400);
    assert.equal(other.body.errorCode, "RESOURCE_018");
    const junk = await alice.call("GET", `/search?q=pag&cursor=not-a-cursor`);
    assert.equal(junk.body.errorCode, "RESOURCE_018");
  });
});

Deno.test("search: bad input is a 400 naming the field", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const cases: [string, string][] = [
      ["", "q"],
      ["?q=", "q"],
      ["?q=...%20---", "q"],
      ["?q=a%20b%20c%20d%20e%20f%20g%20h%20i", "q"],
      [`?q=${"x".repeat(201)}`, "q"],
      ["?q=a&ps=0", "ps"],
      ["?q=a&ps=101", "ps"],
      ["?q=a&ps=x", "ps"],
      ["?q=a&scope=mine", "scope"],
      ["?q=a&rt=file", "rt"],
      ["?q=a&ft=movie", "ft"],
    ];
    for (const [qs, field] of cases) {
      const res = await alice.call("GET", `/search${qs}`);
      assert.equal(res.status, 400, qs);
      assert.equal(res.body.errorCode, "REQUEST_001", qs);
      assert.match(res.body.message, new RegExp(`^${field}`), qs);
    }
    const noKey = await fetch(`${server.url}/api/external/v1/search?q=a`);
    assert.equal(noKey.status, 401);
    await noKey.body?.cancel();
  });
});
