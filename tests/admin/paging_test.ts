/**
 * Paging and search of the admin lists over HTTP (GET /admin/api/users, /keys, /share-links,
 * /tenants): limit and nextCursor walk every item exactly once while items are created between
 * pages; q finds by a case-insensitive prefix of what each list documents, each item once; bad
 * limits and foreign or broken cursors are 400s naming the parameter.
 */
import assert from "node:assert/strict";
import { newApiUser, shareFlags } from "../helpers/api.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { shareKey } from "../../kv/keys.ts";

/** Every item of `path` (with its query), page by page, running `between` after each page. */
async function readAllPages(
  server: TestServer,
  path: string,
  limit: number,
  between: (page: number) => Promise<void> = async () => {},
  // deno-lint-ignore no-explicit-any
): Promise<{ items: any[]; pages: number }> {
  // deno-lint-ignore no-explicit-any
  const items: any[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 500; page++) {
    const sep = path.includes("?") ? "&" : "?";
    const url = `${path}${sep}limit=${limit}${
      cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""
    }`;
    const res = await server.admin.call("GET", url);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.items.length <= limit, "a page holds at most limit items");
    items.push(...res.body.items);
    cursor = res.body.nextCursor;
    if (cursor === null) return { items, pages: page + 1 };
    await between(page);
  }
  throw new Error("paging never ended");
}

async function createUsers(server: TestServer, tenantId: number, ids: string[]) {
  const out = [];
  for (const id of ids) out.push(await server.admin.createUser(tenantId, id));
  return out;
}

Deno.test("users: limit and cursor read every user once while others are created", async () => {
  await withServer(async (server) => {
    const acme = await server.admin.createTenant("Acme");
    const other = await server.admin.createTenant("Other");
    const first = await createUsers(server, acme.id, Array.from({ length: 23 }, (_, i) => `u${i}`));
    await createUsers(server, other.id, ["x1", "x2"]);

    const whole = await server.admin.call("GET", "/users");
    assert.equal(whole.body.items.length, 25, "the default limit holds them all");
    assert.equal(whole.body.nextCursor, null);

    const created: number[] = [];
    const { items, pages } = await readAllPages(server, "/users", 4, async (page) => {
      created.push((await server.admin.createUser(acme.id, `late${page}`)).userSeq);
    });
    const seqs = items.map((u) => u.userSeq);
    assert.equal(new Set(seqs).size, seqs.length, "no user twice");
    for (const u of first) assert.ok(seqs.includes(u.userSeq), `${u.accountId} listed`);
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), "userSeq order");
    // Created after the cursor (a higher seq): each is met, the last page included.
    for (const seq of created) assert.ok(seqs.includes(seq), `late user ${seq} listed`);
    assert.ok(pages >= 7);
    assert.equal(typeof items[0].usedBytes, "number", "the user view, with usage");

    const ofOther = await readAllPages(server, `/users?tenantId=${other.id}`, 1);
    assert.deepEqual(ofOther.items.map((u) => u.accountId), ["x1", "x2"]);
  });
});

