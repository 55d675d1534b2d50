/**
 * Uploads by link visitors (tus at /public/v1/links/{token}/uploads) and the upload-only "file
 * request" link: visitors may upload but list, download and learn names of nothing.
 */
import assert from "node:assert/strict";
import { shareKey } from "../../kv/keys.ts";
import { type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser, shareFlags } from "../helpers/api.ts";
import { cursorOf, readUntil } from "../events/helpers.ts";
import { readZip } from "../helpers/zip_reader.ts";

async function pub(server: TestServer, path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.url}/public/v1${path}`, init);
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

const tokenOf = (share: { linkUrl: string }) => share.linkUrl.split("/s/")[1];
const b64 = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s)));
const TUS = { "tus-resumable": "1.0.0" };
const BYTES = "application/offset+octet-stream";

/** tus creation through the link; `first` is sent with it (creation-with-upload). */
function createUpload(
  server: TestServer,
  token: string,
  meta: Record<string, string>,
  length: number,
  first = "",
  access?: string,
) {
  const metadata = Object.entries(meta).map(([k, v]) => `${k} ${b64(v)}`).join(",");
  return pub(server, `/links/${token}/uploads`, {
    method: "POST",
    headers: {
      ...TUS,
      "upload-length": String(length),
      "upload-metadata": metadata,
      ...(access ? { "x-link-access": access } : {}),
      ...(first ? { "content-type": BYTES } : {}),
    },
    body: first || undefined,
  });
}

async function namesIn(owner: ApiUser, pfs: number): Promise<string[]> {
  const res = await owner.call("GET", `/resources?pfs=${pfs}&ps=100`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data.items.map((i: { name: string }) => i.name).sort();
}

Deno.test("file request: visitors upload, and see no listing, no download, no names", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("Inbox");
    const mine = await alice.newFile("private.txt", "owner's", folder);
    // A file request grants cv and cu only, on a folder, as a PUBLIC_LINK.
    for (
      const bad of [
        { rs: folder, st: "PUBLIC_LINK", ...shareFlags("cu", "cd"), fileRequest: true },
        { rs: folder, st: "ORG_LINK", ...shareFlags("cu"), fileRequest: true },
        { rs: mine, st: "PUBLIC_LINK", ...shareFlags("cu"), fileRequest: true },
      ]
    ) {
      const r = await alice.call("POST", "/shares", bad);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.errorCode, "SHARE_011");
    }
    const share = await alice.newShare({
      rs: folder,
      st: "PUBLIC_LINK",
      ...shareFlags("cu"),
      fileRequest: true,
    });
    assert.equal(share.fileRequest, true);
    const token = tokenOf(share);
    const cursor = await cursorOf(alice);

    const info = await pub(server, `/links/${token}`);
    assert.equal(info.status, 200);
    assert.equal(info.body.data.fileRequest, true);
    assert.equal(info.body.data.permissions.canDownload, false);
    assert.equal(info.body.data.permissions.canUpload, true);
    for (
      const path of [
        `/links/${token}/items`,
        `/links/${token}/files/${mine}/download`,
        `/links/${token}/files/${mine}/thumbnail`,
      ]
    ) {
      const r = await pub(server, path);
      assert.equal(r.status, 403, path);
      assert.equal(r.body.errorCode, "LINK_006", path);
    }

    // Two visitors send a file of the same name: both are kept, neither learns the other's.
    for (const content of ["first visitor", "second visitor!"]) {
      const up = await createUpload(
        server,
        token,
        { filename: "report.txt" },
        content.length,
        content,
      );
      assert.equal(up.status, 201, JSON.stringify(up.body));
      assert.equal(up.headers.get("upload-offset"), String(content.length));
      assert.doesNotMatch(JSON.stringify([...up.headers]), /report/);
      const head = await pub(
        server,
        new URL(up.headers.get("location")!, server.url).pathname
          .replace("/public/v1", ""),
        { method: "HEAD", headers: TUS },
      );
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("upload-metadata"), null);
    }
    // A folderSeq is ignored: a file request only fills its own folder.
    const names = await namesIn(alice, folder);
    assert.equal(names.length, 3, names.join());
    assert.ok(names.includes("private.txt") && names.includes("report.txt"), names.join());

    // The owner sees the uploads in the change feed like any upload.
    const isCreated = (c: { kind: string }) => c.kind === "created";
    const changes = await readUntil(alice, cursor, (it) => it.filter(isCreated).length >= 2);
    assert.equal(changes.filter(isCreated).length, 2, JSON.stringify(changes));
  });
});

Deno.test("file request with a password: access token needed, wrong guesses throttled", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("Drop");
    const share = await alice.newShare({
      rs: folder,
      st: "PUBLIC_LINK",
      ...shareFlags("cu"),
      fileRequest: true,
      password: "open sesame",
    });
    const token = tokenOf(share);
    const locked = await createUpload(server, token, { filename: "a.txt" }, 1, "a");
    assert.equal(locked.status, 401);
    assert.equal(locked.body.errorCode, "LINK_004");
    const post = (password: string) =>
      pub(server, `/links/${token}/access`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ password }),
      });
    let throttled = null;
    for (let i = 0; i < 10 && !throttled; i++) {
      const r = await post("wrong");
      if (r.status === 429) throttled = r;
      else assert.equal(r.body.errorCode, "LINK_001");
    }
    assert.ok(throttled, "wrong passwords are throttled");
    assert.equal(throttled.body.errorCode, "LINK_002");
    assert.ok(Number(throttled.headers.get("retry-after")) >= 1);
    const bogus = await createUpload(server, token, { filename: "a.txt" }, 1, "a", "B".repeat(43));
    assert.equal(bogus.body.errorCode, "LINK_004");
    assert.deepEqual(await namesIn(alice, folder), []);
    // Once the client has waited, the right password's access token lets the upload in.
    await new Promise((r) => setTimeout(r, Number(throttled.headers.get("retry-after")) * 1000));
    const good = await post("open sesame");
    assert.equal(good.status, 200, JSON.stringify(good.body));
    const access = good.body.data.accessToken;
    const up = await createUpload(server, token, { filename: "a.txt" }, 1, "a", access);
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.deepEqual(await namesIn(alice, folder), ["a.txt"]);

    // Expired: the link answers nothing, uploads included.
    const stored = (await server.kv.get<{ expiresAt: number }>(shareKey(share.shareSeq))).value!;
    await server.kv.set(shareKey(share.shareSeq), { ...stored, expiresAt: Date.now() - 1000 });
    const expired = await createUpload(server, token, { filename: "a.txt" }, 1, "a");
    assert.equal(expired.status, 404);
    assert.equal(expired.body.errorCode, "SHARE_007");
  });
});

Deno.test("folder link granting upload: tus upload resumes; links without cu refuse", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("Shared");
    const sub = await alice.newFolder("Sub", folder);
    const readOnly = await alice.newFolder("ReadOnly");
    const ro = await alice.newShare({ rs: readOnly, st: "PUBLIC_LINK", ...shareFlags("cd") });
    const refused = await createUpload(server, tokenOf(ro), { filename: "x.txt" }, 1, "x");
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errorCode, "LINK_007");

    const share = await alice.newShare({
      rs: folder,
      st: "PUBLIC_LINK",
      ...shareFlags("cd", "cu"),
    });
    const token = tokenOf(share);
    const content = "hello, resumable world";
    const up = await createUpload(
      server,
      token,
      { filename: "resumed.txt", folderSeq: String(sub) },
      content.length,
      content.slice(0, 7),
    );
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const path = new URL(up.headers.get("location")!, server.url).pathname.replace(
      "/public/v1",
      "",
    );
    // The visitor went away; HEAD tells where to resume.
    const head = await pub(server, path, { method: "HEAD", headers: TUS });
    assert.equal(head.headers.get("upload-offset"), "7");
    const patch = (offset: number, body: string) =>
      pub(server, path, {
        method: "PATCH",
        headers: { ...TUS, "upload-offset": String(offset), "content-type": BYTES },
        body,
      });
    const wrong = await patch(3, content.slice(3));
    assert.equal(wrong.status, 409);
    assert.equal(wrong.body.errorCode, "UPLOAD_002");
    const done = await patch(7, content.slice(7));
    assert.equal(done.status, 204, JSON.stringify(done.body));
    assert.equal(done.headers.get("upload-offset"), String(content.length));
    assert.deepEqual(await namesIn(alice, sub), ["resumed.txt"]);
    // Another link of the owner does not reach this upload.
    const other = await pub(server, path.replace(token, tokenOf(ro)), {
      method: "HEAD",
      headers: TUS,
    });
    assert.notEqual(other.status, 200);
    // A folder outside the link is refused.
    const outside = await createUpload(
      server,
      token,
      { filename: "o.txt", folderSeq: String(readOnly) },
      1,
      "o",
    );
    assert.equal(outside.body.errorCode, "RESOURCE_002");
    const listed = await pub(server, `/links/${token}/items?folderSeq=${sub}`);
    const file = listed.body.data.items[0];
    const dl = await pub(server, `/links/${token}/files/${file.resourceSeq}/download`);
    assert.equal(dl.body, content);
  });
});

Deno.test("folder link: download all as one ZIP, with its subfolders; needs cd", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const folder = await alice.newFolder("Photos");
    const sub = await alice.newFolder("2026", folder);
    await alice.newFile("a.txt", "alpha", folder);
    await alice.newFile("b.txt", "beta", sub);
    const share = await alice.newShare({ rs: folder, st: "PUBLIC_LINK", ...shareFlags("cd") });
    const res = await fetch(`${server.url}/public/v1/links/${tokenOf(share)}/zip`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/zip");
    assert.match(res.headers.get("content-disposition")!, /Photos\.zip/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.headers.get("content-length"), String(bytes.length));
    const zip = readZip(bytes);
    assert.deepEqual(zip.entries.map((e) => e.name).sort(), [
      "Photos/",
      "Photos/2026/",
      "Photos/2026/b.txt",
      "Photos/a.txt",
    ]);
    assert.equal(zip.text("Photos/2026/b.txt"), "beta");
    const inner = readZip(
      new Uint8Array(
        await (await fetch(`${server.url}/public/v1/links/${tokenOf(share)}/zip?folderSeq=${sub}`))
          .arrayBuffer(),
      ),
    );
    assert.deepEqual(inner.entries.map((e) => e.name).sort(), ["2026/", "2026/b.txt"]);

    await alice.call("PATCH", `/shares/${share.shareSeq}`, { st: "PUBLIC_LINK", ...shareFlags() });
    const noDl = await pub(server, `/links/${tokenOf(share)}/zip`);
    assert.equal(noDl.status, 403);
    assert.equal(noDl.body.errorCode, "PERMISSION_004");
  });
});
