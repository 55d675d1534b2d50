/**
 * One stored version over HTTP: download (headers as a download), restore (a new version, quota
 * charged, refused while locked) and delete (bytes and usage freed, never the current one), with
 * `ss` on shared files; usage and the stored blobs stay exact after each step.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { listResourcesOwnedBy } from "../../kv/tree/resources.ts";
import { listVersions } from "../../kv/tree/content_versions.ts";
import { forEachBlobStore, fsBlobFiles, type TestServer, withServer } from "../helpers/server.ts";
import { type ApiUser, newApiUser } from "../helpers/api.ts";
import { testBytes } from "../helpers/bytes.ts";
import { lockAsOffice } from "../helpers/domain.ts";

const sha = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/** Uploads `contents` as the versions of one new file (the first creates it); returns its rs. */
async function fileWithVersions(user: ApiUser, name: string, contents: Uint8Array<ArrayBuffer>[]) {
  const rs = await user.newFile(name, contents[0]);
  for (const c of contents.slice(1)) {
    const res = await user.upload(name, c, { st: "version", rs });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
  return rs;
}

async function versionsOf(user: ApiUser, rs: number, ss?: number) {
  const res = await user.call("GET", `/files/${rs}/versions${ss ? `?ss=${ss}` : ""}`);
  assert.equal(res.status, 200);
  // deno-lint-ignore no-explicit-any
  return res.body.data.items as any[];
}

/**
 * Usage equals the bytes of every stored version, each version has a blob of its own, and (fs
 * store) the blob files are exactly the referenced ones.
 */
async function assertUsageExact(server: TestServer, users: ApiUser[]) {
  const referenced: string[] = [];
  for (const u of users) {
    let bytes = 0;
    for (const r of await listResourcesOwnedBy(server.kv, u.userSeq)) {
      for (const v of await listVersions(server.kv, r.rs)) {
        bytes += v.size;
        referenced.push(v.blobId);
      }
    }
    const admin = await server.admin.call("GET", `/users/${u.userSeq}`);
    assert.equal(admin.body.usedBytes, bytes, `usedBytes of ${u.accountId}`);
  }
  assert.equal(new Set(referenced).size, referenced.length, "a blob referenced twice");
  if (server.blobs.kind === "fs") {
    const files = await fsBlobFiles(server);
    assert.deepEqual(files.temp, []);
    assert.deepEqual([...files.blobs].sort(), [...referenced].sort());
  }
}

forEachBlobStore("versions: download a stored version with ETag, Range and 304", async (server) => {
  const alice = await newApiUser(server, "alice");
  const v1 = testBytes(150_000, 1);
  const v2 = testBytes(90_000, 2);
  const rs = await fileWithVersions(alice, "data.bin", [v1, v2]);

  const res = await alice.fetch(`/files/${rs}/versions/1/download`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("etag"), `"${sha(v1).slice(0, 32)}"`);
  assert.equal(res.headers.get("content-length"), String(v1.byteLength));
  assert.equal(res.headers.get("content-disposition"), 'attachment; filename="data.bin"');
  assert.equal(res.headers.get("accept-ranges"), "bytes");
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), v1);

  const current = await alice.fetch(`/files/${rs}/versions/2/download`);
  assert.deepEqual(new Uint8Array(await current.arrayBuffer()), v2);

  const part = await alice.fetch(`/files/${rs}/versions/1/download`, {
    headers: { range: "bytes=100000-100009" },
  });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get("content-range"), `bytes 100000-100009/${v1.byteLength}`);
  assert.deepEqual(new Uint8Array(await part.arrayBuffer()), v1.slice(100_000, 100_010));

  const cached = await alice.fetch(`/files/${rs}/versions/1/download`, {
    headers: { "if-none-match": `"${sha(v1).slice(0, 32)}"` },
  });
  assert.equal(cached.status, 304);
  await cached.body?.cancel();

  const missing = await alice.call("GET", `/files/${rs}/versions/9/download`);
  assert.equal(missing.status, 404);
  assert.equal(missing.body.errorCode, "VERSION_001");
  const bad = await alice.call("GET", `/files/${rs}/versions/0/download`);
  assert.equal(bad.status, 400);
  assert.equal(bad.body.errorCode, "REQUEST_001");

  // A stored version whose bytes are missing is a fault, never answered with another content.
  const [first] = await listVersions(server.kv, rs);
  await server.blobs.delete(first.blobId);
  const broken = await alice.call("GET", `/files/${rs}/versions/1/download`);
  assert.equal(broken.body.errorCode, "SERVICE_002");
});