Deno.test("users: q is a case-insensitive prefix of accountId, e-mail, name or a name word", async () => {
  await withServer(async (server) => {
    const acme = await server.admin.createTenant("Acme");
    const other = await server.admin.createTenant("Other");
    await server.admin.createUser(acme.id, "alice", { name: "Alice Martin" });
    await server.admin.createUser(acme.id, "alina", { name: "Alina Lima" });
    await server.admin.createUser(other.id, "bob", { name: "Bob Alvarez" });
    await server.admin.createUser(acme.id, "carol", { name: "Carol Lima" });
    const accounts = async (query: string) =>
      (await readAllPages(server, `/users?${query}`, 1)).items.map((u) => u.accountId).sort();

    // "al": alice and alina by accountId, e-mail and name (listed once), bob by "Alvarez".
    assert.deepEqual(await accounts("q=AL"), ["alice", "alina", "bob"]);
    assert.deepEqual(await accounts("q=lima"), ["alina", "carol"]);
    assert.deepEqual(await accounts("q=carol%40example"), ["carol"]);
    assert.deepEqual(await accounts("q=alina%20lima"), ["alina"], "the whole name");
    assert.deepEqual(await accounts(`q=al&tenantId=${acme.id}`), ["alice", "alina"]);
    assert.deepEqual(await accounts("q=zed"), []);
    assert.deepEqual(await accounts("q=lice"), [], "a prefix, not any substring");
    assert.deepEqual(await accounts("q=%20%20"), ["alice", "alina", "bob", "carol"], "blank: all");

    // A rename moves the user's terms with it.
    const carol = (await server.admin.call("GET", "/users?q=carol")).body.items[0];
    const renamed = await server.admin.call("PATCH", `/users/${carol.userSeq}`, {
      name: "Caroline Souza",
    });
    assert.equal(renamed.status, 200);
    assert.deepEqual(await accounts("q=lima"), ["alina"]);
    assert.deepEqual(await accounts("q=souza"), ["carol"]);

    // Deleting a user removes them from the search.
    const bob = (await server.admin.call("GET", "/users?q=bob")).body.items[0];
    const del = await server.admin.call("DELETE", `/users/${bob.userSeq}?confirm=bob`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.deepEqual(await accounts("q=al"), ["alice", "alina"]);
  });
});

Deno.test("users: a search pages once through each match while matches are created", async () => {
  await withServer(async (server) => {
    const acme = await server.admin.createTenant("Acme");
    await createUsers(server, acme.id, ["mia", "mila", "milo", "mina", "noah"]);
    const { items } = await readAllPages(server, "/users?q=mi", 1, async (page) => {
      // "mib" sorts before the cursor after page 1, "miz" after it.
      if (page === 1) await server.admin.createUser(acme.id, "mib");
      if (page === 1) await server.admin.createUser(acme.id, "miz");
    });
    const ids = items.map((u) => u.accountId);
    assert.equal(new Set(ids).size, ids.length, "no user twice");
    for (const id of ["mia", "mila", "milo", "mina", "miz"]) assert.ok(ids.includes(id), id);
    assert.ok(!ids.includes("noah"));
  });
});

Deno.test("keys: paged, and searched by key id prefix or by their user", async () => {
  await withServer(async (server) => {
    const acme = await server.admin.createTenant("Acme");
    const ana = await server.admin.createUser(acme.id, "ana", { name: "Ana Lima" });
    const ben = await server.admin.createUser(acme.id, "ben");
    for (let i = 0; i < 3; i++) await server.admin.createKey(ana.userSeq);
    for (let i = 0; i < 4; i++) await server.admin.createKey(ben.userSeq);

    const all = await readAllPages(server, "/keys", 2);
    const ids = all.items.map((k) => k.keyId);
    assert.equal(ids.length, 7);
    assert.equal(new Set(ids).size, 7);
    assert.deepEqual(ids, [...ids].sort(), "key id order");
    assert.ok(all.items.every((k) => !("secretHash" in k) && !("apiKey" in k)), "no secrets");

    const anaKeys = await readAllPages(server, "/keys?q=LIMA", 1);
    assert.deepEqual(anaKeys.items.map((k) => k.userSeq), [ana.userSeq, ana.userSeq, ana.userSeq]);
    const benOnly = await readAllPages(server, `/keys?userSeq=${ben.userSeq}`, 3);
    assert.equal(benOnly.items.length, 4);
    assert.ok(benOnly.items.every((k) => k.userSeq === ben.userSeq));

    // A key id prefix finds that key (exact case); a key of a user who also matches is listed once.
    const target = ids[3];
    const byId = await readAllPages(server, `/keys?q=${target.slice(0, 10)}`, 5);
    assert.deepEqual(byId.items.map((k) => k.keyId), [target]);
    const owner = all.items.find((k) => k.keyId === target)!.userSeq;
    const prefix = owner === ana.userSeq ? "an" : "be";
    const both = await readAllPages(server, `/keys?q=${prefix}`, 1);
    const bothIds = both.items.map((k) => k.keyId);
    assert.equal(new Set(bothIds).size, bothIds.length);
    assert.equal(bothIds.length, owner === ana.userSeq ? 3 : 4);
    const narrowed = await readAllPages(server, `/keys?q=an&userSeq=${ben.userSeq}`, 5);
    assert.deepEqual(narrowed.items, [], "userSeq narrows a search");
  });
});

Deno.test("share links: searched by resource name or owner; active=true leaves expired out", async () => {
  await withServer(async (server) => {
    const acme = await server.admin.createTenant("Acme");
    const ana = await newApiUser(server, "ana", { tenantId: acme.id });
    const ben = await newApiUser(server, "ben", { tenantId: acme.id });
    const link = async (user: typeof ana, name: string) => {
      const rs = await user.newFile(name, "x");
      return await user.newShare({ rs, st: "PUBLIC_LINK", ...shareFlags() });
    };
    const report = await link(ana, "Quarterly report.pdf");
    await link(ana, "notes.txt");
    const old = await link(ben, "Report draft.docx");
    await link(ben, "photo.jpg");
    const stored = (await server.kv.get<{ expiresAt: number }>(shareKey(old.shareSeq))).value!;
    await server.kv.set(shareKey(old.shareSeq), { ...stored, expiresAt: Date.now() - 1000 });

    const names = async (query: string) =>
      (await readAllPages(server, `/share-links?${query}`, 1)).items.map((l) => l.resourceName)
        .sort();
    assert.deepEqual(await names(""), [
      "Quarterly report.pdf",
      "Report draft.docx",
      "notes.txt",
      "photo.jpg",
    ]);
    assert.deepEqual(await names("q=REPORT"), ["Quarterly report.pdf", "Report draft.docx"]);
    assert.deepEqual(await names("q=report&active=true"), ["Quarterly report.pdf"]);
    assert.deepEqual(await names("q=ben"), ["Report draft.docx", "photo.jpg"], "by owner");
    assert.deepEqual(await names("active=true"), [
      "Quarterly report.pdf",
      "notes.txt",
      "photo.jpg",
    ]);
    const one = await server.admin.call("GET", "/share-links?q=quarterly");
    assert.equal(one.body.items[0].shareSeq, report.shareSeq);
    assert.equal(one.body.items[0].ownerAccountId, "ana");
    assert.equal(one.body.nextCursor, null);
  });
});

Deno.test("tenants: paged and searched by name", async () => {
  await withServer(async (server) => {
    for (const name of ["Acme", "Acme Europe", "Globex", "Initech", "Big Acme"]) {
      await server.admin.createTenant(name);
    }
    const all = await readAllPages(server, "/tenants", 2);
    assert.deepEqual(all.items.map((t) => t.name), [
      "Acme",
      "Acme Europe",
      "Globex",
      "Initech",
      "Big Acme",
    ]);
    const acme = await readAllPages(server, "/tenants?q=acme", 1);
    assert.deepEqual(acme.items.map((t) => t.name), ["Acme", "Acme Europe", "Big Acme"]);
  });
});

Deno.test("bad limits and foreign or broken cursors are 400s naming the parameter", async () => {
  await withServer(async (server) => {
    const acme = await server.admin.createTenant("Acme");
    await createUsers(server, acme.id, ["a1", "a2", "a3"]);
    for (const limit of ["0", "1001", "two", "1.5"]) {
      const res = await server.admin.call("GET", `/users?limit=${limit}`);
      assert.equal(res.status, 400, limit);
      assert.equal(res.body.error, "REQUEST_001");
      assert.equal(res.body.field, "limit");
    }
    const tooLong = await server.admin.call("GET", `/users?q=${"a".repeat(201)}`);
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.field, "q");
    const page = await server.admin.call("GET", "/users?q=a&limit=1");
    assert.ok(page.body.nextCursor);
    const cursor = encodeURIComponent(page.body.nextCursor);
    for (
      const path of [
        `/users?q=b&limit=1&cursor=${cursor}`, // other search
        `/users?limit=1&cursor=${cursor}`, // no search
        `/keys?q=a&cursor=${cursor}`, // other list
        `/share-links?cursor=${cursor}`,
        "/users?cursor=not-a-cursor",
        `/users?q=a&cursor=${btoa(JSON.stringify({ b: '["users","a",null]', c: "{" }))}`,
      ]
    ) {
      const res = await server.admin.call("GET", path);
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error, "RESOURCE_018", path);
      assert.equal(res.body.field, "cursor", path);
    }
    const next = await server.admin.call("GET", `/users?q=a&limit=1&cursor=${cursor}`);
    assert.equal(next.status, 200);
    assert.equal(next.body.items[0].accountId, "a2");
  });
});
