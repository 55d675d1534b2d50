import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { DOWNLOAD_TOKEN_TTL_MS } from "../../kv/tree/download_tokens.ts";
import { forEachBlobStore, withServer } from "../helpers/server.ts";
import { newApiUser, readOnlyKeyOf } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { assertErrorAnswer } from "../helpers/http.ts";

const BASE = "/api/external/v1";

forEachBlobStore("download: bytes, headers, ETag and If-None-Match", async (server) => {
  const alice = await newApiUser(server, "alice");
  const bytes = testBytes(2_500_000, 3); // several 1 MiB read chunks and 63 KiB KV chunks
  const rs = await alice.newFile("photo.png", bytes);
  const res = await alice.fetch(`/files/${rs}/download`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/png");
  assert.equal(res.headers.get("content-length"), String(bytes.byteLength));
  assert.equal(res.headers.get("content-disposition"), 'attachment; filename="photo.png"');
  assert.equal(res.headers.get("accept-ranges"), "bytes");
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  const etag = res.headers.get("etag");
  assert.equal(etag, `"${createHash("sha256").update(bytes).digest("hex").slice(0, 32)}"`);
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);

  const cached = await alice.fetch(`/files/${rs}/download`, {
    headers: { "if-none-match": `"other", ${etag}` },
  });
  assert.equal(cached.status, 304);
  assert.equal(await cached.text(), "");
  const head = await alice.fetch(`/files/${rs}/download`, { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), String(bytes.byteLength));
  assert.equal(head.headers.get("etag"), etag);
  assert.equal((await head.arrayBuffer()).byteLength, 0);
  const stale = await alice.fetch(`/files/${rs}/download`, {
    headers: { "if-none-match": '"not-it"' },
  });
  assert.equal(stale.status, 200);
  await stale.body?.cancel();
});

forEachBlobStore("download: single byte ranges, suffix and open ranges, 416", async (server) => {
  const alice = await newApiUser(server, "alice");
  const size = 200_000;
  const bytes = testBytes(size, 9);
  const rs = await alice.newFile("data.bin", bytes);
  const get = (range: string, extra: Record<string, string> = {}) =>
    alice.fetch(`/files/${rs}/download`, { headers: { range, ...extra } });

  const cases: [string, number, number][] = [
    ["bytes=0-99", 0, 99],
    ["bytes=64500-130000", 64_500, 130_000], // crosses KV chunk boundaries
    ["bytes=199990-", 199_990, size - 1],
    ["bytes=-10", size - 10, size - 1],
    ["bytes=150000-999999999", 150_000, size - 1],
    ["bytes=-500000", 0, size - 1],
  ];
  for (const [range, start, end] of cases) {
    const res = await get(range);
    assert.equal(res.status, 206, range);
    assert.equal(res.headers.get("content-range"), `bytes ${start}-${end}/${size}`, range);
    assert.equal(res.headers.get("content-length"), String(end - start + 1), range);
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes.subarray(start, end + 1));
  }
  for (const range of [`bytes=${size}-`, "bytes=-0", `bytes=${size + 5}-${size + 10}`]) {
    const res = await get(range);
    assert.equal(res.status, 416, range);
    assert.equal(res.headers.get("content-range"), `bytes */${size}`);
    assert.equal((await res.json()).errorCode, "RESOURCE_011");
  }
  // Malformed or multiple ranges are ignored: the whole file.
  for (const range of ["bytes=5-1", "items=0-5", "bytes=0-1,5-6"]) {
    const res = await get(range);
    assert.equal(res.status, 200, range);
    assert.equal((await res.arrayBuffer()).byteLength, size);
  }
  // If-Range with another ETag: the range is for an older version, so the whole file.
  const ifRange = await get("bytes=0-9", { "if-range": '"older"' });
  assert.equal(ifRange.status, 200);
  await ifRange.body?.cancel();
});