forEachBlobStore(
  "versions: restore makes a new current version and charges quota",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const v1 = testBytes(40_000, 3);
    const v2 = testBytes(10_000, 4);
    const rs = await fileWithVersions(alice, "report.docx", [v1, v2]);
    await assertUsageExact(server, [alice]);

    const restored = await alice.call("POST", `/files/${rs}/versions/1/restore`);
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(restored.body.data.restoredFrom, 1);
    assert.equal(restored.body.data.file.version, 3);
    assert.equal(restored.body.data.file.sha256, sha(v1));
    assert.equal(restored.body.data.file.size, v1.byteLength);

    const download = await alice.fetch(`/files/${rs}/download`);
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), v1);
    const versions = await versionsOf(alice, rs);
    assert.deepEqual(versions.map((v) => [v.version, v.sha256, v.current]), [
      [1, sha(v1), false],
      [2, sha(v2), false],
      [3, sha(v1), true],
    ]);
    assert.equal(versions[2].reason, "restore");
    assert.equal(versions[2].createdBy, alice.userSeq);
    await assertUsageExact(server, [alice]);
    const used = (await server.admin.call("GET", `/users/${alice.userSeq}`)).body.usedBytes;
    assert.equal(used, 2 * v1.byteLength + v2.byteLength);
  },
);

Deno.test("versions: a restore past the quota is refused and changes nothing", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice", { quotaBytes: 100_000 });
    const rs = await fileWithVersions(alice, "big.bin", [
      testBytes(60_000, 5),
      testBytes(30_000, 6),
    ]);
    const refused = await alice.call("POST", `/files/${rs}/versions/1/restore`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.errorCode, "RESOURCE_015");
    assert.equal((await versionsOf(alice, rs)).length, 2);
    await assertUsageExact(server, [alice]);
    // Deleting version 1 frees its 60,000 bytes: restoring version 2 (30,000) then fits.
    const del = await alice.call("DELETE", `/files/${rs}/versions/1`);
    assert.equal(del.status, 200);
    assert.deepEqual(del.body.data, { resourceSeq: rs, version: 1, freedBytes: 60_000 });
    await assertUsageExact(server, [alice]);
    const fits = await alice.call("POST", `/files/${rs}/versions/2/restore`);
    assert.equal(fits.status, 200);
    await assertUsageExact(server, [alice]);
  });
});

forEachBlobStore(
  "versions: delete frees bytes and usage, never the current one",
  async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await fileWithVersions(alice, "notes.txt", [
      testBytes(7_000, 7),
      testBytes(8_000, 8),
      testBytes(9_000, 9),
    ]);
    const before = (await server.admin.call("GET", `/users/${alice.userSeq}`)).body.usedBytes;
    const del = await alice.call("DELETE", `/files/${rs}/versions/2`);
    assert.equal(del.status, 200);
    assert.equal(del.body.data.freedBytes, 8_000);
    const after = (await server.admin.call("GET", `/users/${alice.userSeq}`)).body.usedBytes;
    assert.equal(before - after, 8_000);
    assert.deepEqual((await versionsOf(alice, rs)).map((v) => v.version), [1, 3]);
    await assertUsageExact(server, [alice]);

    const again = await alice.call("DELETE", `/files/${rs}/versions/2`);
    assert.equal(again.status, 404);
    assert.equal(again.body.errorCode, "VERSION_001");
    const gone = await alice.call("GET", `/files/${rs}/versions/2/download`);
    assert.equal(gone.body.errorCode, "VERSION_001");
    const current = await alice.call("DELETE", `/files/${rs}/versions/3`);
    assert.equal(current.status, 409);
    assert.equal(current.body.errorCode, "VERSION_002");
    const restoreGone = await alice.call("POST", `/files/${rs}/versions/2/restore`);
    assert.equal(restoreGone.body.errorCode, "VERSION_001");
    await assertUsageExact(server, [alice]);
  },
);

