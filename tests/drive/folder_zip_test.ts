import assert from "node:assert/strict";
import { DOWNLOAD_TOKEN_TTL_MS } from "../../kv/tree/download_tokens.ts";
import { forEachBlobStore, withServer } from "../helpers/server.ts";
import { ApiUser, newApiUser, readOnlyKeyOf, shareFlags, uploadAs } from "../helpers/api.ts";
import { newTeam } from "../helpers/team.ts";
import { testBytes } from "../helpers/bytes.ts";
import { readZip } from "../helpers/zip_reader.ts";
import { assertErrorAnswer } from "../helpers/http.ts";

async function folderLink(user: ApiUser, rs: number, ss?: number): Promise<string> {
  const res = await user.call("GET", `/folders/${rs}/download-token${ss ? `?ss=${ss}` : ""}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.body.data.linkUrl, /^\/api\/external\/v1\/folders\/download\?dt=[\w-]{43}$/);
  return res.body.data.linkUrl;
}

forEachBlobStore(
  "folder ZIP: UTF-8 names, nested and empty folders, exact bytes, nothing from the trash",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const top = await alice.newFolder("보고서 2026");
    const sub = await alice.newFolder("sub", top);
    await alice.newFolder("빈 폴더", sub);
    await alice.newFolder("empty", top);
    const files: Record<string, Uint8Array<ArrayBuffer>> = {
      "보고서 2026/a.txt": new TextEncoder().encode("hello zip"),
      "보고서 2026/데이터.bin": testBytes(200_000, 7),
      "보고서 2026/empty.txt": new Uint8Array(0),
      "보고서 2026/sub/x.bin": testBytes(70_000, 9),
    };
    for (const [path, bytes] of Object.entries(files)) {
      const parts = path.split("/");
      await alice.newFile(parts.at(-1)!, bytes, parts.length === 3 ? sub : top);
    }
    const gone = await alice.newFile("gone.txt", "trashed", top);
    assert.equal((await alice.call("PATCH", `/files/${gone}/delete`)).status, 200);
    const old = await alice.newFolder("old", top);
    await alice.newFile("inside-old.txt", "trashed with its folder", old);
    assert.equal((await alice.call("PATCH", `/folders/${old}/delete`)).status, 200);
    // Another user's tree and the root are not part of it.
    await uploadAs(server, alice, "at-root.txt", "root");

    const link = await folderLink(alice, top);
    const res = await fetch(`${server.url}${link}`); // no Authorization header
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    const disposition = res.headers.get("content-disposition")!;
    assert.match(disposition, /^attachment;/);
    assert.ok(
      disposition.includes(`filename*=UTF-8''${encodeURIComponent("보고서 2026.zip")}`),
      disposition,
    );
    const body = new Uint8Array(await res.arrayBuffer());
    assert.equal(Number(res.headers.get("content-length")), body.byteLength);

    const zip = readZip(body);
    assert.deepEqual(
      zip.entries.map((e) => e.name).sort(),
      [
        "보고서 2026/",
        "보고서 2026/a.txt",
        "보고서 2026/empty/",
        "보고서 2026/empty.txt",
        "보고서 2026/sub/",
        "보고서 2026/sub/x.bin",
        "보고서 2026/sub/빈 폴더/",
        "보고서 2026/데이터.bin",
      ].sort(),
    );
    for (const e of zip.entries) assert.ok(e.utf8, `${e.name} has the UTF-8 flag`);
    for (const [path, bytes] of Object.entries(files)) {
      assert.deepEqual(zip.get(path).data(), bytes, path);
    }
    for (const dir of zip.entries.filter((e) => e.isDirectory)) assert.equal(dir.size, 0);
  },
);

Deno.test("folder download token: read-only keys may download; bad, expired or wrong-kind tokens fail", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const ro = await readOnlyKeyOf(server, alice);
    const folder = await alice.newFolder("Plain");
    await alice.newFile("one.txt", "1", folder);
    const link = await folderLink(ro, folder);
    const zip = readZip(new Uint8Array(await (await fetch(`${server.url}${link}`)).arrayBuffer()));
    assert.equal(zip.text("Plain/one.txt"), "1");
    // The link stays usable until it expires (an interrupted download can start again).
    assert.equal((await fetch(`${server.url}${link}`)).status, 200);

    const base = `${server.url}/api/external/v1/folders/download`;
    for (const dt of ["", "short", "x".repeat(43)]) {
      const res = await fetch(`${base}?dt=${dt}`);
      assert.equal(res.status, 404, dt);
      assert.equal((await res.json()).errorCode, "RESOURCE_009");
    }
    assert.equal((await (await fetch(base)).json()).errorCode, "RESOURCE_009");

    const file = await uploadAs(server, alice, "f.txt", "f");
    const fileLink = await alice.call("GET", `/files/${file}/download-token`);
    const fileToken = new URL(fileLink.body.data.linkUrl, server.url).searchParams.get("dt");
    const wrongKind = await fetch(`${base}?dt=${fileToken}`);
    assert.equal((await wrongKind.json()).errorCode, "RESOURCE_009");

    const expiring = new URL(await folderLink(alice, folder), server.url).searchParams.get("dt")!;
    const entry = await server.kv.get<{ expiresAt: number }>(["download_token", expiring]);
    assert.ok(entry.value, "the token record is where download_tokens.ts keeps it");
    await server.kv.set(entry.key, { ...entry.value, expiresAt: Date.now() - 1 }, {
      expireIn: DOWNLOAD_TOKEN_TTL_MS,
    });
    await assertErrorAnswer(await fetch(`${base}?dt=${expiring}`), 404, "RESOURCE_009");

    // Access is checked again when the link is used: a folder trashed meanwhile is gone.
    const later = await folderLink(alice, folder);
    await alice.call("PATCH", `/folders/${folder}/delete`);
    await assertErrorAnswer(await fetch(`${server.url}${later}`), 404, "RESOURCE_002");
  });
});

Deno.test("folder download token: file seqs, unknown seqs and other users' folders are refused", async () => {
  await withServer(async (server) => {
    const [alice, bob, carol] = await newTeam(server, "alice", "bob", "carol");
    const folder = await alice.newFolder("Team");
    await alice.newFile("plan.txt", "plan", folder);
    const file = await uploadAs(server, alice, "f.txt", "f");

    const ofFile = await alice.call("GET", `/folders/${file}/download-token`);
    assert.equal(ofFile.status, 400);
    assert.equal(ofFile.body.errorCode, "RESOURCE_005");
    const unknown = await alice.call("GET", `/folders/777777/download-token`);
    assert.equal(unknown.body.errorCode, "RESOURCE_002");
    const notShared = await bob.call("GET", `/folders/${folder}/download-token`);
    assert.equal(notShared.status, 403);
    assert.equal(notShared.body.errorCode, "PERMISSION_002");
    const noAuth = await fetch(`${server.url}/api/external/v1/folders/${folder}/download-token`);
    assert.equal(noAuth.status, 401);

    await alice.newShare({
      rs: folder,
      st: "SPECIFIC_USERS",
      ts: [{ us: bob.userSeq, ...shareFlags("cd") }, { us: carol.userSeq, ...shareFlags() }],
    });
    const bobLink = await folderLink(bob, folder, alice.userSeq);
    const zip = readZip(
      new Uint8Array(await (await fetch(`${server.url}${bobLink}`)).arrayBuffer()),
    );
    assert.equal(zip.text("Team/plan.txt"), "plan");
    const viewOnly = await carol.call(
      "GET",
      `/folders/${folder}/download-token?ss=${alice.userSeq}`,
    );
    assert.equal(viewOnly.status, 403);
    assert.equal(viewOnly.body.errorCode, "PERMISSION_004");
  });
});

// Real ZIP64 needs a file or offset past 4 GiB (client-zip switches on its own); this fixture
// keeps the reader's ZIP64 path honest. Built by hand and checked with `unzip -t` and Python's
// zipfile: local and central sizes 0xFFFFFFFF with ZIP64 extras, a ZIP64 end record + locator.
const ZIP64_FIXTURE =
  "UEsDBC0AAAgAAAAAIVjq40/t//////////8OABQA7YGwIO2MjOydvC50eHQBABAADAAAAAAAAAAMAAAAAAAAAGhlbGxvIHppcDY0ClBLAQItAC0AAAgAAAAAIVjq40/t//////////8OABwAAAAAAAAAAAAAAP/////tgbAg7YyM7J28LnR4dAEAGAAMAAAAAAAAAAwAAAAAAAAAAAAAAAAAAABQSwYGLAAAAAAAAAAtAC0AAAAAAAAAAAABAAAAAAAAAAEAAAAAAAAAWAAAAAAAAABMAAAAAAAAAFBLBgcAAAAApAAAAAAAAAABAAAAUEsFBgAAAAD///////////////8AAA==";

Deno.test("zip_reader reads ZIP64 end records and extras", () => {
  const zip = readZip(Uint8Array.from(atob(ZIP64_FIXTURE), (c) => c.charCodeAt(0)));
  assert.equal(zip.zip64, true);
  assert.equal(zip.entries.length, 1);
  assert.equal(zip.entries[0].zip64, true);
  assert.equal(zip.entries[0].size, 12);
  assert.equal(zip.text("큰 파일.txt"), "hello zip64\n");
});