Deno.test("Content-Disposition carries an ASCII fallback and RFC 5987 filename*", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await alice.newFile("보고서 2026.pdf", "pdf");
    const res = await alice.fetch(`/files/${rs}/download`);
    await res.body?.cancel();
    assert.equal(
      res.headers.get("content-disposition"),
      `attachment; filename="___ 2026.pdf"; filename*=UTF-8''%EB%B3%B4%EA%B3%A0%EC%84%9C%202026.pdf`,
    );
    assert.equal(res.headers.get("content-type"), "application/pdf");
    const quoted = await alice.newFile("it's 100%.txt", "x");
    const q = await alice.fetch(`/files/${quoted}/download`);
    await q.body?.cancel();
    assert.equal(
      q.headers.get("content-disposition"),
      `attachment; filename="it's 100_.txt"; filename*=UTF-8''it%27s%20100%25.txt`,
    );
  });
});

Deno.test("view: safe renditions with nosniff and a sandboxing CSP", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const view = async (name: string, content: string) => {
      const rs = await alice.newFile(name, content);
      const res = await alice.fetch(`/files/${rs}/view`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", name);
      assert.match(res.headers.get("content-security-policy")!, /^sandbox;.*default-src 'none'/);
      return { res, text: await res.text() };
    };
    const html = await view("page.html", "<script>alert(1)</script>");
    assert.equal(html.res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(html.text, "<script>alert(1)</script>");
    const svg = await view("logo.svg", "<svg onload='alert(1)'/>");
    assert.equal(svg.res.headers.get("content-type"), "text/plain; charset=utf-8");
    for (const name of ["feed.xml", "app.js", "page.xhtml"]) {
      assert.equal(
        (await view(name, "x")).res.headers.get("content-type"),
        "text/plain; charset=utf-8",
      );
    }
    const txt = await view("notes.txt", "hello");
    assert.equal(txt.res.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.match(txt.res.headers.get("content-disposition")!, /^inline;/);
    const png = await view("pic.png", "not really a png");
    assert.equal(png.res.headers.get("content-type"), "image/png");
    assert.match(png.res.headers.get("content-disposition")!, /^inline;/);
    const pdf = await view("doc.pdf", "%PDF-1.7");
    assert.equal(pdf.res.headers.get("content-type"), "application/pdf");
    const video = await view("clip.mp4", "....");
    assert.equal(video.res.headers.get("content-type"), "video/mp4");
    const bin = await view("archive.zip", "PK");
    assert.match(bin.res.headers.get("content-disposition")!, /^attachment;/);
    assert.equal(bin.res.headers.get("content-type"), "application/octet-stream");
    // View needs no more than view permission, but still a key of someone with access.
    const bob = await newApiUser(server, "bob");
    const rs = await alice.newFile("secret.txt", "s");
    const denied = await bob.fetch(`/files/${rs}/view`);
    await assertErrorAnswer(denied, 403, "PERMISSION_002");
  });
});