Deno.test("versions: a lock held by someone else refuses a restore, not a delete", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const rs = await fileWithVersions(alice, "locked.docx", [
      testBytes(1_000, 1),
      testBytes(2_000, 2),
      testBytes(3_000, 3),
    ]);
    await lockAsOffice(server.kv, rs, 999, "editor of user 999", null);
    const refused = await alice.call("POST", `/files/${rs}/versions/1/restore`);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.errorCode, "RESOURCE_010");
    assert.equal((await versionsOf(alice, rs)).length, 3);
    // A lock guards the current content; deleting an old version does not touch it.
    assert.equal((await alice.call("DELETE", `/files/${rs}/versions/1`)).status, 200);
    await assertUsageExact(server, [alice]);
  });
});

Deno.test("versions: ss and the share's permissions on a shared file", async () => {
  await withServer(async (server) => {
    const alice = await newApiUser(server, "alice");
    const bob = await newApiUser(server, "bob");
    const carol = await newApiUser(server, "carol");
    const v1 = testBytes(5_000, 1);
    const rs = await fileWithVersions(bob, "shared.bin", [v1, testBytes(6_000, 2)]);
    let share = await bob.shareWith(rs, alice); // view only
    const reshare = async (...perms: ("cd" | "ce")[]) => {
      assert.equal((await bob.call("DELETE", `/shares/${share.shareSeq}`)).status, 200);
      share = await bob.shareWith(rs, alice, ...perms);
    };
    const ss = `?ss=${bob.userSeq}`;

    /** `user`'s call answers 403 with `code` (`why` says what the case shows). */
    const refused = async (
      user: ApiUser,
      method: string,
      path: string,
      code: string,
      why?: string,
    ) => {
      const res = await user.call(method, path);
      assert.equal(res.status, 403, why);
      assert.equal(res.body.errorCode, code, why);
    };
    await refused(alice, "GET", `/files/${rs}/versions/1/download${ss}`, "PERMISSION_004");
    await refused(alice, "POST", `/files/${rs}/versions/1/restore${ss}`, "PERMISSION_004");
    await refused(alice, "DELETE", `/files/${rs}/versions/1${ss}`, "PERMISSION_004");

    await reshare("cd");
    const download = await alice.fetch(`/files/${rs}/versions/1/download${ss}`);
    assert.equal(download.status, 200);
    assert.deepEqual(new Uint8Array(await download.arrayBuffer()), v1);
    const wrongSs = `?ss=${carol.userSeq}`;
    await refused(alice, "GET", `/files/${rs}/versions/1/download${wrongSs}`, "PERMISSION_002");
    await refused(carol, "GET", `/files/${rs}/versions/1/download`, "PERMISSION_002", "stranger");
    await refused(
      alice,
      "POST",
      `/files/${rs}/versions/1/restore${ss}`,
      "PERMISSION_004",
      "download does not allow a restore",
    );

    await reshare("cd", "ce");
    const restored = await alice.call("POST", `/files/${rs}/versions/1/restore${ss}`);
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal(restored.body.data.file.ownerSeq, bob.userSeq);
    const versions = await versionsOf(bob, rs);
    assert.equal(versions.at(-1).createdBy, alice.userSeq);
    const del = await alice.call("DELETE", `/files/${rs}/versions/2${ss}`);
    assert.equal(del.status, 200);
    // The owner is charged, never the recipient.
    await assertUsageExact(server, [alice, bob]);
    assert.equal((await server.admin.call("GET", `/users/${alice.userSeq}`)).body.usedBytes, 0);

    const readOnly = await server.admin.createKey(alice.userSeq, ["api:read"]);
    const res = await fetch(`${server.url}/api/external/v1/files/${rs}/versions/1/restore${ss}`, {
      method: "POST",
      headers: { authorization: `Bearer ${readOnly}` },
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).errorCode, "AUTH_003");
  });
});
