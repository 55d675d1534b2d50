/**
 * The multi-resource ZIP (api/external/selection_zip.ts): files and folders from different
 * folders in one archive with unique top names; every item checked for download permission when
 * the link is issued and again when it is used; bad input named.
 */
import assert from "node:assert/strict";
import { withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { readZip } from "../helpers/zip_reader.ts";
import { testBytes } from "../helpers/bytes.ts";

type Item = { resourceSeq: unknown; ss?: number };

async function selectionLink(user: ApiUser, resources: Item[]): Promise<string> {
  const res = await user.call("POST", "/resources/download-token", { resources });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.body.data.linkUrl, /^\/api\/external\/v1\/resources\/download\?dt=[\w-]{43}$/);
  return res.body.data.linkUrl;
}

Deno.test("selection ZIP: files and folders from anywhere, shared ones too, names made unique", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const [a, b] = [await alice.newFolder("A"), await alice.newFolder("B")];
    const inA = await alice.newFile("report.txt", "from A", a);
    const inB = await alice.newFile("report.txt", "from B", b);
    const big = testBytes(300_000, 3);
    const sub = await alice.newFolder("Photos", b);
    await alice.newFile("big.bin", big, sub);
    await alice.newFolder("empty", sub);
    const team = await bob.newFolder("Team");
    await bob.newFile("notes.md", "bob's notes", team);
    await bob.shareWith(team, alice, "cd");

    const link = await selectionLink(alice, [
      { resourceSeq: inA },
      { resourceSeq: inB },
      { resourceSeq: sub },
      { resourceSeq: team, ss: bob.userSeq },
      { resourceSeq: inA }, // named twice: once in the archive
    ]);
    const res = await fetch(`${server.url}${link}`); // no Authorization header
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.match(res.headers.get("content-disposition")!, /^attachment;.*download\.zip/);
    const body = new Uint8Array(await res.arrayBuffer());
    assert.equal(Number(res.headers.get("content-length")), body.byteLength);
    const zip = readZip(body);
    assert.deepEqual(zip.entries.map((e) => e.name), [
      "report.txt",
      "report (2).txt",
      "Photos/",
      "Photos/big.bin",
      "Photos/empty/",
      "Team/",
      "Team/notes.md",
    ]);
    assert.equal(zip.text("report.txt"), "from A");
    assert.equal(zip.text("report (2).txt"), "from B");
    assert.deepEqual(zip.get("Photos/big.bin").data(), big);
    assert.equal(zip.text("Team/notes.md"), "bob's notes");
  });
});

Deno.test("selection ZIP: bad input and missing permission are named, item by item", async () => {
  await withServer(async (server) => {
    const [alice, bob] = await newTeam(server, "alice", "bob");
    const stranger = await newApiUser(server, "mallory");
    const mine = await alice.newFile("mine.txt", "mine");
    const bobs = await bob.newFile("secret.txt", "bob only");
    const viewOnly = await bob.newFile("view-only.txt", "look, don't take");
    await bob.shareWith(viewOnly, alice); // view without download
    const trashed = await alice.newFile("trashed.txt", "gone");
    assert.equal((await alice.call("PATCH", `/files/${trashed}/delete`)).status, 200);

    const refused = async (resources: unknown, status: number, code: string) => {
      const res = await alice.call("POST", "/resources/download-token", { resources });
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.errorCode, code, JSON.stringify(res.body));
      return res.body;
    };
    const empty = await refused([], 400, "REQUEST_001");
    assert.match(JSON.stringify(empty), /at least one/);
    const many = Array.from({ length: 1001 }, (_, i) => ({ resourceSeq: i + 1 }));
    assert.match(JSON.stringify(await refused(many, 400, "REQUEST_001")), /at most 1000/);
    await refused([{ resourceSeq: "x" }], 400, "REQUEST_001");
    await refused(undefined, 400, "REQUEST_001");
    const missing = await refused(
      [{ resourceSeq: mine }, { resourceSeq: 999_999 }],
      404,
      "RESOURCE_002",
    );
    assert.match(missing.message, /999999/);
    await refused([{ resourceSeq: trashed }], 404, "RESOURCE_002");
    // Another user's file, not shared: no access; shared for viewing only: no download.
    await refused([{ resourceSeq: mine }, { resourceSeq: bobs }], 403, "PERMISSION_002");
    await refused(
      [{ resourceSeq: viewOnly, ss: bob.userSeq }],
      403,
      "PERMISSION_004",
    );
    // Someone else's link is not for the stranger: their own request is refused too.
    const res = await stranger.call("POST", "/resources/download-token", {
      resources: [{ resourceSeq: mine }],
    });
    assert.equal(res.status, 403);

    // Access is checked again when the link is used: the item went to the trash meanwhile.
    const link = await selectionLink(alice, [{ resourceSeq: mine }]);
    assert.equal((await alice.call("PATCH", `/files/${mine}/delete`)).status, 200);
    const late = await fetch(`${server.url}${link}`);
    assert.equal(late.status, 404);
    assert.equal((await late.json()).errorCode, "RESOURCE_002");
    // A folder token is not a selection token.
    const folder = await alice.newFolder("F");
    const folderLink = (await alice.call("GET", `/folders/${folder}/download-token`)).body.data
      .linkUrl as string;
    const dt = new URL(folderLink, server.url).searchParams.get("dt");
    const wrong = await fetch(`${server.url}/api/external/v1/resources/download?dt=${dt}`);
    assert.equal(wrong.status, 404);
    assert.equal((await wrong.json()).errorCode, "RESOURCE_009");
  });
});