forEachBlobStore(
  "download token: link works without Authorization, supports Range",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const bytes = testBytes(100_000, 5);
    const rs = await alice.newFile("big.bin", bytes);
    const issued = await alice.call("GET", `/files/${rs}/download-token`);
    assert.equal(issued.status, 200);
    const link: string = issued.body.data.linkUrl;
    assert.match(link, /^\/api\/external\/v1\/files\/download\?dt=[A-Za-z0-9_-]{43}$/);
    const res = await fetch(`${server.url}${link}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-disposition"), 'attachment; filename="big.bin"');
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
    const part = await fetch(`${server.url}${link}`, { headers: { range: "bytes=10-19" } });
    assert.equal(part.status, 206);
    assert.deepEqual(new Uint8Array(await part.arrayBuffer()), bytes.subarray(10, 20));

    // Access is re-checked when the link is used: a trashed file is gone.
    await alice.call("PATCH", `/files/${rs}/delete`);
    await assertErrorAnswer(await fetch(`${server.url}${link}`), 404, "RESOURCE_002");
  },
);

Deno.test("download token: unknown, malformed, expired and folder tokens fail with RESOURCE_009", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await alice.newFile("a.txt", "abc");
    const link: string = (await alice.call("GET", `/files/${rs}/download-token`)).body.data.linkUrl;
    const token = link.split("dt=")[1];
    for (const dt of ["", "short", "A".repeat(43)]) {
      const res = await fetch(`${server.url}${BASE}/files/download?dt=${dt}`);
      assert.equal(res.status, 404, `dt=${dt}`);
      assert.equal((await res.json()).errorCode, "RESOURCE_009");
    }
    const noDt = await fetch(`${server.url}${BASE}/files/download`);
    assert.equal((await noDt.json()).errorCode, "RESOURCE_009");
    // Expire the record the way time would (KV's own expiry is lazy).
    const key = ["download_token", token];
    const rec = await server.kv.get<{ expiresAt: number }>(key);
    await server.kv.set(key, { ...rec.value!, expiresAt: Date.now() - 1 });
    await assertErrorAnswer(await fetch(`${server.url}${link}`), 404, "RESOURCE_009");
    assert.ok(DOWNLOAD_TOKEN_TTL_MS > 0);

    const bob = await newApiUser(server, "bob");
    const theirs = await bob.call("GET", `/files/${rs}/download-token`);
    assert.equal(theirs.status, 403);
    assert.equal(theirs.body.errorCode, "PERMISSION_002");
    const folder = await alice.newFolder("F");
    const ofFolder = await alice.call("GET", `/files/${folder}/download-token`);
    assert.equal(ofFolder.body.errorCode, "RESOURCE_006");
  });
});

Deno.test("download token: revoking the API key that issued it stops the token (file and folder)", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    // A second key of the same user: revoking the issuing key must not be saved by it.
    const other = await readOnlyKeyOf(server, alice);
    const rs = await alice.newFile("a.txt", "abc");
    const folder = await alice.newFolder("F");
    const fileLink: string = (await alice.call("GET", `/files/${rs}/download-token`)).body.data
      .linkUrl;
    const folderLink: string = (await alice.call("GET", `/folders/${folder}/download-token`))
      .body.data.linkUrl;
    const otherLink: string = (await other.call("GET", `/files/${rs}/download-token`)).body.data
      .linkUrl;
    const before = await fetch(`${server.url}${fileLink}`);
    assert.equal(before.status, 200, "the token works while its key is active");
    await before.body?.cancel();

    const keyId = /^drv_([A-Za-z0-9]{16})_/.exec(alice.apiKey)![1];
    const revoked = await server.admin.call("DELETE", `/keys/${keyId}`);
    assert.equal(revoked.status, 204, JSON.stringify(revoked.body));
    for (const link of [fileLink, folderLink]) {
      const res = await fetch(`${server.url}${link}`);
      assert.equal(res.status, 404, link);
      const body = await res.json();
      assert.equal(body.errorCode, "RESOURCE_009", link);
      assert.match(body.message, /revoked/, "the message names the real reason");
    }
    // A token of the user's other, still active key keeps working.
    const stillOk = await fetch(`${server.url}${otherLink}`);
    assert.equal(stillOk.status, 200);
    assert.equal(await stillOk.text(), "abc");
  });
});

Deno.test("download errors: unknown ids, bad ids, folders, other users, wrong ss", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const rs = await alice.newFile("a.txt", "abc");
    const folder = await alice.newFolder("F");
    const expect = async (path: string, status: number, code: string, user = alice) => {
      const res = await user.fetch(path);
      assert.equal(res.status, status, path);
      assert.equal((await res.json()).errorCode, code, path);
    };
    await expect(`/files/987654/download`, 404, "RESOURCE_002");
    await expect(`/files/abc/download`, 400, "REQUEST_001");
    await expect(`/files/${folder}/download`, 400, "RESOURCE_006");
    await expect(`/files/${rs}/download`, 403, "PERMISSION_002", bob);
    await expect(`/files/${rs}/download?ss=${bob.userSeq}`, 403, "PERMISSION_002");
    await expect(`/files/${rs}/download?ss=x`, 400, "REQUEST_001");
    const own = await alice.fetch(`/files/${rs}/download?ss=${alice.userSeq}`);
    assert.equal(own.status, 200);
    assert.equal(await own.text(), "abc");
    const noKey = await fetch(`${server.url}${BASE}/files/${rs}/download`);
    assert.equal(noKey.status, 401);
    await noKey.body?.cancel();
  });
});
