/**
 * Over HTTP: a folder listing (one scan of the denormalized index) shows what each item's own
 * metadata shows, for every sort, after renames, moves, new versions, overwrites and trash.
 */
import assert from "node:assert/strict";
import { ApiUser, newApiUser } from "../helpers/api.ts";
import { withServer } from "../helpers/server.ts";

type Item = Record<string, unknown> & { resourceSeq: number; name: string };

async function listAll(user: ApiUser, pfs: number | null, sb: string, so: string) {
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ sb, so, ps: "2" });
    if (pfs !== null) q.set("pfs", String(pfs));
    if (cursor) q.set("cursor", cursor);
    const res = await user.call("GET", `/resources?${q}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    items.push(...res.body.data.items);
    cursor = res.body.data.nextCursor;
  } while (cursor);
  return items;
}

/** Every sort of the folder lists the same items, each equal to its metadata's fields. */
async function assertListingMatches(user: ApiUser, pfs: number | null, names: string[]) {
  for (const [sb, so] of [["name", "asc"], ["size", "desc"], ["update", "asc"]]) {
    const items = await listAll(user, pfs, sb, so);
    assert.deepEqual(items.map((i) => i.name).sort(), [...names].sort(), `${sb} ${so}`);
    for (const item of items) {
      const meta = await user.call("GET", `/resources/${item.resourceSeq}`);
      assert.equal(meta.status, 200);
      for (const [field, value] of Object.entries(item)) {
        assert.deepEqual(meta.body.data[field], value, `${sb}: ${item.name}.${field}`);
      }
    }
  }
}

Deno.test("listings equal the items' metadata after renames, moves, new content and trash", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const [docs, sub] = await alice.newFolderPath("Docs", "Sub");
    const a = await alice.newFile("a.txt", "one", docs);
    const b = await alice.newFile("b.txt", "two two", docs);
    await assertListingMatches(alice, docs, ["Sub", "a.txt", "b.txt"]);

    assert.equal((await alice.call("PATCH", `/files/${a}/rename`, { rn: "A.md" })).status, 200);
    assert.equal((await alice.call("PATCH", `/folders/${sub}/rename`, { rn: "Sub2" })).status, 200);
    await assertListingMatches(alice, docs, ["Sub2", "A.md", "b.txt"]);

    const moved = await alice.call("POST", `/files/${b}/move`, { pfs: sub });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await assertListingMatches(alice, docs, ["Sub2", "A.md"]);
    await assertListingMatches(alice, sub, ["b.txt"]);

    for (const st of ["version", "overwrite"]) {
      const up = await alice.upload("b.txt", `content of a ${st}, longer`, { st, rs: b });
      assert.equal(up.status < 300, true, JSON.stringify(up.body));
      await assertListingMatches(alice, sub, ["b.txt"]);
    }
    const [listedB] = await listAll(alice, sub, "name", "asc");
    assert.equal(listedB.version, 3);
    assert.equal(listedB.size, new TextEncoder().encode("content of a overwrite, longer").length);

    assert.equal((await alice.call("PATCH", `/files/${a}/delete`)).status, 200);
    await assertListingMatches(alice, docs, ["Sub2"]);
    const trashList = await alice.call("GET", "/trash");
    assert.equal(trashList.status, 200);
    assert.deepEqual(
      (trashList.body.data.items as Item[]).map((i) => [i.resourceSeq, i.name]),
      [[a, "A.md"]],
    );
  });
});
